package textfmt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// Punctuator is the punctuate stage. The recognizer gives no punctuation,
// so it is placed by the learned model of package punctmodel (the
// default) or, with PauseOnly, by the pause rules below alone.
//
// The model places commas, sentence ends and question marks from the words
// around each gap, the pause there (less the channel's usual gap between
// words, see pauseFloor) and changes of speaker or channel; a pause of at
// least SentencePause and a change of speaker or channel always end a
// sentence; the model's question classifier then makes each sentence end
// "?" or "." (with a model that has none, a sentence the question rules
// below read as a question ends with "?"). It never puts a mark inside a number, a date, an
// address, a name, spelled letters or a spoken e-mail address (holdGaps),
// which PII redaction and entity detection read whole afterwards. With
// format_text on, Apply also gives names, places and acronyms the model's
// capitals ("london" -> "London"), unless the engine already cased its
// words.
//
// With PauseOnly (the baseline the model is measured against) the marks
// are placed from the pauses between words and from word cues:
//
//   - A pause of at least SentencePause, a change of speaker or channel, or
//     the last word ends a sentence. A question ends with "?", any other
//     sentence with ".". A sentence is a question when its first word
//     (after fillers and "so", "and", "but", "well", "okay", "oh") is a
//     question word not followed by a subject pronoun ("what time is it",
//     but not "when I was young"), or an auxiliary verb followed by a
//     subject ("is it", "can you", "did the train"; "do" and "have" only
//     with a pronoun, so "do it now" and "have a nice day" are not), or
//     when it ends with a tag ("isn't it", "don't you").
//   - A sentence longer than MaxSentenceWords is also ended at its longest
//     pause of at least CommaPause, so long monologues without breaths
//     still get sentences.
//   - A pause of at least CommaPause inside a sentence gives a comma, as do
//     the joins ", but" and ", so <subject>" and an introductory word at the
//     start of a sentence ("well", "however", "yes", "no", "okay", ...)
//     when more words follow.
//
// Marks attach to the word text ("dollars." or "$25."). Words that already
// end with punctuation (text from another engine, or a custom stage) keep
// theirs. The zero value is ready to use and safe for concurrent use.
type Punctuator struct {
	// SentencePause ends a sentence. Default: 600 ms.
	SentencePause time.Duration
	// CommaPause gives a comma. Default: 250 ms. It must be below
	// SentencePause.
	CommaPause time.Duration
	// MaxSentenceWords splits longer sentences at their longest pause.
	// Default: 40. Negative: never split.
	MaxSentenceWords int
	// PauseOnly places marks with the pause rules alone (the fields above)
	// instead of the learned model of package punctmodel. Default false:
	// the model.
	PauseOnly bool
	// Model is the learned model. Default nil: punctmodel.Default(), the
	// committed one.
	Model *punctmodel.Model
}

// ErrConfig is wrapped by the errors of stage configurations that do not
// validate.
var ErrConfig = errors.New("textfmt: invalid configuration")

func (p Punctuator) withDefaults() Punctuator {
	if p.SentencePause == 0 {
		p.SentencePause = 600 * time.Millisecond
	}
	if p.CommaPause == 0 {
		p.CommaPause = 250 * time.Millisecond
	}
	if p.MaxSentenceWords == 0 {
		p.MaxSentenceWords = 40
	}
	return p
}

// Validate reports a configuration error naming the bad field.
func (p Punctuator) Validate() error {
	d := p.withDefaults()
	switch {
	case d.SentencePause < 0:
		return fmt.Errorf("%w: Punctuator.SentencePause must not be negative", ErrConfig)
	case d.CommaPause < 0:
		return fmt.Errorf("%w: Punctuator.CommaPause must not be negative", ErrConfig)
	case d.CommaPause >= d.SentencePause:
		return fmt.Errorf("%w: Punctuator.CommaPause (%v) must be below SentencePause (%v)", ErrConfig, d.CommaPause, d.SentencePause)
	}
	return nil
}

// model is Model, or the committed model (nil if it cannot be read).
func (p Punctuator) model() *punctmodel.Model {
	if p.Model != nil {
		return p.Model
	}
	m, _ := punctmodel.Default()
	return m
}

// Name returns "punctuate".
func (Punctuator) Name() string { return "punctuate" }

// Enabled reports whether punctuate is on (the default).
func (Punctuator) Enabled(p *transcribe.TranscriptParams) bool {
	return p == nil || p.Punctuate == nil || *p.Punctuate
}

// Apply punctuates job.Transcript.Words in place.
func (p Punctuator) Apply(ctx context.Context, job *transcribe.Job) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if job == nil || job.Transcript == nil {
		return nil
	}
	p.Punctuate(job.Transcript.Words)
	if m := p.model(); !p.PauseOnly && m != nil && formatText(&job.Transcript.TranscriptParams) && !job.Written.Casing {
		copy(job.Transcript.Words, perChannel(job.Transcript.Words, func(ws []transcribe.Word) []transcribe.Word { return trueCase(m, ws) }))
	}
	return ctx.Err()
}

var (
	// whWords start a question unless a subject pronoun follows ("when I
	// was young" is a clause, "when is it" a question).
	whWords = set("what why how when where who whom whose which what's how's where's who's")
	// auxStarts start a question when a subject follows ("is it", "can
	// you", "did the train leave"); "had he known" and "do it now" are not
	// questions, so "had" is absent and "do"/"have"/"has" need a pronoun.
	auxStarts = set("is are am was were does did can could would will should shall may might " +
		"isn't aren't wasn't weren't doesn't didn't can't couldn't wouldn't won't shouldn't")
	auxPronounOnly = set("do don't have has haven't hasn't")
	pronouns       = set("i you we they he she it there")
	determiners    = set("the a an this that these those my your our their his her its anyone anybody " +
		"someone somebody everyone everybody anything something everything any all")
	// tagAux + pronoun at the end of a sentence is a tag question ("it is
	// cold isn't it").
	tagAux = set("isn't aren't wasn't weren't don't doesn't didn't won't can't haven't hasn't wouldn't couldn't shouldn't")
	// leadIns are skipped when looking for a question word ("so what
	// happened", "and how").
	leadIns = set("so and but well okay ok oh then now")
	// introWords take a comma at the start of a sentence.
	introWords = set("well however yes yeah no okay ok actually anyway anyways oh hi hello hey " +
		"basically honestly unfortunately fortunately meanwhile finally firstly secondly " +
		"besides instead otherwise alright")
	// Words after which "yes"/"no" are not introductory ("no one", "no way").
	notAfterNo = set("one more longer problem way matter doubt idea need thanks thank less further")
	// subjects after "so" that make it a clause join ("..., so we left").
	soSubjects = set("i we you he she they it that this there the my our")
)

// Punctuate adds punctuation to ws in place, each channel on its own.
func (p Punctuator) Punctuate(ws []transcribe.Word) {
	copy(ws, perChannel(ws, p.punctuate))
}

func (p Punctuator) punctuate(ws []transcribe.Word) []transcribe.Word {
	d := p.withDefaults()
	if len(ws) == 0 {
		return ws
	}
	if !p.PauseOnly {
		if m := p.model(); m != nil {
			return modelPunctuate(m, ws, d.SentencePause)
		}
	}
	t := norms(ws)
	gap := func(i int) time.Duration { // pause after word i
		if i+1 >= len(ws) {
			return 0
		}
		return time.Duration(ws[i+1].Start-ws[i].End) * time.Millisecond
	}
	// Sentence ends.
	end := make([]bool, len(ws))
	for i := range ws {
		switch {
		case i == len(ws)-1, gap(i) >= d.SentencePause, !sameSide(ws[i], ws[i+1]):
			end[i] = true
		case endsSentence(ws[i].Text):
			end[i] = true
		}
	}
	if d.MaxSentenceWords > 0 {
		start := 0
		for i := range ws {
			if !end[i] {
				continue
			}
			splitLong(ws, end, start, i, d, gap)
			start = i + 1
		}
	}
	start := 0
	for i := range ws {
		if !end[i] {
			continue
		}
		p.sentence(ws, t, start, i+1, d, gap)
		start = i + 1
	}
	return ws
}

// splitLong ends sentences inside [from, to] at their longest comma pause
// until no piece is longer than MaxSentenceWords.
func splitLong(ws []transcribe.Word, end []bool, from, to int, d Punctuator, gap func(int) time.Duration) {
	if to-from+1 <= d.MaxSentenceWords {
		return
	}
	best := -1
	for i := from + 2; i < to-1; i++ {
		if gap(i) >= d.CommaPause && (best < 0 || gap(i) > gap(best)) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	end[best] = true
	splitLong(ws, end, from, best, d, gap)
	splitLong(ws, end, best+1, to, d, gap)
}

func (p Punctuator) sentence(ws []transcribe.Word, t []string, from, to int, d Punctuator, gap func(int) time.Duration) {
	// Question?
	first := from
	for first < to-1 && (fillers[t[first]] || leadIns[t[first]]) {
		first++
	}
	q := isQuestion(t[first:to])
	for i := from; i < to-1; i++ {
		if hasPunct(ws[i].Text) || fillers[t[i]] {
			continue
		}
		next := t[i+1]
		comma := gap(i) >= d.CommaPause
		switch {
		case i == from && introWords[t[i]] && !(t[i] == "no" || t[i] == "yes" || t[i] == "yeah") && to-from > 2:
			comma = true
		case i == from && (t[i] == "no" || t[i] == "yes" || t[i] == "yeah") && to-from > 2 && !notAfterNo[next]:
			comma = true
		case i-from >= 2 && next == "but" && i+2 < to:
			comma = true
		case i-from >= 2 && next == "so" && i+2 < to && soSubjects[t[i+2]]:
			comma = true
		}
		// Never split "and"/"or" from what follows, nor end on an article.
		switch t[i] {
		case "the", "a", "an", "and", "or", "of", "to":
			comma = false
		}
		if comma {
			ws[i].Text += ","
		}
	}
	last := &ws[to-1]
	if endsSentence(last.Text) {
		return
	}
	body, _ := trailingPunct(last.Text)
	if body == "" {
		body = last.Text
	}
	if q {
		last.Text = body + "?"
	} else {
		last.Text = body + "."
	}
}

// isQuestion reports whether the words of a sentence (leading fillers and
// lead-ins removed) read as a question.
func isQuestion(t []string) bool {
	if len(t) == 0 {
		return false
	}
	next := ""
	if len(t) > 1 {
		next = t[1]
	}
	switch w := t[0]; {
	case whWords[w]:
		if pronouns[next] || (w == "what" && (next == "a" || next == "an")) {
			break // a clause ("when I was young") or an exclamation ("what a day")
		}
		return true
	case auxStarts[w]:
		if pronouns[next] || determiners[next] || gazetteer[next] != "" {
			return true
		}
	case auxPronounOnly[w]:
		if pronouns[next] && !(w == "do" && (next == "it" || next == "there")) {
			return true
		}
	}
	// Tag questions: "..., isn't it", "..., don't you".
	if n := len(t); n >= 4 && tagAux[t[n-2]] && pronouns[t[n-1]] {
		return true
	}
	return false
}
