package sentiment

import (
	"strings"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// plainThreshold is plain VADER's documented threshold on the compound
// score (±0.05), used for sentences that are written text.
const plainThreshold = 0.05

// written reports whether a sentence carries a mark of written
// social-media text that no recognizer or formatter produces: an
// emoticon of VADER's lexicon (":)", ":D", ";-)", "<3"), an @mention, a
// #hashtag or a link. Such a sentence is not speech, so the speech rules
// (fillers dropped, the neutral band of speech) do not apply to it and it
// is read as plain VADER reads it. "!" and capitals are not marks: a
// recognizer may write "!", and a formatter writes acronyms.
func written(toks []nlp.Token) bool {
	for _, t := range toks {
		if t.Redacted {
			continue
		}
		raw := strings.ToLower(t.Pre + t.Text + t.Post)
		switch {
		case strings.HasPrefix(raw, "@") && len(raw) > 1,
			strings.HasPrefix(raw, "#") && len(raw) > 1 && !isDigits(raw[1:]),
			strings.HasPrefix(raw, "http://"), strings.HasPrefix(raw, "https://"), strings.HasPrefix(raw, "www."):
			return true
		}
		if emoticon(t) {
			return true
		}
	}
	return false
}

// emoticon reports whether a token is one of VADER's emoticons: its
// whole text, punctuation included, is in the published lexicon and has
// at most two letters or digits (":D", "<3", ":-(", but not "well.").
func emoticon(t nlp.Token) bool {
	raw := t.Pre + t.Text + t.Post
	if raw == t.Text || len(t.Text) > 2 || !strings.ContainsAny(raw, ":;=<>()") {
		return false
	}
	_, ok := plainVader().Lexicon[strings.ToLower(raw)]
	return ok
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// rawText is the sentence as written: its words joined by spaces,
// redacted ones left out.
func rawText(toks []nlp.Token) string {
	ws := make([]string, 0, len(toks))
	for _, t := range toks {
		if !t.Redacted {
			ws = append(ws, t.Pre+t.Text+t.Post)
		}
	}
	return strings.Join(ws, " ")
}
