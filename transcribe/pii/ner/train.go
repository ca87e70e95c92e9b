package ner

import (
	"errors"
	"math/rand"
	"strings"
	"unicode"
)

// Options configure Train.
type Options struct {
	// Epochs is the most passes over the training documents (default 15).
	Epochs int
	// Seed orders the sentences of each pass (default 1).
	Seed int64
	// Dev, when set, picks the pass whose averaged weights score the
	// best F1 (PER, LOC, ORG) on it; otherwise the last pass is kept.
	Dev []Doc
	// Log, when set, receives a line per pass.
	Log func(format string, args ...any)
}

type example struct {
	ids  [][]int32
	gold []int
}

// Train learns a tagger from documents by the averaged structured
// perceptron: each sentence is decoded by Viterbi with the current
// weights and, where the best path differs from the gold tags, the gold
// features and transitions gain one and the predicted ones lose one. The
// weights returned are the average over all updates. A lower-case model
// (cased false) reads lower-cased words only.
func Train(docs []Doc, cased bool, lexicon map[string][]string, o Options) (*Model, error) {
	if len(docs) == 0 {
		return nil, errors.New("ner: no training documents")
	}
	if o.Epochs <= 0 {
		o.Epochs = 15
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	tagID := map[string]int{}
	for i, t := range Tags {
		tagID[t] = i
	}
	m := &Model{Cased: cased, Lexicon: lexicon, feats: map[string]int32{}, Ordinary: ordinary(docs)}
	m.setLexMax()
	var exs []example
	for _, d := range docs {
		fs := m.features(m.prepare(d.Words, nil))
		ids := make([][]int32, len(fs))
		gold := make([]int, len(fs))
		for i, f := range fs {
			t, ok := tagID[d.Tags[i]]
			if !ok {
				return nil, errors.New("ner: unknown tag " + d.Tags[i])
			}
			gold[i] = t
			for _, s := range f {
				id, ok := m.feats[s]
				if !ok {
					id = int32(len(m.feats))
					m.feats[s] = id
				}
				ids[i] = append(ids[i], id)
			}
		}
		// One example per sentence; features keep the document context.
		from := 0
		for i := 1; i <= len(ids); i++ {
			if i == len(ids) || d.Starts[i] {
				exs = append(exs, example{ids[from:i], gold[from:i]})
				from = i
			}
		}
	}
	nf := len(m.feats)
	w := make([]float32, nf*nTags)
	u := make([]float32, nf*nTags) // sum of c * update, for averaging
	var tr, tu [nTags + 1][nTags]float32
	c := float32(1)
	rng := rand.New(rand.NewSource(o.Seed))
	var best *Model
	bestF := -1.0
	avg := func() *Model {
		a := &Model{Cased: cased, Lexicon: lexicon, Ordinary: m.Ordinary, lexMax: m.lexMax, feats: m.feats, w: make([]float32, len(w))}
		for i := range w {
			a.w[i] = w[i] - u[i]/c
		}
		for p := range tr {
			for t := range tr[p] {
				a.trans[p][t] = tr[p][t] - tu[p][t]/c
			}
		}
		return a
	}
	for ep := 1; ep <= o.Epochs; ep++ {
		rng.Shuffle(len(exs), func(i, j int) { exs[i], exs[j] = exs[j], exs[i] })
		errs := 0
		for _, ex := range exs {
			pred := viterbi(ex.ids, w, &tr)
			wrong := false
			for i := range pred {
				if pred[i] == ex.gold[i] {
					continue
				}
				wrong = true
				errs++
				for _, id := range ex.ids[i] {
					g, p := int(id)*nTags+ex.gold[i], int(id)*nTags+pred[i]
					w[g]++
					u[g] += c
					w[p]--
					u[p] -= c
				}
			}
			if wrong {
				pg, pp := nTags, nTags
				for i := range pred {
					g, p := ex.gold[i], pred[i]
					if pg != pp || g != p {
						tr[pg][g]++
						tu[pg][g] += c
						tr[pp][p]--
						tu[pp][p] -= c
					}
					pg, pp = g, p
				}
			}
			c++
		}
		a := avg()
		if len(o.Dev) == 0 {
			best = a
			if o.Log != nil {
				o.Log("pass %d: %d token errors", ep, errs)
			}
			continue
		}
		f := F1(Evaluate(a, o.Dev))
		if o.Log != nil {
			o.Log("pass %d: %d token errors, dev F1 %.4f", ep, errs, f)
		}
		if f > bestF {
			best, bestF = a, f
		}
	}
	return best, nil
}

// ordinary returns the alphabetic words written in lower case three times
// or more in docs.
func ordinary(docs []Doc) map[string]bool {
	n := map[string]int{}
	for _, d := range docs {
		for _, w := range d.Words {
			_, core, _ := split(w)
			if core == "" || core != strings.ToLower(core) || strings.IndexFunc(core, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
				continue
			}
			n[core]++
		}
	}
	out := map[string]bool{}
	for w, c := range n {
		if c >= 3 {
			out[w] = true
		}
	}
	return out
}
