// Package pipeline assembles Earshot's default feature pipeline: the
// ordered list of transcribe.Stage values a Service runs after recognition.
//
// Order (each stage enables itself from the request's parameters):
//
//  1. speaker labels on the recognized words (transcribe/diarize
//     SpeakerStage), first, so that formatting ends sentences at speaker
//     turns and never merges words across them;
//  2. text formatting (transcribe/textfmt): inverse text normalisation,
//     punctuation, filler removal, casing, custom spelling, profanity;
//  3. entities and PII redaction (transcribe/pii): entity detection, the
//     redacted audio copy, then redaction of the words themselves, so no
//     later stage, export or stored field sees the unredacted text;
//  4. utterances turn by turn (speaker or channel), built from the final,
//     redacted words (transcribe/diarize UtteranceStage);
//  5. the analyses (transcribe/analysis/...): key phrases, sentiment,
//     content safety, topics, summary and chapters, reading the final,
//     redacted words with their speakers. Each is best effort (a
//     transcribe.FallibleStage): a failure marks its result unavailable and
//     the transcript still completes.
package pipeline

import (
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/keyphrases"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety"
	"github.com/earshot-dev/earshot/transcribe/analysis/sentiment"
	"github.com/earshot-dev/earshot/transcribe/analysis/summary"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics"
	"github.com/earshot-dev/earshot/transcribe/diarize"
	"github.com/earshot-dev/earshot/transcribe/pii"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

// Options configure the default stages. Zero values mean the defaults.
type Options struct {
	// TempDir holds the stages' temporary files (ffmpeg's MP3 of redacted
	// audio). Default os.TempDir().
	TempDir string
	// Diarizer finds speaker turns for speaker_labels. Default: the
	// built-in BIC diarizer (diarize.NewBIC).
	Diarizer diarize.Diarizer
	// Encode writes redacted audio. Default pii.NewEncoder(TempDir).
	Encode pii.Encoder
	// Summaries configures summaries and chapters, e.g. an optional LLM
	// back end (summary.Options.Generator). Default: extractive.
	Summaries summary.Options
	// Text configures the text formatting stages (textfmt.Options), e.g.
	// the learned punctuation model. Default: the pause rules.
	Text textfmt.Options
	// KeyPhrases, Safety and Topics configure those stages, e.g. a
	// language model that picks or confirms their results (the Chooser
	// of each; package llm's Client is one). Default: built-in alone.
	KeyPhrases keyphrases.Options
	Safety     safety.Options
	Topics     topics.Options
}

// Default returns the default stages in order. The slice is new on every
// call; callers may insert their own stages.
func Default(o Options) []transcribe.Stage {
	var s []transcribe.Stage
	s = append(s, &diarize.SpeakerStage{Diarizer: o.Diarizer})
	s = append(s, o.Text.Stages()...)
	s = append(s, pii.Stages(pii.Options{Encode: o.Encode, TempDir: o.TempDir})...)
	s = append(s, diarize.UtteranceStage{})
	s = append(s, keyphrases.Stages(o.KeyPhrases)...)
	s = append(s, sentiment.Stages(sentiment.Options{})...)
	s = append(s, safety.Stages(o.Safety)...)
	s = append(s, topics.Stages(o.Topics)...)
	s = append(s, summary.Stages(o.Summaries)...)
	return s
}
