package transcribe

import (
	"context"
	"log/slog"
)

// Job is the work one transcript's feature stages share: the transcript
// under construction and its decoded audio. Stages edit Transcript in place
// (Words, Utterances and the result fields).
type Job struct {
	Transcript *Transcript
	// Audio is the decoded media at the recognizer's sample rate, trimmed
	// to audio_start_from/audio_end_at, with channels kept when dual_channel
	// or multichannel was requested and mixed to mono otherwise.
	Audio *PCM
	// OffsetMS is where Audio starts in the original media; word times are
	// already in original-media milliseconds.
	OffsetMS int64
	// Recognizer is the batch recognizer that produced the words, for stages
	// that need to re-recognize (for example per-speaker passes).
	Recognizer Recognizer
	// Blobs stores artifacts such as redacted audio; a stage that stores one
	// records its key in Transcript.RedactedKey.
	Blobs  BlobStore
	Logger *slog.Logger
}

// Stage is one step of the feature pipeline. The Service runs the enabled
// stages in the order of Config.Stages after recognition. A Stage must be
// safe for concurrent use by several jobs.
//
//   - Name is a short stable identifier used in logs ("punctuate").
//   - Enabled reports whether the stage applies to these (normalized)
//     parameters.
//   - Apply edits job.Transcript. An error wrapping *MediaError ends the
//     transcript in status error with that reason; any other error does too,
//     with a generic reason, and is logged.
type Stage interface {
	Name() string
	Enabled(p *TranscriptParams) bool
	Apply(ctx context.Context, job *Job) error
}

// StageFunc builds a Stage from functions, convenient for small stages and
// tests.
type StageFunc struct {
	StageName string
	When      func(p *TranscriptParams) bool // nil: always
	Run       func(ctx context.Context, job *Job) error
}

// Name returns StageName.
func (s StageFunc) Name() string { return s.StageName }

// Enabled calls When, or returns true when When is nil.
func (s StageFunc) Enabled(p *TranscriptParams) bool { return s.When == nil || s.When(p) }

// Apply calls Run.
func (s StageFunc) Apply(ctx context.Context, job *Job) error { return s.Run(ctx, job) }

// PendingStage is an optional extension of Stage: Pending sets the result
// fields the stage owns to what a transcript shows before the stage has run
// (queued or processing), for example {} for content_safety_labels. The
// Service calls it at submit time for every enabled stage.
type PendingStage interface {
	Stage
	Pending(t *Transcript)
}

// FallibleStage is an optional extension of Stage for best-effort analyses
// (sentiment, topics, summaries...): when Apply returns an error the Service
// logs it, calls Unavailable, and the transcript still completes; the stage
// sets its result fields to the API's "unavailable" form (or leaves them
// null where the API has no such form). Stages that are not fallible fail
// the transcript when Apply fails.
type FallibleStage interface {
	Stage
	Unavailable(t *Transcript)
}
