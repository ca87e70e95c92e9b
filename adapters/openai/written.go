package openai

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// sentencePunct ends a sentence or a clause at a word's end.
const sentencePunct = ".?!,;:…"

// writtenForm reports what of the written form an engine's words carry:
// punctuation (a word with letters or digits ending in . ? ! , ; : …) and
// casing (an upper-case letter anywhere). An engine that answers
// lowercase words without punctuation has neither.
func writtenForm(raw []rawWord) (punct, cased bool) {
	for _, w := range raw {
		t := strings.TrimSpace(w.text)
		if !cased && strings.IndexFunc(t, unicode.IsUpper) >= 0 {
			cased = true
		}
		if !punct && endsClause(t) {
			punct = true
		}
		if punct && cased {
			break
		}
	}
	return punct, cased
}

// endsClause reports whether t is a word (it holds a letter or digit)
// followed by sentence or clause punctuation, possibly inside a closing
// quote or bracket ("dog.", "right?\"", "(yes).").
func endsClause(t string) bool {
	t = strings.TrimRightFunc(t, func(r rune) bool { return strings.ContainsRune("\"')]}”’»", r) })
	r, _ := utf8.DecodeLastRuneInString(t)
	if !strings.ContainsRune(sentencePunct, r) {
		return false
	}
	return strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// wordsFor turns the engine's words into the recognition's words, keeping
// the engine's text when it is written (see doc.go, "Engine text"):
//
//   - an answer without punctuation and casing is the spoken form already
//     and is normalized for the formatting stages (normalizeWords);
//   - a written answer with formatText keeps its text as written — casing,
//     digits, symbols, e-mail addresses — minus non-speech annotations,
//     and its punctuation when punctuate is set (otherwise punctuation is
//     trimmed from each word's edges);
//   - a written answer without formatText is brought to the spoken form
//     (lowercase, numbers as words), keeping the engine's sentence and
//     clause punctuation when punctuate is set.
//
// The second result says what of the written form the words carry.
func wordsFor(raw []rawWord, english, punctuate, formatText bool) ([]transcribe.Word, transcribe.Written) {
	punct, cased := writtenForm(raw)
	if !punct && !cased {
		return normalizeWords(raw, english, false), transcribe.Written{}
	}
	if formatText {
		return keepWords(raw, punctuate), transcribe.Written{Punctuation: punctuate && punct, Casing: cased, Numbers: true}
	}
	return normalizeWords(raw, english, punctuate), transcribe.Written{Punctuation: punctuate && punct}
}

// keepWords keeps the engine's words as written, dropping non-speech
// annotations and music symbols. A word of punctuation alone (" -",
// " ...") joins the word before it; without punctuate, punctuation is
// trimmed from both edges of every word (symbols that are spoken, such as
// "$" and "%", stay) and words left empty are dropped.
func keepWords(raw []rawWord, punctuate bool) []transcribe.Word {
	out := make([]transcribe.Word, 0, len(raw))
	closer := rune(0)
	for _, w := range raw {
		t := strings.TrimSpace(w.text)
		if closer != 0 {
			if strings.ContainsRune(t, closer) {
				closer = 0
			}
			continue
		}
		if c := annotationCloser(t); c != 0 {
			if !strings.ContainsRune(t[1:], c) {
				closer = c
			}
			continue
		}
		if isMusic(t) || t == "" {
			continue
		}
		if !punctuate {
			t = trimEdges(t)
			if t == "" {
				continue
			}
		} else if strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
			if n := len(out); n > 0 && !strings.ContainsAny(t, keepAtEdge) {
				out[n-1].Text += t
				out[n-1].End = max(out[n-1].End, w.end)
				continue
			}
		}
		out = append(out, transcribe.Word{Text: t, Start: w.start, End: w.end, Confidence: w.conf})
	}
	return out
}

// trailingPunct returns the sentence or clause punctuation at the end of
// t ("dog." -> ".", "right?\"" -> "?\"", "3.50" -> "").
func trailingPunct(t string) string {
	if !endsClause(t) {
		return ""
	}
	i := len(t)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(t[:i])
		if !strings.ContainsRune(sentencePunct, r) && !strings.ContainsRune("\"')]}”’»", r) {
			break
		}
		i -= n
	}
	return t[i:]
}

// alignText carries the punctuation and casing of the answer's text onto
// its words when the words have none of their own: the OpenAI API lists
// words without punctuation ("dog") beside a punctuated text ("... lazy
// dog."). Words and text tokens are matched in order by their letters and
// digits, looking a few tokens ahead, so a word the text lacks or a text
// token without a word does not shift the rest. A word with no match keeps
// its text.
func alignText(words []*word, text string) {
	for _, w := range words {
		if endsClause(strings.TrimSpace(w.text)) {
			return // the words are punctuated themselves
		}
	}
	toks := strings.Fields(text)
	if len(toks) == 0 {
		return
	}
	keys := make([]string, len(toks))
	for i, t := range toks {
		keys[i] = alnumKey(t)
	}
	const lookahead = 8
	at := 0
	for _, w := range words {
		k := alnumKey(w.text)
		if k == "" {
			continue
		}
		for j := at; j < len(toks) && j < at+lookahead; j++ {
			if keys[j] == k {
				lead := w.text[:len(w.text)-len(strings.TrimLeftFunc(w.text, unicode.IsSpace))]
				w.text = lead + toks[j]
				at = j + 1
				break
			}
		}
	}
}

// alnumKey is the lower-case letters and digits of s.
func alnumKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
