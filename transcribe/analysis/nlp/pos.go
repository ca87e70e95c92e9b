package nlp

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jdkato/prose/v3/tag"
)

// tagger is prose's averaged-perceptron tagger, loaded once (about 1 ms)
// and safe for concurrent use.
var tagger = sync.OnceValues(func() (*tag.Tagger, error) { return tag.New() })

// Tag sets the Penn Treebank part-of-speech tag of every token with Text
// (punctuation-only tokens get the tag of their punctuation, redacted ones
// "NNP", as a name would). It tags one sentence at a time, cutting at
// sentence-final punctuation, because the tagger reads the two words on
// each side. Punctuation is given to the tagger as separate tokens and
// contractions are split as the Treebank does ("don't" -> "do" "n't"), the
// form the model was trained on; a word split in two gets the tag of its
// first part ("company's" -> NN, "don't" -> VBP).
//
// The model expects truecased text: after the textfmt casing stage,
// sentence starts and names are capitalized and other words are lower
// case, which is what it needs. It fails only when the model cannot be
// loaded.
func Tag(toks []Token) error {
	tg, err := tagger()
	if err != nil {
		return fmt.Errorf("nlp: loading the part-of-speech model: %w", err)
	}
	var (
		parts []tag.Token
		owner []int // token index of each part; -1 for punctuation
	)
	flush := func() {
		if len(parts) == 0 {
			return
		}
		tg.TagTokens(parts)
		for i, p := range parts {
			if o := owner[i]; o >= 0 && toks[o].Tag == "" {
				toks[o].Tag = p.Tag
			}
		}
		parts, owner = parts[:0], owner[:0]
	}
	for i := range toks {
		t := &toks[i]
		t.Tag = ""
		for _, p := range splitPunct(t.Pre) {
			parts = append(parts, tag.Token{Text: p})
			owner = append(owner, -1)
		}
		switch {
		case t.Redacted:
			t.Tag = "NNP"
			parts = append(parts, tag.Token{Text: "Name"})
			owner = append(owner, -1)
		case t.Text == "":
			t.Tag = punctTag(t.Post)
		default:
			for _, p := range splitContraction(t.Text) {
				parts = append(parts, tag.Token{Text: p})
				owner = append(owner, i)
			}
		}
		for _, p := range splitPunct(t.Post) {
			parts = append(parts, tag.Token{Text: p})
			owner = append(owner, -1)
		}
		if t.EndsSentence() {
			flush()
		}
	}
	flush()
	return nil
}

// splitPunct splits a run of punctuation into the tokens a Treebank
// tokenizer makes: each character alone, except "..." kept together.
func splitPunct(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for s != "" {
		if strings.HasPrefix(s, "...") {
			out = append(out, "...")
			s = s[3:]
			continue
		}
		_, n := utf8.DecodeRuneInString(s)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// splitContraction splits clitics off a word as the Penn Treebank does.
func splitContraction(w string) []string {
	w = strings.ReplaceAll(w, "’", "'")
	lw := strings.ToLower(w)
	switch lw {
	case "cannot":
		return []string{w[:3], w[3:]}
	case "can't", "won't":
		return []string{w[:2], w[2:]}
	}
	if strings.HasSuffix(lw, "n't") && len(w) > 3 {
		return []string{w[:len(w)-3], w[len(w)-3:]}
	}
	for _, suf := range []string{"'s", "'re", "'ve", "'ll", "'m", "'d"} {
		if strings.HasSuffix(lw, suf) && len(lw) > len(suf) {
			n := len(w) - len(suf)
			return []string{w[:n], w[n:]}
		}
	}
	return []string{w}
}

func punctTag(post string) string {
	switch {
	case strings.ContainsAny(post, ".?!"):
		return "."
	case strings.Contains(post, ","):
		return ","
	default:
		return ":"
	}
}

// IsNounTag reports whether a Penn Treebank tag is a noun (NN, NNS, NNP,
// NNPS).
func IsNounTag(tag string) bool { return strings.HasPrefix(tag, "NN") }

// IsAdjectiveTag reports whether a tag is an adjective (JJ, JJR, JJS).
func IsAdjectiveTag(tag string) bool { return strings.HasPrefix(tag, "JJ") }
