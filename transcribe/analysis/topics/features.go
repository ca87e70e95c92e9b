package topics

import (
	"sort"
	"strings"
	"unicode"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// TextStems is Stems for plain text (words split at white space).
func TextStems(text string) []string { return textStems(text) }

// Features returns the features the family model reads from the output
// of Stems: the stems that are not stop words and hold a letter. The
// training command (internal/cmd/traintopics) uses the same function, so
// training and classification see the same features.
func Features(stems []string) []string {
	out := make([]string, 0, len(stems))
	for _, s := range stems {
		if len(s) < 2 || nlp.IsStopWord(s) || !strings.ContainsFunc(s, unicode.IsLetter) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// ProfileDocuments returns, for every tier-1 category, the stems of the
// terms of its keyword profiles (data/keywords.txt and the categories'
// names, see "How labels are scored"), each term's words once per term.
// The training command adds them to the family model as one document per
// tier-1 category, so that categories no labelled news set covers
// (Pets, Automotive...) still have a voice.
func ProfileDocuments() (map[string][]string, error) {
	tx, err := loadTaxonomy()
	if err != nil {
		return nil, err
	}
	p, err := buildProfiles(tx, false)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for term, id := range p.terms {
		roots := map[int]bool{}
		for _, q := range p.postings[id] {
			roots[tx.nodes[q.node].root] = true
		}
		for r := range roots {
			l := tx.nodes[r].label
			out[l] = append(out[l], Features(strings.Fields(term))...)
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out, nil
}
