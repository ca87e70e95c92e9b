package nlp

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// Token is one word of a transcript as the analyses read it: the word's
// text with its surrounding punctuation split off, a normalized form for
// matching, and the word's index and times.
//
// Tokens(ws)[i] always describes ws[i], so a token's index is its word's
// index.
type Token struct {
	// Text is the word without leading and trailing punctuation, as
	// written ("Don't", "$25", "U.S", "e-mail"). A word of punctuation only
	// ("-", "…") has an empty Text.
	Text string
	// Norm is Text in lower case with typographic apostrophes and dashes
	// made plain ("don't", "$25", "u.s", "e-mail"): the form to look up in
	// lexicons.
	Norm string
	// Pre and Post are the punctuation split off the front and the back
	// ("(", "\"", ",", ".", "?!").
	Pre, Post string
	// Start and End are the word's times in milliseconds.
	Start, End int64
	// Redacted is set for a word that PII redaction replaced ("#####",
	// "[PERSON_NAME]"); such a token's Text is kept but carries no meaning.
	Redacted bool
	// Tag is the Penn Treebank part-of-speech tag set by Tag ("NN", "JJ",
	// "VBD"...); empty before tagging.
	Tag string
}

// Tokens returns one Token per word, in order. It never fails; words with
// no letters or digits give tokens with an empty Text.
func Tokens(ws []transcribe.Word) []Token {
	out := make([]Token, len(ws))
	for i, w := range ws {
		out[i] = tokenOf(w)
	}
	return out
}

func tokenOf(w transcribe.Word) Token {
	t := Token{Start: w.Start, End: w.End}
	text := strings.TrimSpace(w.Text)
	if IsRedacted(text) {
		t.Redacted = true
	}
	// Leading punctuation: everything before the first letter, digit or
	// symbol that belongs to a word ($ £ € # @ and the like).
	lo := 0
	for lo < len(text) {
		r, n := utf8.DecodeRuneInString(text[lo:])
		if isWordStart(r) {
			break
		}
		lo += n
	}
	hi := len(text)
	for hi > lo {
		r, n := utf8.DecodeLastRuneInString(text[lo:hi])
		if isWordEnd(r) {
			break
		}
		hi -= n
	}
	t.Pre, t.Text, t.Post = text[:lo], text[lo:hi], text[hi:]
	if i, j := strings.IndexByte(text, '['), strings.LastIndexByte(text, ']'); t.Redacted && i >= 0 && j > i {
		// "[PERSON_NAME]." keeps its brackets in its text.
		t.Pre, t.Text, t.Post = text[:i], text[i:j+1], text[j+1:]
	}
	t.Norm = normalize(t.Text)
	return t
}

// isWordStart reports whether r may begin a word: letters, digits, and the
// symbols that start written amounts, tags and handles.
func isWordStart(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("$£€¥#@+", r)
}

// isWordEnd reports whether r may end a word: letters, digits, and the
// symbols that end amounts ("50%", "20°") and redactions ("#####").
func isWordEnd(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("%°#", r)
}

// normalize lower-cases s and makes typographic apostrophes and dashes
// plain.
func normalize(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ToLower(s)
	if strings.ContainsAny(s, "’‘ʼ–—") {
		s = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'", "–", "-", "—", "-").Replace(s)
	}
	return s
}

// IsRedacted reports whether a word's text is a PII redaction: a run of
// '#' (redact_pii_sub "hash", punctuation around it allowed) or an entity
// name in brackets such as "[PERSON_NAME]" (redact_pii_sub "entity_name").
func IsRedacted(text string) bool {
	text = strings.TrimFunc(text, func(r rune) bool { return unicode.IsPunct(r) && r != '#' && r != '[' && r != ']' })
	if text == "" {
		return false
	}
	if strings.Trim(text, "#") == "" {
		return true
	}
	if len(text) > 2 && text[0] == '[' && text[len(text)-1] == ']' {
		for _, r := range text[1 : len(text)-1] {
			if !(r >= 'A' && r <= 'Z' || r == '_') {
				return false
			}
		}
		return true
	}
	return false
}

// IsWord reports whether the token holds a word with at least one letter
// and is not redacted.
func (t Token) IsWord() bool {
	if t.Redacted {
		return false
	}
	for _, r := range t.Text {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// EndsSentence reports whether the word carries sentence-final punctuation
// (". ? ! …").
func (t Token) EndsSentence() bool { return strings.ContainsAny(t.Post, ".?!…") }

// EndsClause reports whether the word carries punctuation that ends a
// clause or a sentence (". ? ! … , ; : —" and closing brackets or quotes),
// where phrases must not run across.
func (t Token) EndsClause() bool {
	return t.Post != "" && strings.ContainsAny(t.Post, ".?!…,;:—–-)\"”]")
}
