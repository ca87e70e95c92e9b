package textfmt

import (
	"context"

	"github.com/earshot-dev/earshot/transcribe"
)

// Stages returns the text formatting stages in the order they must run:
//
//	ITN (format_text) -> Punctuator (punctuate) -> Disfluencies (unless
//	disfluencies) -> Casing (format_text) -> CustomSpelling -> ProfanityFilter
//
// Each is enabled by its own parameter, so the whole list can be given to
// transcribe.Config.Stages (before stages that read the final words, such
// as redaction and the analyses) and the Service picks what applies.
func Stages() []transcribe.Stage {
	return []transcribe.Stage{ITN{}, Punctuator{}, Disfluencies{}, Casing{}, CustomSpelling{}, ProfanityFilter{}}
}

// Format runs the enabled stages of Stages on words for params p (which
// must be normalised; nil means the defaults) and returns the result. It is
// the same pipeline without a Service, for tests, realtime finals and other
// callers that have words but no job. ws is not modified.
func Format(ws []transcribe.Word, p *transcribe.TranscriptParams) []transcribe.Word {
	if p == nil {
		p = &transcribe.TranscriptParams{}
		p.Normalize()
	}
	t := &transcribe.Transcript{TranscriptParams: *p, Words: append([]transcribe.Word(nil), ws...)}
	job := &transcribe.Job{Transcript: t}
	for _, s := range Stages() {
		if s.Enabled(p) {
			// The stages fail only on a cancelled context, never here.
			_ = s.Apply(context.Background(), job)
		}
	}
	return t.Words
}
