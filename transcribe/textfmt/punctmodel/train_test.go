package punctmodel

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestGarble: at rate 0 the words are as written; at 0.12 about that
// share of words is substituted, deleted or inserted, every slice keeps
// the words' length, paragraph ends and turns stay where they were, and
// the sentence ends are kept (a deleted word's end passes to the word
// before).
func TestGarble(t *testing.T) {
	t.Parallel()
	d := newDoc([]Paragraph{{Text: strings.Repeat("The cat sat on the mat, and the dog lay by the door. Did it rain? ", 300)}, {Text: "It did."}})
	ws, ms, pe, tu := d.Flatten()
	r := rand.New(rand.NewPCG(1, 2))
	w0, m0, p0, t0 := Garble(r, 0, ws, ms, pe, tu)
	if !slices.Equal(w0, ws) || !slices.Equal(m0, ms) || !slices.Equal(p0, pe) || !slices.Equal(t0, tu) {
		t.Fatal("rate 0 changed the words")
	}
	w, m, p, tn := Garble(r, 0.12, ws, ms, pe, tu)
	if len(w) != len(m) || len(w) != len(p) || len(w) != len(tn) {
		t.Fatalf("lengths %d %d %d %d", len(w), len(m), len(p), len(tn))
	}
	ends := func(ms []Mark) (n int) {
		for _, x := range ms {
			if x.EndsSentence() {
				n++
			}
		}
		return
	}
	paras := func(b []bool) (n int) {
		for _, x := range b {
			if x {
				n++
			}
		}
		return
	}
	if e0, e := ends(ms), ends(m); e < e0*97/100 || e > e0 {
		t.Errorf("sentence ends %d, were %d", e, e0)
	}
	if paras(p) != paras(pe) || !p[len(p)-1] || w[len(w)-1] != "did" || m[len(m)-1] != Period {
		t.Errorf("paragraph ends moved: %d of %d, last %q %v", paras(p), paras(pe), w[len(w)-1], m[len(m)-1])
	}
	// Word errors: an alignment's edits over the words.
	al := align(ws, w)
	same := 0
	for j, i := range al {
		if i >= 0 && ws[i] == w[j] {
			same++
		}
	}
	if rate := 1 - float64(same)/float64(len(ws)); rate < 0.05 || rate > 0.15 {
		t.Errorf("error rate %.3f, want about 0.12 less substitutions by the same word", rate)
	}
}
