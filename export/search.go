package export

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/earshot-dev/earshot/transcribe"
)

// MaxSearchPhraseWords is the most words (or numbers) in one search term.
const MaxSearchPhraseWords = 5

// WordSearchResponse is the body of GET /v2/transcript/{id}/word-search.
// TotalCount is the sum of the matches' counts. Matches is never nil.
type WordSearchResponse struct {
	ID         string  `json:"id"`
	TotalCount int64   `json:"total_count"`
	Matches    []Match `json:"matches"`
}

// Match is the result for one search term. Text is the term as given
// (trimmed). Timestamps and Indexes have one entry per occurrence, so their
// lengths equal Count: the [start, end] of the occurrence (first word's
// start, last word's end) and the position in the transcript's words array
// of its first word.
type Match struct {
	Text       string     `json:"text"`
	Count      int64      `json:"count"`
	Timestamps [][2]int64 `json:"timestamps"`
	Indexes    []int64    `json:"indexes"`
}

// ParseSearchTerms parses the form-decoded value of the word-search `words`
// query parameter: it splits on ",", trims each entry and drops empty ones.
// An entry of more than MaxSearchPhraseWords whitespace-separated words, or
// no entry at all, gives a *transcribe.ParamError with Field "words".
func ParseSearchTerms(raw string) ([]string, error) {
	var terms []string
	for _, part := range strings.Split(raw, ",") {
		term := strings.TrimSpace(part)
		if term == "" {
			continue
		}
		if n := len(strings.Fields(term)); n > MaxSearchPhraseWords {
			return nil, &transcribe.ParamError{Field: "words", Reason: fmt.Sprintf(
				"%q has %d words; a search term is a word, number or phrase of at most %d words",
				term, n, MaxSearchPhraseWords)}
		}
		terms = append(terms, term)
	}
	if len(terms) == 0 {
		return nil, &transcribe.ParamError{Field: "words",
			Reason: "at least one word to search for is required (a comma-separated list)"}
	}
	return terms, nil
}

// normalize returns the comparison key of one word for search: lowercase,
// with punctuation and symbols removed. Kept are letters, digits and marks;
// an apostrophe (' ’ ʼ, written ') between two letters or digits
// ("don't", "rock'n'roll"); and a period between two digits ("3.5"). So
// "Hello," → "hello", "$25" → "25", "25%" → "25", "1,000" → "1000",
// "well-known" → "wellknown", "U.S." → "us", "'tis" → "tis". Spaces are
// removed too: normalize is for a single token; Search splits terms on
// whitespace first.
func normalize(token string) string {
	rs := []rune(strings.ToLower(token))
	inner := func(i int, keep func(rune) bool) bool {
		return i > 0 && i < len(rs)-1 && keep(rs[i-1]) && keep(rs[i+1])
	}
	var b strings.Builder
	b.Grow(len(token))
	for i, r := range rs {
		switch {
		case isWordRune(r):
			b.WriteRune(r)
		case r == '\'' || r == '’' || r == 'ʼ':
			if inner(i, isWordRune) {
				b.WriteByte('\'')
			}
		case r == '.':
			if inner(i, unicode.IsDigit) {
				b.WriteByte('.')
			}
		}
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// Search finds each term in the transcript's words. Matching compares
// normalize keys, so it ignores case and punctuation: "hello" finds "Hello,"
// and "$25" finds "25". A term of several words matches that many
// consecutive words; words that normalise to nothing (a lone "-" or "&") are
// skipped, on both sides. Occurrences are counted left to right without
// overlap ("la la" occurs once in "la la la").
//
// Terms that occur nowhere are left out of Matches, as the API's documented
// example does; so are repeats of a term with the same key. Matches are
// ordered by count, highest first, then by the terms' order. A nil t finds
// nothing.
func Search(t *transcribe.Transcript, terms []string) *WordSearchResponse {
	resp := &WordSearchResponse{Matches: []Match{}}
	if t == nil {
		return resp
	}
	resp.ID = t.ID

	// The searchable token stream: one token per word with a non-empty key,
	// and where each key occurs.
	type token struct {
		key  string
		word int
	}
	toks := make([]token, 0, len(t.Words))
	where := make(map[string][]int)
	for i, w := range t.Words {
		if k := normalize(w.Text); k != "" {
			where[k] = append(where[k], len(toks))
			toks = append(toks, token{k, i})
		}
	}

	seen := make(map[string]bool)
	for _, term := range terms {
		text := strings.TrimSpace(term)
		var keys []string
		for _, f := range strings.Fields(text) {
			if k := normalize(f); k != "" {
				keys = append(keys, k)
			}
		}
		id := strings.Join(keys, " ")
		if len(keys) == 0 || seen[id] {
			continue
		}
		seen[id] = true
		m := Match{Text: text, Timestamps: [][2]int64{}, Indexes: []int64{}}
		next := 0 // first token a new occurrence may start at (no overlap)
	occurrences:
		for _, p := range where[keys[0]] {
			if p < next || p+len(keys) > len(toks) {
				continue
			}
			for j := 1; j < len(keys); j++ {
				if toks[p+j].key != keys[j] {
					continue occurrences
				}
			}
			first, last := toks[p].word, toks[p+len(keys)-1].word
			m.Timestamps = append(m.Timestamps, [2]int64{t.Words[first].Start, t.Words[last].End})
			m.Indexes = append(m.Indexes, int64(first))
			m.Count++
			next = p + len(keys)
		}
		if m.Count > 0 {
			resp.Matches = append(resp.Matches, m)
			resp.TotalCount += m.Count
		}
	}
	sort.SliceStable(resp.Matches, func(i, j int) bool {
		return resp.Matches[i].Count > resp.Matches[j].Count
	})
	return resp
}
