package punctmodel

import (
	"strings"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// EvalFile is the held-out evaluation sample (testdata/heldout.json),
// made by `go run ./internal/cmd/trainpunct -sample`.
type EvalFile struct {
	Sets []EvalSet `json:"sets"`
}

// EvalSet is one held-out recording: the recognizer's words with their
// times and the gold mark after each (from the aligned reference), and the
// reference words with times taken from the recognized words aligned to
// them (interpolated for words the recognizer missed).
type EvalSet struct {
	Name        string     `json:"name"`
	Source      string     `json:"source"`
	RecognizeMs int64      `json:"recognize_ms"` // the recognizer's time for the audio
	Recognized  []EvalWord `json:"recognized"`
	Reference   []EvalWord `json:"reference"`
}

// EvalWord is one word of an EvalSet: spoken form, written form (reference
// words), gold mark, times and speaker.
type EvalWord struct {
	Word    string `json:"w"`
	Form    string `json:"f,omitempty"`
	Mark    Mark   `json:"m"`
	Start   int64  `json:"s"`
	End     int64  `json:"e"`
	Speaker string `json:"spk,omitempty"`
	Begins  bool   `json:"st,omitempty"` // the reference word starts a sentence
}

// NewEvalSet aligns recognized words to the reference tokens (with each
// token's speaker) and makes the set.
func NewEvalSet(name, source string, ref []Token, refSpeakers []string, words []transcribe.Word, took time.Duration) EvalSet {
	s := EvalSet{Name: name, Source: source, RecognizeMs: took.Milliseconds()}
	refWords := make([]string, len(ref))
	refMarks := make([]Mark, len(ref))
	for i, t := range ref {
		refWords[i], refMarks[i] = t.Word, t.Mark
	}
	hyp := make([]string, len(words))
	for i, w := range words {
		hyp[i] = Normalize(w.Text)
	}
	al := align(refWords, hyp)
	gold := transferMarks(refMarks, al)
	for i, w := range words {
		spk := ""
		if w.Speaker != nil {
			spk = *w.Speaker
		}
		s.Recognized = append(s.Recognized, EvalWord{Word: hyp[i], Mark: gold[i], Start: w.Start, End: w.End, Speaker: spk})
	}
	// Reference times: from the aligned recognized word, else between the
	// neighbours.
	at := make([]int, len(ref))
	for i := range at {
		at[i] = -1
	}
	for j, i := range al {
		if i >= 0 && refWords[i] == hyp[j] {
			at[i] = j
		}
	}
	var prevEnd int64
	for i, t := range ref {
		w := EvalWord{Word: t.Word, Form: t.Form, Mark: t.Mark, Speaker: refSpeakers[i], Begins: t.Start}
		if j := at[i]; j >= 0 {
			w.Start, w.End = words[j].Start, words[j].End
		} else {
			next := prevEnd
			for k := i + 1; k < len(ref); k++ {
				if at[k] >= 0 {
					next = words[at[k]].Start
					break
				}
			}
			w.Start, w.End = prevEnd, max(prevEnd, next)
		}
		prevEnd = w.End
		s.Reference = append(s.Reference, w)
	}
	return s
}

// Inputs returns the words of ws in the model's form, their gaps and gold
// marks.
func Inputs(ws []EvalWord) (words []string, gaps []Gap, gold []Mark) {
	for i, w := range ws {
		words = append(words, w.Word)
		gold = append(gold, w.Mark)
		g := Gap{}
		if i+1 < len(ws) {
			g.PauseMs = max(0, ws[i+1].Start-w.End)
			g.Turn = ws[i+1].Speaker != w.Speaker
		}
		gaps = append(gaps, g)
	}
	return
}

// Words returns ws as transcribe words (lower case, no marks).
func Words(ws []EvalWord) []transcribe.Word {
	out := make([]transcribe.Word, len(ws))
	for i, w := range ws {
		out[i] = transcribe.Word{Text: strings.ToLower(w.Word), Start: w.Start, End: w.End, Confidence: 1}
		if w.Speaker != "" {
			s := w.Speaker
			out[i].Speaker = &s
		}
	}
	return out
}
