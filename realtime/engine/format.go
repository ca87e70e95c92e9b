package engine

import (
	"math"
	"strings"
	"unicode"

	"github.com/earshot-dev/earshot/transcribe"
)

// DefaultFormat is the default Config.Format: it capitalizes the first
// word and ends the last with a period (unless it already ends with
// sentence punctuation). It does not modify its argument.
func DefaultFormat(words []transcribe.Word) []transcribe.Word {
	if len(words) == 0 {
		return words
	}
	out := append([]transcribe.Word(nil), words...)
	first := []rune(out[0].Text)
	if len(first) > 0 {
		first[0] = unicode.ToUpper(first[0])
		out[0].Text = string(first)
	}
	last := &out[len(out)-1]
	if n := len(last.Text); n > 0 {
		switch last.Text[n-1] {
		case '.', '?', '!':
		default:
			last.Text += "."
		}
	}
	return out
}

// cleanWords drops empty words and recognizer fillers in angle or square
// brackets (<sil>, [noise]) that some engines report.
func cleanWords(in []transcribe.Word) []transcribe.Word {
	out := in[:0:0]
	for _, w := range in {
		t := strings.TrimSpace(w.Text)
		if t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[") {
			continue
		}
		w.Text = t
		out = append(out, w)
	}
	return out
}

// Word is a word of an Event. Times are milliseconds of audio since the
// session started (continuing across Options.Offset).
type Word struct {
	Start, End int64
	// Confidence is the recognizer's, clamped to 0..1 (NaN is 0).
	Confidence float64
	Text       string
	// Final: the word will not change. In a Partial, the words the
	// recognizer has committed (see Event); every word of a Final is final.
	Final bool
}

func toWords(ws []transcribe.Word, final bool) []Word {
	if len(ws) == 0 {
		return nil
	}
	out := make([]Word, len(ws))
	for i, w := range ws {
		c := w.Confidence
		if math.IsNaN(c) || c < 0 {
			c = 0
		}
		if c > 1 {
			c = 1
		}
		out[i] = Word{Start: w.Start, End: w.End, Confidence: c, Text: w.Text, Final: final}
	}
	return out
}

// transcribeWords returns ws as transcribe.Words (for a TurnEndFunc, or
// for Config.Format).
func transcribeWords(ws []Word) []transcribe.Word {
	out := make([]transcribe.Word, len(ws))
	for i, w := range ws {
		out[i] = transcribe.Word{Text: w.Text, Start: w.Start, End: w.End, Confidence: w.Confidence}
	}
	return out
}

// Text joins the words' Text with spaces.
func Text(ws []Word) string {
	t := make([]string, len(ws))
	for i, w := range ws {
		t[i] = w.Text
	}
	return strings.Join(t, " ")
}

// Confidence is the mean Confidence of ws, 0 for none.
func Confidence(ws []Word) float64 {
	if len(ws) == 0 {
		return 0
	}
	var c float64
	for _, w := range ws {
		c += w.Confidence
	}
	return c / float64(len(ws))
}
