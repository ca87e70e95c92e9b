package textfmt

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// norm returns the matching form of a word: lower case, letters, digits and
// inner apostrophes only ("A.M." -> "am", "Dollars," -> "dollars",
// "o'clock" -> "o'clock").
func norm(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
			b.WriteByte('\'')
		}
	}
	return strings.Trim(b.String(), "'")
}

// norms returns norm of every word's text.
func norms(ws []transcribe.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = norm(w.Text)
	}
	return out
}

// trailingPunct splits s into its body and the run of sentence or clause
// punctuation at its end ("dollars." -> "dollars", ".").
func trailingPunct(s string) (body, punct string) {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !strings.ContainsRune(".,?!;:", r) {
			break
		}
		i -= size
	}
	return s[:i], s[i:]
}

// endsSentence reports whether the word text ends with sentence-final
// punctuation.
func endsSentence(s string) bool {
	_, p := trailingPunct(s)
	return strings.ContainsAny(p, ".?!")
}

// hasPunct reports whether the word text already ends with any punctuation.
func hasPunct(s string) bool {
	_, p := trailingPunct(s)
	return p != ""
}

// mergeWords builds one word that replaces ws[from:to]: the start of the
// first, the end of the last (never before the start), the mean confidence,
// and the first word's speaker and channel.
func mergeWords(ws []transcribe.Word, from, to int, text string) transcribe.Word {
	w := ws[from]
	out := transcribe.Word{Text: text, Start: w.Start, End: w.End, Speaker: w.Speaker, Channel: w.Channel}
	conf := 0.0
	for _, x := range ws[from:to] {
		conf += x.Confidence
		if x.End > out.End {
			out.End = x.End
		}
		if x.Start < out.Start {
			out.Start = x.Start
		}
	}
	out.Confidence = conf / float64(to-from)
	return out
}

// sameSide reports whether two words share speaker and channel, so that they
// may be merged into one token.
func sameSide(a, b transcribe.Word) bool {
	return eqPtr(a.Speaker, b.Speaker) && eqPtr(a.Channel, b.Channel)
}

func eqPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// capitalize upper-cases the first letter of s, leaving the rest alone.
// Text that starts with something other than a letter is returned as is.
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || !unicode.IsLetter(r) || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// perChannel applies f to the words of each channel on its own, in their
// order, and merges the results by start time (stable, channels in order
// of first appearance). With dual_channel and multichannel the Service
// interleaves the channels' words by time; a sentence or a number must not
// be cut by the other channel's words. With one channel (or none) it is
// f(ws).
func perChannel(ws []transcribe.Word, f func([]transcribe.Word) []transcribe.Word) []transcribe.Word {
	var order []string
	groups := map[string][]transcribe.Word{}
	for _, w := range ws {
		c := "\x00none"
		if w.Channel != nil {
			c = *w.Channel
		}
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], w)
	}
	if len(order) <= 1 {
		return f(ws)
	}
	out := ws[:0:0]
	for _, c := range order {
		out = append(out, f(groups[c])...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}
