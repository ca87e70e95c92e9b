package keyphrases

import (
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// TestNoOverlappingPhrases: no key phrase's words run inside a
// higher-ranked one's, and no phrase lengthens a higher-ranked phrase of
// two or more words (issue 23: "repeats of one phrase inside another").
func TestNoOverlappingPhrases(t *testing.T) {
	t.Parallel()
	texts := []string{
		// An abstract of the kind of Inspec's (the GHZ paradox), written here.
		"The GHZ paradox is extended to many parties. The standard GHZ paradox uses qubits. " +
			"We show that a GHZ paradox holds for entangled states of higher dimension. " +
			"The standard GHZ paradox fails for some dimensions, and the paradox needs more parties.",
		"The quantum Zeno effect freezes a quantum system. Quantum Zeno subspaces appear when the quantum Zeno effect " +
			"acts on a larger system. The system couples to an apparatus, and the quantum Zeno subspaces stay protected.",
		"Our kitchen renovation ran over budget. The old cabinets came out first and the new cabinets arrived late. " +
			"The contractor said the new cabinets were the hardest part of the kitchen renovation.",
	}
	for _, text := range texts {
		res, err := Extract(nlptest.Words(text), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var stems [][]string
		for _, r := range res {
			var s []string
			for _, w := range strings.Fields(strings.ToLower(r.Text)) {
				s = append(s, nlp.Stem(strings.Trim(w, ".,")))
			}
			stems = append(stems, s)
		}
		for i, s := range stems {
			for j, k := range stems[:i] {
				if runIn(k, s) {
					t.Errorf("%q (rank %d) lies inside %q (rank %d)", res[i].Text, i, res[j].Text, j)
				}
				if len(k) > 1 && len(s) > len(k) && runIn(s, k) {
					t.Errorf("%q (rank %d) lengthens %q (rank %d)", res[i].Text, i, res[j].Text, j)
				}
				if slices.Equal(k, s) {
					t.Errorf("%q repeated", res[i].Text)
				}
			}
		}
	}
}

// runIn reports whether inner occurs as consecutive words of outer.
func runIn(outer, inner []string) bool {
	for i := 0; i+len(inner) <= len(outer); i++ {
		if slices.Equal(outer[i:i+len(inner)], inner) {
			return true
		}
	}
	return false
}
