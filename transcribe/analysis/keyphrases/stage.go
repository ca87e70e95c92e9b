package keyphrases

import (
	"context"

	"github.com/earshot-dev/earshot/transcribe"
)

// Stages returns the key phrase stage configured by opts, for
// transcribe.Config.Stages (after formatting, redaction and utterances).
func Stages(opts Options) []transcribe.Stage { return []transcribe.Stage{Stage{Options: opts}} }

// Stage fills Transcript.AutoHighlightsResult (auto_highlights) with
// {"status": "success", "results": [...]} from Extract over the
// transcript's words; an empty transcript gets no results. It implements
// transcribe.FallibleStage ({"status": "unavailable", "results": []}
// when it fails). The result stays null while the transcript is queued,
// as the Service shows it. Stage is safe for concurrent use.
type Stage struct {
	Options Options
}

var _ transcribe.FallibleStage = Stage{}

// Name returns "auto_highlights".
func (Stage) Name() string { return "auto_highlights" }

// Enabled reports whether auto_highlights is on.
func (Stage) Enabled(p *transcribe.TranscriptParams) bool {
	return p.AutoHighlights != nil && *p.AutoHighlights
}

// Apply sets job.Transcript.AutoHighlightsResult. It fails on invalid
// options (wrapping ErrOptions) and on a cancelled context.
func (s Stage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	res, err := Extract(job.Transcript.Words, s.Options)
	if err != nil {
		return err
	}
	job.Transcript.AutoHighlightsResult = &transcribe.AutoHighlightsResult{Status: "success", Results: res}
	return ctx.Err()
}

// Unavailable sets the API's "unavailable" form.
func (Stage) Unavailable(t *transcribe.Transcript) {
	t.AutoHighlightsResult = &transcribe.AutoHighlightsResult{Status: "unavailable", Results: []transcribe.AutoHighlight{}}
}
