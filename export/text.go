package export

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// closers are characters that may follow sentence-final punctuation inside a
// word ("end." followed by a closing quote or bracket).
const closers = "\"'”’)]}»"

// abbreviations end with a period but do not end a sentence. Lowercase,
// without the final period.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true,
	"sr": true, "jr": true, "st": true, "vs": true, "e.g": true, "i.e": true,
}

// endsSentence reports whether a word ends with sentence-final punctuation
// (. ? ! … and their full-width forms), ignoring closing quotes and brackets
// after it. Common title abbreviations ("Mr.", "Dr.", "e.g.") do not end a
// sentence.
func endsSentence(text string) bool {
	s := strings.TrimRight(strings.TrimSpace(text), closers)
	r, size := utf8.DecodeLastRuneInString(s)
	switch r {
	case '?', '!', '…', '？', '！', '。':
		return true
	case '.':
		return !abbreviations[strings.ToLower(s[:len(s)-size])]
	}
	return false
}

// sameVoice reports whether two words have the same speaker and channel
// (both nil counts as the same).
func sameVoice(a, b *transcribe.Word) bool {
	return eqPtr(a.Speaker, b.Speaker) && eqPtr(a.Channel, b.Channel)
}

func eqPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// cleanText makes a word's text safe for one caption line: every run of
// whitespace (newlines included, which would end a cue) becomes one space,
// the ends are trimmed, and "-->" (the cue timing arrow) becomes "->": a
// run of dashes before '>' becomes one dash, so no arrow is left. Nothing
// is HTML-escaped. Linear in the length of s (replacing "-->" until none
// is left took time quadratic in the run of dashes: a second for a
// 40,000-character word).
func cleanText(s string) string {
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		s = strings.Join(strings.Fields(s), " ")
	}
	if !strings.Contains(s, "-->") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] != '-' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '-' {
			j++
		}
		if j-i >= 2 && j < len(s) && s[j] == '>' {
			b.WriteByte('-')
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// joinText joins word texts with single spaces, skipping words whose text
// is empty or blank.
func joinText(ws []transcribe.Word) string {
	var b strings.Builder
	for _, w := range ws {
		s := strings.TrimSpace(w.Text)
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// meanConfidence is the mean word confidence, 0 for no words.
func meanConfidence(ws []transcribe.Word) float64 {
	if len(ws) == 0 {
		return 0
	}
	sum := 0.0
	for _, w := range ws {
		sum += w.Confidence
	}
	return sum / float64(len(ws))
}
