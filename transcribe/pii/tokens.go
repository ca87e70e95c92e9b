package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/pii/ner"
)

// tok is one word prepared for matching.
type tok struct {
	core      string // text without leading and trailing punctuation
	key       string // lower-case core, possessive "'s" removed
	capital   bool   // core starts with an upper-case letter
	sentStart bool   // first word, or the word after sentence-final punctuation
	punct     bool   // the word ends with punctuation (a clause boundary after it)
	side      string // speaker/channel, words of different sides never join
}

// splitPunct splits a word into leading punctuation, core and trailing
// punctuation (ner.SplitPunct): "$25," -> "", "$25", ",".
var splitPunct = ner.SplitPunct

// keyOf is the matching form of a word or gazetteer entry.
func keyOf(s string) string {
	_, core, _ := splitPunct(s)
	k := strings.ToLower(strings.ReplaceAll(core, "’", "'"))
	if strings.HasSuffix(k, "'s") && len(k) > 2 {
		k = k[:len(k)-2]
	}
	return strings.TrimSuffix(k, ".")
}

func sideOf(w transcribe.Word) string {
	s := ""
	if w.Speaker != nil {
		s += *w.Speaker
	}
	s += "|"
	if w.Channel != nil {
		s += *w.Channel
	}
	return s
}

func prepare(ws []transcribe.Word) []tok {
	ts := make([]tok, len(ws))
	for i, w := range ws {
		_, core, trail := splitPunct(w.Text)
		r, _ := utf8.DecodeRuneInString(core)
		ts[i] = tok{
			core:    core,
			key:     keyOf(w.Text),
			capital: unicode.IsUpper(r),
			punct:   strings.ContainsAny(trail, ".,;:!?…"),
			side:    sideOf(w),
		}
		ts[i].sentStart = i == 0 || ts[i-1].side != ts[i].side
		if i > 0 {
			_, _, pt := splitPunct(ws[i-1].Text)
			if strings.ContainsAny(pt, ".?!") {
				ts[i].sentStart = true
			}
		}
	}
	return ts
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// digitsOf returns the digits of s and whether s holds only digits and the
// separators of written numbers (- ( ) + . and spaces).
func digitsOf(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == '-' || c == '(' || c == ')' || c == '+' || c == '.' || c == ' ' || c == '/':
		default:
			return "", false
		}
	}
	return b.String(), b.Len() > 0
}

func isAlpha(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && r != '\'' && r != '-' {
			return false
		}
	}
	return true
}

func hasDigit(s string) bool { return strings.IndexAny(s, "0123456789") >= 0 }

// isCode reports a token that can be part of an identifier: digits, a
// single letter, or letters and digits mixed.
func isCode(s string) bool {
	if s == "" {
		return false
	}
	if len(s) == 1 && unicode.IsLetter(rune(s[0])) {
		return true
	}
	digits := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case unicode.IsLetter(r) || r == '-':
		default:
			return false
		}
	}
	return digits
}

func set(lists ...string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, f := range strings.Fields(l) {
			m[strings.ReplaceAll(strings.TrimPrefix(f, "?"), "_", " ")] = true
		}
	}
	return m
}
