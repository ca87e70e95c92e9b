package safety

import (
	"strings"
	"unicode"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// The features the two learned models read. The training command
// (internal/cmd/trainsafety) calls the same functions on the same kind of
// tokens, so training and detection see the same features.

// TextTokens returns the tokens of plain text, words split at white
// space.
func TextTokens(text string) []nlp.Token {
	f := strings.Fields(text)
	ws := make([]transcribe.Word, len(f))
	for i, w := range f {
		ws[i] = transcribe.Word{Text: w}
	}
	return nlp.Tokens(ws)
}

// ContextFeatures returns the features of the context model: the stems
// of the words that hold a letter and are not stop words.
func ContextFeatures(toks []nlp.Token) []string {
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.Redacted || !t.IsWord() || nlp.IsStopWord(t.Norm) {
			continue
		}
		if s := nlp.Stem(t.Norm); len(s) > 1 {
			out = append(out, s)
		}
	}
	return out
}

// HateFeatures returns the features of the hate speech model: the words
// (lower case, letters and apostrophes only, letters repeated more than
// twice cut to two: "hateee" is "hatee"), each pair of neighbouring
// words, and the character n-grams of hateGramMin to hateGramMax
// letters of each word marked at its ends ("#<ha", "#ate>"; the whole
// word is left out, it is already a feature), which also match a slur
// misspelt, inflected or run together with another word. Handles
// ("@name"), links, "rt" and HTML entities, which tweets are full of and
// speech never says, are left out; nothing depends on case or
// punctuation, so a transcript reads as written text does.
func HateFeatures(toks []nlp.Token) []string {
	var words []string
	for _, t := range toks {
		if t.Redacted || strings.HasPrefix(t.Pre, "@") || strings.HasPrefix(t.Norm, "@") ||
			strings.HasPrefix(t.Norm, "http") || strings.Contains(t.Norm, "&") {
			continue
		}
		w := hateWord(t.Norm)
		if w == "" || w == "rt" {
			continue
		}
		words = append(words, w)
	}
	out := make([]string, 0, 12*len(words))
	out = append(out, words...)
	for i := 1; i < len(words); i++ {
		out = append(out, words[i-1]+" "+words[i])
	}
	for _, w := range words {
		r := []rune("<" + w + ">")
		for n := hateGramMin; n <= hateGramMax; n++ {
			for i := 0; i+n <= len(r); i++ {
				if n < len(r) {
					out = append(out, "#"+string(r[i:i+n]))
				}
			}
		}
	}
	return out
}

// The lengths of the character n-grams of HateFeatures, counting the
// end marks; chosen by cross-validation on the train and dev parts of
// Davidson et al.'s tweets (internal/cmd/trainsafety).
const (
	hateGramMin = 3
	hateGramMax = 5
)

// hateWord keeps the letters and inner apostrophes of w, with runs of
// one letter cut to two.
func hateWord(w string) string {
	var b strings.Builder
	var last rune
	run := 0
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '\'' {
			continue
		}
		if r == last {
			run++
		} else {
			last, run = r, 1
		}
		if run <= 2 {
			b.WriteRune(r)
		}
	}
	return strings.Trim(b.String(), "'")
}
