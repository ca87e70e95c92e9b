package keyphrases

import (
	"context"
	"math"

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
	if s.Options.Chooser != nil && len(res) > 0 {
		if res, err = s.choose(ctx, job.Transcript, res); err != nil {
			return err
		}
	}
	job.Transcript.AutoHighlightsResult = &transcribe.AutoHighlightsResult{Status: "success", Results: res}
	return ctx.Err()
}

// Unavailable sets the API's "unavailable" form.
func (Stage) Unavailable(t *transcribe.Transcript) {
	t.AutoHighlightsResult = &transcribe.AutoHighlightsResult{Status: "unavailable", Results: []transcribe.AutoHighlight{}}
}

// chooseTask is what the Chooser is asked for.
const chooseTask = "the key phrases of this transcript: the phrases that say what it is about"

// choose asks the Chooser to pick the key phrases among three times as
// many of Extract's best, and returns them in its order with ranks from
// 1 down by position (each keeps its count and times); res (Extract's
// own result) on any error of the Chooser, an empty choice, or when
// ctx is done (then with its error).
func (s Stage) choose(ctx context.Context, t *transcribe.Transcript, res []transcribe.AutoHighlight) ([]transcribe.AutoHighlight, error) {
	o := s.Options.withDefaults()
	pool := res
	if len(res) == o.MaxResults {
		wide := o
		wide.MaxResults, wide.Chooser = 3*o.MaxResults, nil
		p, err := Extract(t.Words, wide)
		if err != nil {
			return res, nil
		}
		pool = p
	}
	texts := make([]string, len(pool))
	for i, h := range pool {
		texts[i] = h.Text
	}
	text := ""
	if t.Text != nil {
		text = *t.Text
	}
	chosen, err := o.Chooser.Choose(ctx, chooseTask, text, texts, o.MaxResults)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil || len(chosen) == 0 {
		return res, nil
	}
	byText := make(map[string]transcribe.AutoHighlight, len(pool))
	for _, h := range pool {
		byText[h.Text] = h
	}
	out := make([]transcribe.AutoHighlight, 0, len(chosen))
	for _, c := range chosen {
		h, ok := byText[c]
		if !ok {
			continue // not one of the options: the Chooser broke its contract
		}
		delete(byText, c)
		out = append(out, h)
	}
	if len(out) == 0 {
		return res, nil
	}
	for i := range out {
		out[i].Rank = math.Max(0.01, math.Round(float64(len(out)-i)/float64(len(out))*100)/100)
	}
	return out, nil
}
