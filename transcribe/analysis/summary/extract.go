package summary

import (
	"math"
	"sort"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// Selection constants (see doc.go).
const (
	// redundancy is the weight of a candidate's similarity to the
	// sentences already chosen (maximal marginal relevance).
	redundancy = 0.7
	// minSpeakerShare: in a conversational summary, every speaker with at
	// least this share of the words gets at least one sentence.
	minSpeakerShare = 0.15
	// minTopicSentences is the shortest topic a summary shares its points
	// among.
	minTopicSentences = 3
	// openingBonus multiplies the worth of a topic segment's first
	// sentence.
	openingBonus = 1.5
)

// Constants of the choice between topics and the whole text (topicCuts,
// pickWhole; see doc.go), chosen on the dev part of the BBC News Summary
// set and on testdata/dev.txt.
const (
	// topicSplitSentences is the shortest topic segment that summary
	// points are shared among (the passages of testdata are five or six
	// sentences; a news story's lexical dips cut it into stretches of three
	// or four).
	topicSplitSentences = 5
	// Two neighbouring segments are different topics when the cosine
	// similarity of their tf-idf vectors is below distinctLexical, that of
	// their topic categories (concepts) below distinctConcepts, and no
	// sentence of one has a tf-idf cosine of distinctPair or more with a
	// sentence of the other. Unrelated passages joined together score at
	// most 0.10, 0.49 and 0.17 on testdata/dev.txt.
	distinctLexical  = 0.11
	distinctConcepts = 0.5
	distinctPair     = 0.18
	// wholeLengthExp: on a text ranked as a whole, a sentence's worth is
	// its centrality times its number of content words to this power.
	wholeLengthExp = 0.25
	// wholeRedundancy is the redundancy weight (see redundancy) there.
	wholeRedundancy = 0.3
)

// style describes how sentences are chosen for one summary model.
type style struct {
	speakers bool // speaker-aware choice and speaker prefixes
	short    bool // prefer short sentences
}

func styleOf(model transcribe.SummaryModel) style {
	switch model {
	case transcribe.SummaryConversational:
		return style{speakers: true}
	case transcribe.SummaryCatchy:
		return style{short: true}
	}
	return style{}
}

// quality returns how good sentence i is as summary material on its own:
// its centrality, lowered for sentences too short to say anything, for
// questions, and (when st.short) for long sentences.
func (x *Text) quality(i int, st style) float64 {
	s := x.sents[i]
	q := x.rank[i] * x.plainWorth(len(s.terms), i)
	if n := s.Len(); n > 45 {
		q *= 0.75
	}
	if st.short {
		if n := s.Len(); n > 16 {
			q *= 16 / float64(n)
		}
	}
	return q
}

// pick chooses k sentences by maximal marginal relevance and returns
// their indexes in text order. With st.speakers and two or more voices,
// each voice with at least minSpeakerShare of the words first gets its
// best sentence (when k allows).
//
// Without two main voices, a text on several topics (topicCuts) gives
// each topic one point (pickPerTopic) and the rest to the sentences best
// for the whole text (pickWhole); a text on one subject is ranked as a
// whole, or by pickMMR when st.short.
func (x *Text) pick(k int, st style) []int {
	if (!st.speakers || len(x.mainVoices()) < 2) && k > 1 {
		if cuts := x.topicCuts(); len(cuts) > 0 {
			if k <= len(cuts)+1 || st.short {
				return x.pickPerTopic(k, st, cuts)
			}
			return x.pickWhole(k, x.pickPerTopic(len(cuts)+1, st, cuts))
		}
		if !st.short {
			return x.pickWhole(k, nil)
		}
	}
	return x.pickMMR(k, st)
}

// topicCuts returns the topic boundaries a summary shares its points
// among: those of Segment with topicSplitSentences between segments that
// differ (see distinctLexical). A news story or a talk on one subject has
// lexical dips too, but the stretches on either side share vocabulary,
// categories or a closely related pair of sentences; passages on
// unrelated subjects do not.
func (x *Text) topicCuts() []int {
	cuts := x.Segment(topicSplitSentences, 0)
	bounds := append(append([]int{0}, cuts...), len(x.sents))
	var keep []int
	for i := 1; i+1 < len(bounds); i++ {
		a, b, c := bounds[i-1], bounds[i], bounds[i+1]
		var left, right []int
		for _, s := range x.sents[a:b] {
			left = append(left, s.terms...)
		}
		for _, s := range x.sents[b:c] {
			right = append(right, s.terms...)
		}
		if x.tfidf(left).dot(x.tfidf(right)) >= distinctLexical ||
			dotMap(x.concepts(a, b), x.concepts(b, c)) >= distinctConcepts {
			continue
		}
		pair := 0.0
		for j := a; j < b; j++ {
			for l := b; l < c; l++ {
				pair = math.Max(pair, x.sents[j].vec.dot(x.sents[l].vec))
			}
		}
		if pair < distinctPair {
			keep = append(keep, b)
		}
	}
	return keep
}

// pickWhole adds sentences to those already chosen (the points of each
// topic) until there are k, by maximal marginal relevance
// (wholeRedundancy) over the whole text. It ranks what a summary quotes
// (quoted: a sentence cut into pieces counts as one), its worth the
// centrality in the graph of term-frequency cosines (rankGraph over tf
// vectors: LexRank without the inverse sentence frequency, so that the
// words a story repeats most weigh most, where idf favours sentences of
// rare words, which suits picking one sentence per topic) times its
// number of content words to the power wholeLengthExp, lowered for
// fewer than five content words and for questions as in quality. It
// returns unit indexes in text order: those chosen, and the first unit of
// each sentence added.
func (x *Text) pickWhole(k int, chosen []int) []int {
	first, group := x.quoted()
	ng := len(first)
	terms := make([][]int, ng)
	for i, s := range x.sents {
		terms[group[i]] = append(terms[group[i]], s.terms...)
	}
	tf := make([]vec, ng)
	tfidf := make([]vec, ng)
	for g := range terms {
		tf[g] = x.tf(terms[g])
		tfidf[g] = x.tfidf(terms[g])
	}
	q := x.rankGraph(tf, x.tf)
	for g := range q {
		content := len(terms[g])
		last := len(x.sents) - 1
		if g+1 < ng {
			last = first[g+1] - 1
		}
		q[g] *= x.plainWorth(content, last) * math.Pow(float64(max(content, 1)), wholeLengthExp)
	}
	q = scaleMax(q)
	out := append([]int(nil), chosen...)
	taken := make([]bool, ng)
	var picked []int // chosen groups
	for _, i := range chosen {
		if !taken[group[i]] {
			taken[group[i]] = true
			picked = append(picked, group[i])
		}
	}
	for len(picked) < min(k, ng) {
		best, bestV := -1, math.Inf(-1)
		for g := range q {
			if taken[g] {
				continue
			}
			sim := 0.0
			for _, h := range picked {
				sim = math.Max(sim, tfidf[g].dot(tfidf[h]))
			}
			if v := q[g] - wholeRedundancy*sim; v > bestV {
				best, bestV = g, v
			}
		}
		taken[best] = true
		picked = append(picked, best)
		out = append(out, first[best])
	}
	sort.Ints(out)
	return out
}

// quoted groups the units as a summary quotes them: the pieces of a
// transcript sentence of at most maxWholeWords words (quoted whole, see
// renderRange) are one group, any other unit a group of its own. It
// returns each group's first unit, in order, and each unit's group.
func (x *Text) quoted() (first, group []int) {
	group = make([]int, len(x.sents))
	for i, s := range x.sents {
		w := s.whole
		if i > 0 && w == x.sents[i-1].whole && w[1]-w[0] <= maxWholeWords {
			group[i] = len(first) - 1
			continue
		}
		group[i] = len(first)
		first = append(first, i)
	}
	return first, group
}

// plainWorth is what a unit is worth as summary material for its form
// alone, as a factor: lowered when its content words (content) are too
// few to say anything, and when it is a question (its last sentence,
// last, ends in "?").
func (x *Text) plainWorth(content, last int) float64 {
	w := 1.0
	switch {
	case content < 3:
		w = 0.1
	case content < 5:
		w = 0.6
	}
	if toks := x.sents[last].toks; len(toks) > 0 && strings.Contains(toks[len(toks)-1].Post, "?") {
		w *= 0.6
	}
	return w
}

// pickPerTopic shares k sentences among the topic segments that start at
// cuts, in proportion to their words (largest remainders; every segment
// gets one when k allows, the longest first otherwise), and picks each
// segment's share by maximal marginal relevance within it.
func (x *Text) pickPerTopic(k int, st style, cuts []int) []int {
	bounds := append(append([]int{0}, cuts...), len(x.sents))
	type seg struct {
		from, to, words, share int
		rem                    float64
	}
	segs := make([]seg, len(bounds)-1)
	for i := range segs {
		segs[i].from, segs[i].to = bounds[i], bounds[i+1]
		for _, s := range x.sents[bounds[i]:bounds[i+1]] {
			segs[i].words += s.Len()
		}
	}
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return segs[order[a]].words > segs[order[b]].words })
	left := k
	if k >= len(segs) {
		for i := range segs {
			segs[i].share = 1
		}
		left -= len(segs)
		for i := range segs {
			exact := float64(left) * float64(segs[i].words) / float64(max(x.nWord, 1))
			segs[i].share += int(exact)
			segs[i].rem = exact - float64(int(exact))
		}
		given := 0
		for _, s := range segs {
			given += s.share
		}
		sort.SliceStable(order, func(a, b int) bool { return segs[order[a]].rem > segs[order[b]].rem })
		for i := 0; given < k && i < len(order); i++ {
			segs[order[i]].share++
			given++
		}
	} else {
		for _, i := range order[:k] {
			segs[i].share = 1
		}
	}
	var out []int
	for _, s := range segs {
		if s.share == 0 {
			continue
		}
		sub := x.topic(s.from, s.to)
		for _, i := range sub.pickMMR(s.share, st) {
			out = append(out, s.from+i)
		}
	}
	sort.Ints(out)
	return out
}

// topic returns sentences [from, to) of x, a stretch on one topic, as a
// Text whose sentence worth is half its centrality there and half in
// the whole of x, with the opening sentence, which usually introduces
// the topic, counting openingBonus times as much.
func (x *Text) topic(from, to int) *Text {
	sub := x.Sub(from, to)
	for i := range sub.rank {
		sub.rank[i] = 0.5*sub.rank[i] + 0.5*x.rank[from+i]
		if i == 0 {
			sub.rank[i] *= openingBonus
		}
	}
	return sub
}

// pickMMR chooses k sentences by maximal marginal relevance (see pick).
func (x *Text) pickMMR(k int, st style) []int {
	n := len(x.sents)
	if k > n {
		k = n
	}
	if k <= 0 {
		return nil
	}
	q := make([]float64, n)
	for i := range q {
		q[i] = x.quality(i, st)
	}
	chosen := []int{}
	taken := make([]bool, n)
	take := func(i int) { chosen = append(chosen, i); taken[i] = true }
	if st.speakers {
		for _, v := range x.mainVoices() {
			if len(chosen) >= k {
				break
			}
			best := -1
			for i, s := range x.sents {
				if s.voice == v && !taken[i] && (best < 0 || q[i] > q[best]) {
					best = i
				}
			}
			if best >= 0 {
				take(best)
			}
		}
	}
	for len(chosen) < k {
		best, bestV := -1, math.Inf(-1)
		for i := range x.sents {
			if taken[i] {
				continue
			}
			sim := 0.0
			for _, j := range chosen {
				sim = math.Max(sim, x.sents[i].vec.dot(x.sents[j].vec))
			}
			if v := q[i] - redundancy*sim; v > bestV {
				best, bestV = i, v
			}
		}
		if best < 0 {
			break
		}
		take(best)
	}
	sort.Ints(chosen)
	return chosen
}

// mainVoices returns the voices with at least minSpeakerShare of the
// words, in order of first appearance, when there are two or more.
func (x *Text) mainVoices() []string {
	words := map[string]int{}
	first := map[string]int{}
	for i, s := range x.sents {
		if s.voice != "" {
			if _, ok := words[s.voice]; !ok {
				first[s.voice] = i
			}
			words[s.voice] += s.Len()
		}
	}
	var vs []string
	for v, n := range words {
		if float64(n) >= minSpeakerShare*float64(max(x.nWord, 1)) {
			vs = append(vs, v)
		}
	}
	if len(vs) < 2 {
		return nil
	}
	sort.Slice(vs, func(i, j int) bool { return first[vs[i]] < first[vs[j]] })
	return vs
}

// best returns the index of the best headline sentence: the highest
// quality among sentences of 6 to 30 words, or among all when none has
// that length; -1 for an empty text. It is chosen in the main topic
// (mainTopic), with the topic's opening sentence favoured (see topic).
func (x *Text) best(st style) int {
	from, to := x.mainTopic()
	if i := x.topic(from, to).bestSentence(st); i >= 0 {
		return from + i
	}
	return -1
}

// mainTopic returns the sentence range of the longest topic segment
// (Segment with minTopicSentences), or the whole text.
func (x *Text) mainTopic() (from, to int) {
	bounds := append(append([]int{0}, x.Segment(minTopicSentences, 0)...), len(x.sents))
	words := -1
	for i := 0; i+1 < len(bounds); i++ {
		n := 0
		for _, s := range x.sents[bounds[i]:bounds[i+1]] {
			n += s.Len()
		}
		if n > words {
			from, to, words = bounds[i], bounds[i+1], n
		}
	}
	return from, to
}

// bestSentence is best without looking for topics.
func (x *Text) bestSentence(st style) int {
	best := -1
	for pass := 0; pass < 2 && best < 0; pass++ {
		for i, s := range x.sents {
			if pass == 0 && (s.Len() < 6 || s.Len() > 30) {
				continue
			}
			if best < 0 || x.quality(i, st) > x.quality(best, st) {
				best = i
			}
		}
	}
	return best
}

// similarNext reports whether sentence i+1 continues sentence i (same
// voice, some shared content), for verbose bullets.
func (x *Text) similarNext(i int) bool {
	if i+1 >= len(x.sents) || x.sents[i].voice != x.sents[i+1].voice {
		return false
	}
	return x.sents[i].vec.dot(x.sents[i+1].vec) > 0.08 || len(x.sents[i+1].terms) < 4
}

// clamp bounds v to [lo, hi].
func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// counts per summary type, from the number of words.
func bulletCount(words int) int        { return clamp(int(math.Round(float64(words)/130)), 3, 7) }
func verboseBulletCount(words int) int { return clamp(int(math.Round(float64(words)/70)), 4, 12) }
func paragraphCount(words int) int     { return clamp(int(math.Round(float64(words)/200)), 2, 5) }

// sortByScore orders idx by decreasing score[idx[i]], ties by index.
func sortByScore(idx []int, score []float64) {
	sort.SliceStable(idx, func(a, b int) bool {
		if score[idx[a]] != score[idx[b]] {
			return score[idx[a]] > score[idx[b]]
		}
		return idx[a] < idx[b]
	})
}
