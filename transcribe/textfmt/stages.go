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
//
// ITN, Punctuator and Casing are wrapped so that they leave alone what the
// engine already wrote (transcribe.Job.Written): an engine that gave
// punctuation keeps its sentence ends and question marks, one that gave
// casing keeps its names and acronyms, one that wrote digits keeps its
// numbers. See EngineGate.
//
// Punctuation comes from the learned model (DefaultOptions).
func Stages() []transcribe.Stage { return DefaultOptions().Stages() }

// Options configures the formatting stages.
type Options struct {
	// PunctuationModel places punctuation and names' capitals with the
	// learned model of package punctmodel; false keeps the pause rules
	// alone (Punctuator.PauseOnly), the baseline the model is measured
	// against. DefaultOptions, the package's Stages and Format, and the
	// reference server (EARSHOT_PUNCTUATION_MODEL, default true) set it;
	// the zero Options, kept for callers that set fields one by one, does
	// not.
	PunctuationModel bool
}

// DefaultOptions returns the options of the package's Stages and Format:
// the learned punctuation model on.
func DefaultOptions() Options { return Options{PunctuationModel: true} }

// Stages is the package's Stages with these options.
func (o Options) Stages() []transcribe.Stage {
	return []transcribe.Stage{
		EngineGate{ITN{}, func(w transcribe.Written) bool { return w.Numbers }},
		EngineGate{Punctuator{PauseOnly: !o.PunctuationModel}, func(w transcribe.Written) bool { return w.Punctuation }},
		Disfluencies{},
		EngineGate{Casing{}, func(w transcribe.Written) bool { return w.Casing && w.Punctuation }},
		CustomSpelling{}, ProfanityFilter{},
	}
}

// EngineGate runs Stage unless the engine already did its work: Done
// reports, from the job's transcribe.Written, that the engine's words
// carry what the stage would add. It is the rule "keep what the engine
// gives, fill only what it did not do": ITN is skipped for an engine that
// wrote numbers, the Punctuator for one that punctuated, Casing for one
// that cased and punctuated (on an engine that cased its words but gave no
// punctuation, Casing still raises the sentence starts the Punctuator
// placed; it only ever raises letters).
type EngineGate struct {
	Stage transcribe.Stage
	Done  func(transcribe.Written) bool
}

// Name is the wrapped stage's name.
func (g EngineGate) Name() string { return g.Stage.Name() }

// Enabled is the wrapped stage's.
func (g EngineGate) Enabled(p *transcribe.TranscriptParams) bool { return g.Stage.Enabled(p) }

// Apply runs the wrapped stage unless the engine already did its work.
func (g EngineGate) Apply(ctx context.Context, job *transcribe.Job) error {
	if job != nil && g.Done != nil && g.Done(job.Written) {
		return ctx.Err()
	}
	return g.Stage.Apply(ctx, job)
}

// Format runs the enabled stages of Stages on words for params p (which
// must be normalised; nil means the defaults) and returns the result. It is
// the same pipeline without a Service, for tests, realtime finals and other
// callers that have words but no job. ws is not modified.
func Format(ws []transcribe.Word, p *transcribe.TranscriptParams) []transcribe.Word {
	return DefaultOptions().Format(ws, p)
}

// Format is the package's Format with these options.
func (o Options) Format(ws []transcribe.Word, p *transcribe.TranscriptParams) []transcribe.Word {
	if p == nil {
		p = &transcribe.TranscriptParams{}
		p.Normalize()
	}
	t := &transcribe.Transcript{TranscriptParams: *p, Words: append([]transcribe.Word(nil), ws...)}
	job := &transcribe.Job{Transcript: t}
	for _, s := range o.Stages() {
		if s.Enabled(p) {
			// The stages fail only on a cancelled context, never here.
			_ = s.Apply(context.Background(), job)
		}
	}
	return t.Words
}
