package summary

import (
	"math"
	"sort"
	"strings"

	"github.com/earshot-dev/earshot/transcribe/analysis/topics"
)

// Segmentation constants (see doc.go, "Chapters").
const (
	// windowTerms: each side of a gap is compared over the sentences
	// nearest to it that hold at least this many content words (and at
	// least minWindowSentences sentences).
	windowTerms        = 24
	minWindowSentences = 2
	// depthCut: a gap is a boundary candidate when its depth exceeds the
	// mean depth of the transcript's gaps by depthCut standard deviations.
	depthCut = 0.0
	// minDepth is the least depth of a boundary, whatever the other gaps:
	// a text on one topic has shallow dips only.
	minDepth = 0.15
	// pauseBonus is added to the depth of a gap at a silence of at least
	// pauseMillis between the two sentences.
	pauseBonus  = 0.05
	pauseMillis = 2000
	// settleSentences: a boundary chosen on the smoothed similarity
	// settles on the gap of least raw similarity within this many
	// sentences of it, when that gap is at least settleMargin less similar
	// (see segment).
	settleSentences = 2
	settleMargin    = 0.03
)

// conceptWeight is the share of the topic-category similarity in the
// similarity of two windows (the rest is lexical), chosen on the dev sets
// (testdata/dev.txt written and recognized, Choi's set 1; see doc.go).
const conceptWeight = 0.3

// window returns the summed term ids of the sentences on one side of gap g
// (between sentences g-1 and g): dir -1 looks back from g-1, +1 forward
// from g.
func (x *Text) window(g, dir int) (terms []int, from, to int) {
	k := g
	if dir < 0 {
		k = g - 1
	}
	from, to = k, k+1
	for n := 0; k >= 0 && k < len(x.sents); k += dir {
		terms = append(terms, x.sents[k].terms...)
		from, to = min(from, k), max(to, k+1)
		n++
		if n >= minWindowSentences && len(terms) >= windowTerms {
			break
		}
	}
	return terms, from, to
}

// concepts returns the topic categories of sentences [from, to) as a unit
// vector over category paths: each label the topics keyword profiles find
// adds its relevance to itself and to each of its ancestors, so that
// "Sports>Tennis" and "Sports>Golf" share "Sports". It uses
// topics.KeywordLabels, not ClassifyStems: the family model that gates
// ClassifyStems decides what a whole text is about and swings a short
// window's labels from one family to another on a few words, which made
// the similarity of neighbouring windows jumpy (held-out chapter F1 0.91
// -> 0.86 on written text, bullets' ROUGE-1 below lead-k's).
func (x *Text) concepts(from, to int) map[string]float64 {
	c, err := topics.Default()
	if err != nil || from >= to {
		return nil
	}
	stems := topics.Stems(x.words[x.sents[from].From:x.sents[to-1].To])
	v := map[string]float64{}
	for _, l := range c.KeywordLabels(stems, 40, 0) {
		path := l.Label
		for {
			v[path] += l.Relevance
			i := strings.LastIndex(path, ">")
			if i < 0 {
				break
			}
			path = path[:i]
		}
	}
	norm := 0.0
	for _, w := range v {
		norm += w * w
	}
	for k := range v {
		v[k] /= math.Sqrt(norm)
	}
	return v
}

func dotMap(a, b map[string]float64) float64 {
	s := 0.0
	for k, w := range a {
		s += w * b[k]
	}
	return s
}

// gapSimilarity returns, for each gap between sentences i-1 and i (index
// i, 1 <= i < n), the cosine similarity of the tf-idf vectors of the
// windows on each side, smoothed over neighbouring gaps. Index 0 is unused.
func (x *Text) gapSimilarity() (smoothed, raw []float64) {
	n := len(x.sents)
	raw = make([]float64, n)
	for g := 1; g < n; g++ {
		left, lf, lt := x.window(g, -1)
		right, rf, rt := x.window(g, +1)
		lex := x.tfidf(left).dot(x.tfidf(right))
		con := dotMap(x.concepts(lf, lt), x.concepts(rf, rt))
		raw[g] = (1-conceptWeight)*lex + conceptWeight*con
	}
	sm := make([]float64, n)
	for g := 1; g < n; g++ {
		s, c := raw[g]*2, 2.0
		if g-1 >= 1 {
			s += raw[g-1]
			c++
		}
		if g+1 < n {
			s += raw[g+1]
			c++
		}
		sm[g] = s / c
	}
	return sm, raw
}

// depths returns the TextTiling depth score of every gap: how far its
// similarity lies below the highest similarity reached climbing left and
// climbing right from it.
func depths(sim []float64) []float64 {
	n := len(sim)
	d := make([]float64, n)
	for g := 1; g < n; g++ {
		lp := sim[g]
		for i := g - 1; i >= 1 && sim[i] >= lp; i-- {
			lp = sim[i]
		}
		rp := sim[g]
		for i := g + 1; i < n && sim[i] >= rp; i++ {
			rp = sim[i]
		}
		d[g] = (lp - sim[g]) + (rp - sim[g])
	}
	return d
}

// Segment cuts the text into chapters by lexical cohesion (TextTiling over
// sentences): it returns the index of the first sentence of every chapter
// after the first, in order. A chapter has at least minSentences sentences
// and lasts at least minMillis; a text too short for two chapters gives
// none.
func (x *Text) Segment(minSentences int, minMillis int64) []int {
	key := [2]int64{int64(minSentences), minMillis}
	x.segMu.Lock()
	defer x.segMu.Unlock()
	if cuts, ok := x.segs[key]; ok {
		return append([]int(nil), cuts...)
	}
	cuts := x.segment(minSentences, minMillis)
	if x.segs == nil {
		x.segs = map[[2]int64][]int{}
	}
	x.segs[key] = cuts
	return append([]int(nil), cuts...)
}

// segment is Segment without the cache.
func (x *Text) segment(minSentences int, minMillis int64) []int {
	n := len(x.sents)
	if n < 2*minSentences {
		return nil
	}
	sim, raw := x.gapSimilarity()
	d := depths(sim)
	for g := 1; g < n; g++ {
		if x.sents[g].Start-x.sents[g-1].End >= pauseMillis {
			d[g] += pauseBonus
		}
	}
	// Threshold over the gaps that are local minima of similarity.
	var ms []float64
	for g := 1; g < n; g++ {
		if d[g] > 0 {
			ms = append(ms, d[g])
		}
	}
	if len(ms) == 0 {
		return nil
	}
	mean, sd := meanSD(ms)
	cut := math.Max(mean+depthCut*sd, minDepth)
	type gap struct {
		at    int
		depth float64
	}
	var cands []gap
	for g := 1; g < n; g++ {
		if d[g] > cut && d[g] > 0 {
			cands = append(cands, gap{g, d[g]})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].depth != cands[j].depth {
			return cands[i].depth > cands[j].depth
		}
		return cands[i].at < cands[j].at
	})
	var cuts []int
	for _, c := range cands {
		// Smoothing finds where the topic turns but blurs the exact gap:
		// the boundary settles on a clearly less similar gap near it
		// (Choi's set 1, the dev set: Pk 0.317 -> 0.299; see doc.go).
		at := c.at
		for o := max(c.at-settleSentences, 1); o <= min(c.at+settleSentences, n-1); o++ {
			if x.settled(raw, o) < x.settled(raw, at)-settleMargin {
				at = o
			}
		}
		if x.fits(cuts, at, minSentences, minMillis) {
			cuts = append(cuts, at)
			sort.Ints(cuts)
		}
	}
	return cuts
}

// settled is how similar the sentences on each side of gap g are, for
// settling a boundary: the raw similarity, less pauseBonus at a long
// silence (a boundary does not leave a pause for a gap a little less
// similar).
func (x *Text) settled(raw []float64, g int) float64 {
	if x.sents[g].Start-x.sents[g-1].End >= pauseMillis {
		return raw[g] - pauseBonus
	}
	return raw[g]
}

// fits reports whether cutting at g keeps every chapter long enough.
func (x *Text) fits(cuts []int, g, minSentences int, minMillis int64) bool {
	prev, next := 0, len(x.sents)
	for _, c := range cuts {
		if c == g {
			return false
		}
		if c < g {
			prev = c
		} else if c < next {
			next = c
		}
	}
	long := func(a, b int) bool {
		return b-a >= minSentences && x.sents[b-1].End-x.sents[a].Start >= minMillis
	}
	return long(prev, g) && long(g, next)
}

func meanSD(v []float64) (float64, float64) {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return m, math.Sqrt(s / float64(len(v)))
}
