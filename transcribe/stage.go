package transcribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Job is the work one transcript's feature stages share: the transcript
// under construction and its decoded audio. Stages edit Transcript in place
// (Words, Utterances and the result fields).
type Job struct {
	Transcript *Transcript
	// Audio is the decoded media at the recognizer's sample rate, trimmed
	// to audio_start_from/audio_end_at, with channels kept when dual_channel
	// or multichannel was requested and mixed to mono otherwise. The
	// Service leaves it nil and keeps the audio on disk; stages that need
	// it whole call LoadAudio, which loads it once (tests may set Audio
	// directly).
	Audio *PCM
	// OffsetMS is where Audio starts in the original media; word times are
	// already in original-media milliseconds.
	OffsetMS int64
	// Recognizer is the batch recognizer that produced the words, for stages
	// that need to re-recognize (for example per-speaker passes).
	Recognizer Recognizer
	// Written says what of the written form the recognizer's words carry
	// (the engine's punctuation, casing, written numbers); the formatting
	// stages fill in only the rest.
	Written Written
	// Blobs is where StoreArtifact writes.
	Blobs  driver.BlobStore
	Logger *slog.Logger
	// Artifacts lists the files stored with StoreArtifact so far; the
	// Service keeps the list with the transcript and deletes them with it.
	Artifacts []Artifact
	// Now is the clock for artifact times. Default time.Now.
	Now func() time.Time

	spool    *spool
	from, to int64
}

// LoadAudio returns Audio, loading it from the job's spooled audio the
// first time. Memory then grows with the media's length (16 kHz mono is
// 115 MB an hour), which is why only the stages that need the whole audio
// (speaker labels, redacted audio) call it.
func (j *Job) LoadAudio() (*PCM, error) {
	if j.Audio != nil || j.spool == nil {
		if j.Audio == nil {
			return nil, errors.New("transcribe: the job has no audio")
		}
		return j.Audio, nil
	}
	p, err := j.spool.PCM(j.from, j.to)
	if err != nil {
		return nil, err
	}
	j.Audio = p
	return p, nil
}

// Artifact is a file a stage stored for a transcript, such as its redacted
// audio. Its Key is chosen by StoreArtifact; stages never make up keys.
type Artifact struct {
	Kind    string    `json:"k"` // what it is, e.g. ArtifactRedactedAudio
	Format  string    `json:"f"` // file format, e.g. "mp3"
	Key     string    `json:"b"` // blob key
	Created time.Time `json:"c"`
}

// ArtifactRedactedAudio is the Kind of the redacted copy of the audio
// (redact_pii_audio); Format is "mp3" or "wav".
const ArtifactRedactedAudio = "redacted_audio"

// StoreArtifact streams r into Blobs as the transcript's artifact of kind
// and format, replacing an earlier one of the same kind, and records it in
// Artifacts. On error nothing is recorded.
func (j *Job) StoreArtifact(ctx context.Context, kind, format string, r io.Reader) error {
	if j.Blobs == nil || j.Transcript == nil {
		return errors.New("transcribe: StoreArtifact needs Job.Blobs and Job.Transcript")
	}
	if kind == "" || format == "" || path.Base(kind) != kind || path.Base(format) != format {
		return fmt.Errorf("transcribe: bad artifact kind %q or format %q", kind, format)
	}
	key := "artifacts/" + j.Transcript.ID + "/" + kind + "." + format
	if _, err := j.Blobs.Put(ctx, key, r); err != nil {
		return fmt.Errorf("transcribe: storing %s: %w", kind, err)
	}
	now := time.Now
	if j.Now != nil {
		now = j.Now
	}
	a := Artifact{Kind: kind, Format: format, Key: key, Created: now().UTC()}
	for i := range j.Artifacts {
		if j.Artifacts[i].Kind == kind {
			if j.Artifacts[i].Key != key {
				_ = j.Blobs.Delete(ctx, j.Artifacts[i].Key)
			}
			j.Artifacts[i] = a
			return nil
		}
	}
	j.Artifacts = append(j.Artifacts, a)
	return nil
}

// Artifact returns the recorded artifact of kind, if any.
func (j *Job) Artifact(kind string) (Artifact, bool) {
	for _, a := range j.Artifacts {
		if a.Kind == kind {
			return a, true
		}
	}
	return Artifact{}, false
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
//     with a generic reason, and is logged (but see FallibleStage).
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
