package topics

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Term weights of a category profile.
const (
	weightStrong  = 2.0 // a keyword marked "!" and the category's full name
	weightNormal  = 1.0 // a keyword
	weightWeak    = 0.5 // a keyword marked "~"
	weightNameTok = 0.5 // one word of the category's name
	maxPhrase     = 4   // longest phrase, in words, that is matched
)

// genericNameWords are words of category names that say nothing about the
// topic on their own ("Auto Type", "Education Industry").
var genericNameWords = map[string]bool{
	"type": true, "types": true, "styles": true, "industry": true, "industries": true,
	"services": true, "service": true, "issues": true, "other": true, "general": true,
	"adult": true, "personal": true, "special": true, "interest": true, "variety": true,
	"events": true, "life": true,
}

// posting is one category a term belongs to, with its weight there.
type posting struct {
	node   int
	weight float64
}

// profiles is the term index over the taxonomy: every term (a stemmed word
// or phrase) with the categories whose profile holds it, and how specific
// it is to one tier-1 family.
type profiles struct {
	tx       *taxonomy
	terms    map[string]int // stemmed phrase ("credit card") -> term id
	postings [][]posting    // by term id
	idf      []float64      // by term id: 1/sqrt(number of tier-1 families using the term)
	maxN     int            // longest phrase in words
}

// termWords splits one normalized word or keyword into the stems that are
// matched: hyphens and slashes separate words ("f-150" -> "f" "150"),
// other punctuation at the ends is dropped, and each part is stemmed
// (Snowball English, nlp.Stem).
func termWords(norm string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(norm, func(r rune) bool { return r == '-' || r == '/' || r == ' ' }) {
		part = strings.Trim(part, ".,;:!?\"()[]{}")
		if part == "" {
			continue
		}
		out = append(out, nlp.Stem(part))
	}
	return out
}

var quotes = strings.NewReplacer("’", "'", "‘", "'")

// keywordTerm returns the matched form of a keyword phrase from
// keywords.txt, or "" for a single stop word (which would match
// everywhere).
func keywordTerm(kw string) string {
	var ws []string
	for _, f := range strings.Fields(strings.ToLower(quotes.Replace(kw))) {
		ws = append(ws, termWords(f)...)
	}
	if len(ws) == 0 || len(ws) == 1 && nlp.IsStopWord(ws[0]) {
		return ""
	}
	return strings.Join(ws, " ")
}

// buildProfiles builds the term index. With strict, a category's name
// does not give it the words of an ancestor's name: "software" of Photo
// Editing Software and "olympic" of Summer Olympic Sports are evidence of
// Computer Software and Applications and Olympic Sports, not of each of
// their subcategories, and "Internet of Things", which is "internet" once
// its stop words are gone, is not the word "internet". The family model's
// ranking (Classify) reads the strict index; the keyword ranking
// (KeywordLabels, the baseline) and the family model's training documents
// (ProfileDocuments) the other. A word of an ancestor's name stays in
// the same tier-1 family, since the ancestor keeps it; an everyday word
// left out (buildProfilesWith) may leave its family's terms.
func buildProfiles(tx *taxonomy, strict bool) (*profiles, error) {
	return buildProfilesWith(tx, strict, nil)
}

// buildProfilesWith is buildProfiles; with strict, a single word of a
// category's name for which everyday reports true is left out too.
func buildProfilesWith(tx *taxonomy, strict bool, everyday func(string) bool) (*profiles, error) {
	p := &profiles{tx: tx, terms: map[string]int{}}
	add := func(term string, n int, w float64) {
		if term == "" {
			return
		}
		id, ok := p.terms[term]
		if !ok {
			id = len(p.postings)
			p.terms[term] = id
			p.postings = append(p.postings, nil)
			p.maxN = max(p.maxN, min(strings.Count(term, " ")+1, maxPhrase))
		}
		for i := range p.postings[id] {
			if p.postings[id][i].node == n {
				p.postings[id][i].weight = math.Max(p.postings[id][i].weight, w)
				return
			}
		}
		p.postings[id] = append(p.postings[id], posting{n, w})
	}
	// Terms from the categories' own names.
	names := make([][]string, len(tx.nodes)) // each node's nameWords, once
	for i, nd := range tx.nodes {
		names[i] = nameWords(nd.name)
	}
	for i := range tx.nodes {
		ws := names[i]
		if len(ws) > 0 && len(ws) <= maxPhrase && !(strict && len(ws) == 1 && inAncestorName(tx, names, i, ws[0])) {
			add(strings.Join(ws, " "), i, weightStrong)
		}
		if len(ws) > 1 {
			for _, w := range ws {
				if len(w) > 2 && !genericNameWords[w] && !(strict && (inAncestorName(tx, names, i, w) || everyday != nil && everyday(w))) {
					add(w, i, weightNameTok)
				}
			}
		}
	}
	// Curated keywords.
	raw, err := data.ReadFile("data/keywords.txt")
	if err != nil {
		return nil, err
	}
	for ln, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		label, list, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("topics: keywords.txt line %d: no \": \" after the label", ln+1)
		}
		n, ok := tx.index[label]
		if !ok {
			return nil, fmt.Errorf("topics: keywords.txt line %d: unknown label %q", ln+1, label)
		}
		for _, kw := range strings.Split(list, ",") {
			kw = strings.TrimSpace(kw)
			w := weightNormal
			switch {
			case strings.HasSuffix(kw, "!"):
				w, kw = weightStrong, strings.TrimSuffix(kw, "!")
			case strings.HasPrefix(kw, "~"):
				w, kw = weightWeak, strings.TrimPrefix(kw, "~")
			}
			add(keywordTerm(kw), n, w)
		}
	}
	// A term used by several tier-1 families says less about any of them.
	p.idf = make([]float64, len(p.postings))
	for id, ps := range p.postings {
		roots := map[int]bool{}
		for _, q := range ps {
			roots[tx.nodes[q.node].root] = true
		}
		p.idf[id] = 1 / math.Sqrt(float64(len(roots)))
	}
	return p, nil
}

// match finds the terms in a sequence of stems, longest phrase first at
// each position, and returns how often each term id occurs.
func (p *profiles) match(stems []string) map[int]int {
	counts := map[int]int{}
	for i := 0; i < len(stems); {
		step := 1
		for n := min(p.maxN, len(stems)-i); n >= 1; n-- {
			if id, ok := p.terms[strings.Join(stems[i:i+n], " ")]; ok {
				counts[id]++
				step = n
				break
			}
		}
		i += step
	}
	return counts
}

// nameWords returns the stems of a category name's words, stop words and
// "&" left out.
func nameWords(name string) []string {
	var ws []string
	for _, f := range strings.Fields(strings.ToLower(name)) {
		for _, w := range termWords(strings.ReplaceAll(f, ",", "")) {
			if w == "&" || nlp.IsStopWord(w) {
				continue
			}
			ws = append(ws, w)
		}
	}
	return ws
}

// inAncestorName reports whether stem w is one of the words (names, by
// node) of the name of one of node i's ancestors.
func inAncestorName(tx *taxonomy, names [][]string, i int, w string) bool {
	for a := tx.nodes[i].parent; a >= 0; a = tx.nodes[a].parent {
		if slices.Contains(names[a], w) {
			return true
		}
	}
	return false
}
