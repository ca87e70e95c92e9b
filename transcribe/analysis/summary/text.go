package summary

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Limits of the sentence graph (see doc.go).
const (
	// graphMaxSentences: above this many sentences, centrality is the
	// similarity to the text's centroid instead of graph ranking, which is
	// quadratic in the number of sentences.
	graphMaxSentences = 600
	damping           = 0.85 // PageRank damping of the sentence graph
	rankIterations    = 40
)

// vec is a sparse vector: term ids in increasing order with weights.
type vec struct {
	ids []int
	w   []float64
}

func (a vec) dot(b vec) float64 {
	s, i, j := 0.0, 0, 0
	for i < len(a.ids) && j < len(b.ids) {
		switch {
		case a.ids[i] == b.ids[j]:
			s += a.w[i] * b.w[j]
			i++
			j++
		case a.ids[i] < b.ids[j]:
			i++
		default:
			j++
		}
	}
	return s
}

// sentence is one sentence of a Text.
type sentence struct {
	nlp.Span
	toks  []nlp.Token // the sentence's tokens (index i is word From+i)
	terms []int       // term ids of its content words, in order, with repeats
	vec   vec         // unit tf-idf vector
	voice string      // "Speaker A", "Channel 1" or ""
	whole [2]int      // word range [from, to) of the transcript sentence this unit is (part of)
}

// Text is a stretch of transcript prepared for extractive summarizing: its
// sentences, a vocabulary of content-word stems with their inverse
// sentence frequency, and the sentences' centrality. Build one with
// NewText; Sub gives a part of it that shares the vocabulary. A Text is
// immutable and safe for concurrent use.
type Text struct {
	segMu sync.Mutex
	segs  map[[2]int64][]int // Segment results by (minSentences, minMillis)

	words []transcribe.Word
	toks  []nlp.Token // one per word
	sents []sentence
	vocab map[string]int
	idf   []float64
	rank  []float64 // centrality of each sentence, max 1
	nWord int       // words in the text's sentences
}

// NewTextFromTranscript builds a Text over a transcript's sentences, cut
// as GET /v2/transcript/{id}/sentences cuts them.
func NewTextFromTranscript(t *transcribe.Transcript) *Text {
	if t == nil {
		return NewText(nil, nil)
	}
	return NewText(t.Words, nlp.Sentences(t))
}

// saysSomething reports whether tk is a word or a number, not redacted.
func saysSomething(tk nlp.Token) bool {
	return !tk.Redacted && strings.IndexFunc(tk.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// NewText builds a Text from words and their sentences (spans over ws, as
// nlp.Sentences returns them).
func NewText(ws []transcribe.Word, spans []nlp.Span) *Text {
	x := &Text{words: ws, vocab: map[string]int{}}
	toks := nlp.Tokens(ws)
	x.toks = toks
	var df []int
	for _, u := range units(ws, spans) {
		sp := u.Span
		s := sentence{Span: sp, toks: toks[sp.From:sp.To], voice: voiceOf(sp), whole: [2]int{u.whole.From, u.whole.To}}
		if !slices.ContainsFunc(s.toks, saysSomething) {
			// Marks alone ("," or "!", or only redactions) say nothing: a
			// summary, headline or chapter made of them would be junk.
			continue
		}
		seen := map[int]bool{}
		for _, tk := range s.toks {
			if !tk.IsWord() || nlp.IsStopWord(tk.Norm) {
				continue
			}
			st := nlp.Stem(tk.Norm)
			id, ok := x.vocab[st]
			if !ok {
				id = len(df)
				x.vocab[st] = id
				df = append(df, 0)
			}
			s.terms = append(s.terms, id)
			if !seen[id] {
				seen[id] = true
				df[id]++
			}
		}
		x.sents = append(x.sents, s)
		x.nWord += sp.Len()
	}
	n := float64(len(x.sents))
	x.idf = make([]float64, len(df))
	for id, d := range df {
		x.idf[id] = math.Log(1+n/float64(d)) + 0.1
	}
	for i := range x.sents {
		x.sents[i].vec = x.tfidf(x.sents[i].terms)
	}
	x.rank = x.centrality()
	return x
}

// Units longer than maxUnitWords are cut (see units).
const (
	maxUnitWords  = 40
	unitWords     = 12 // target length of the pieces
	unitCutWindow = 4  // a cut moves up to this many words to a longer pause
)

// units returns the sentences as the summarizer's units: a sentence
// longer than maxUnitWords words (the punctuate stage itself splits
// sentences at 40 words when it finds a pause, so a longer one means
// speech without pauses long enough to punctuate) is cut into pieces of
// about unitWords words, each cut moved to the longest pause within
// unitCutWindow words, as TextTiling does with its pseudo-sentences.
// Pieces of 12 words place topic boundaries within a sentence's length
// (20-word pieces missed a third of them on recognized speech).
func units(ws []transcribe.Word, spans []nlp.Span) []unit {
	var out []unit
	for _, sp := range spans {
		n := sp.Len()
		if n <= maxUnitWords {
			out = append(out, unit{sp, sp})
			continue
		}
		pieces := (n + unitWords - 1) / unitWords
		from := sp.From
		for p := 1; p < pieces; p++ {
			cut := sp.From + n*p/pieces
			best := cut
			for c := max(cut-unitCutWindow, from+1); c <= min(cut+unitCutWindow, sp.To-1); c++ {
				if ws[c].Start-ws[c-1].End > ws[best].Start-ws[best-1].End {
					best = c
				}
			}
			out = append(out, unit{piece(ws, sp, from, best), sp})
			from = best
		}
		out = append(out, unit{piece(ws, sp, from, sp.To), sp})
	}
	return out
}

// unit is a summarizer unit: a sentence, or a piece of a long one (whole).
type unit struct {
	nlp.Span
	whole nlp.Span
}

func piece(ws []transcribe.Word, sp nlp.Span, from, to int) nlp.Span {
	return nlp.Span{From: from, To: to, Text: transcribe.JoinWords(ws[from:to]), Start: ws[from].Start, End: ws[to-1].End,
		Speaker: sp.Speaker, Channel: sp.Channel}
}

// tfidf returns the unit tf-idf vector of a bag of term ids.
func (x *Text) tfidf(terms []int) vec { return unitVec(terms, x.idf) }

// tf returns the unit term-frequency vector of a bag of term ids, weighted
// as tfidf weighs them but without the inverse sentence frequency.
func (x *Text) tf(terms []int) vec { return unitVec(terms, nil) }

// unitVec returns the unit vector of a bag of term ids, each weighted
// 1 + log(count), times idf[id] when idf is not nil.
func unitVec(terms []int, idf []float64) vec {
	counts := map[int]float64{}
	for _, id := range terms {
		counts[id]++
	}
	v := vec{ids: make([]int, 0, len(counts))}
	for id := range counts {
		v.ids = append(v.ids, id)
	}
	sort.Ints(v.ids)
	norm := 0.0
	v.w = make([]float64, len(v.ids))
	for i, id := range v.ids {
		w := 1 + math.Log(counts[id])
		if idf != nil {
			w *= idf[id]
		}
		v.w[i] = w
		norm += w * w
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for i := range v.w {
			v.w[i] /= norm
		}
	}
	return v
}

// Sub returns the sentences [from, to) of x as a Text with its own
// centrality and x's vocabulary.
func (x *Text) Sub(from, to int) *Text {
	from, to = max(from, 0), min(to, len(x.sents))
	if from > to {
		from = to
	}
	y := &Text{words: x.words, toks: x.toks, sents: x.sents[from:to:to], vocab: x.vocab, idf: x.idf}
	for _, s := range y.sents {
		y.nWord += s.Len()
	}
	y.rank = y.centrality()
	return y
}

// Len returns the number of sentences.
func (x *Text) Len() int { return len(x.sents) }

// Words returns the number of words in the text's sentences.
func (x *Text) Words() int { return x.nWord }

// centrality ranks sentences by LexRank: PageRank over the graph whose
// edges are the cosine similarities of the sentences' tf-idf vectors. A
// text with more than graphMaxSentences sentences uses the similarity to
// the text's centroid instead. The result is scaled so the maximum is 1.
func (x *Text) centrality() []float64 {
	vs := make([]vec, len(x.sents))
	for i, s := range x.sents {
		vs[i] = s.vec
	}
	return x.rankGraph(vs, x.tfidf)
}

// rankGraph ranks the sentences, whose unit vectors are vs, by PageRank
// over the graph of their cosine similarities, or by their similarity to
// the centroid (the vector weigh gives all the text's terms) above
// graphMaxSentences sentences; the result is scaled so the maximum is 1.
func (x *Text) rankGraph(vs []vec, weigh func([]int) vec) []float64 {
	n := len(vs)
	r := make([]float64, n)
	if n == 0 {
		return r
	}
	if n > graphMaxSentences {
		var all []int
		for _, s := range x.sents {
			all = append(all, s.terms...)
		}
		c := weigh(all)
		for i, v := range vs {
			r[i] = v.dot(c)
		}
		return scaleMax(r)
	}
	sim := make([][]float64, n)
	out := make([]float64, n)
	for i := range sim {
		sim[i] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s := vs[i].dot(vs[j])
			sim[i][j], sim[j][i] = s, s
			out[i] += s
			out[j] += s
		}
	}
	for i := range r {
		r[i] = 1 / float64(n)
	}
	next := make([]float64, n)
	for it := 0; it < rankIterations; it++ {
		for j := range next {
			next[j] = (1 - damping) / float64(n)
		}
		for i := 0; i < n; i++ {
			if out[i] == 0 {
				// A sentence unlike any other spreads its rank evenly.
				for j := range next {
					next[j] += damping * r[i] / float64(n)
				}
				continue
			}
			for j := 0; j < n; j++ {
				if sim[i][j] > 0 {
					next[j] += damping * r[i] * sim[i][j] / out[i]
				}
			}
		}
		r, next = next, r
	}
	return scaleMax(r)
}

func scaleMax(r []float64) []float64 {
	m := 0.0
	for _, v := range r {
		m = math.Max(m, v)
	}
	if m > 0 {
		for i := range r {
			r[i] /= m
		}
	}
	return r
}

// voiceOf names the speaker of a span: "Speaker A" with speaker labels,
// "Channel 1" with dual channel or multichannel, "" otherwise.
func voiceOf(sp nlp.Span) string {
	switch {
	case sp.Speaker != nil && *sp.Speaker != "":
		return "Speaker " + *sp.Speaker
	case sp.Channel != nil && *sp.Channel != "":
		return "Channel " + *sp.Channel
	}
	return ""
}

// leadIns are words that open spoken sentences without adding meaning;
// sentenceText drops them from the start of an extracted sentence
// ("So the plan is" -> "The plan is"). commaLeadIns are dropped only when
// a comma follows them ("Okay, the plan is", but "Great news").
var (
	leadIns = map[string]bool{
		"so": true, "and": true, "but": true, "well": true, "um": true, "uh": true, "oh": true, "now": true,
	}
	commaLeadIns = map[string]bool{
		"okay": true, "ok": true, "yeah": true, "yes": true, "right": true, "alright": true, "anyway": true,
		"also": true, "look": true, "see": true, "like": true, "honestly": true, "basically": true,
		"actually": true, "thanks": true, "great": true, "sure": true, "hi": true, "hello": true, "hey": true, "bye": true,
		"sorry": true, "no": true, "yep": true, "listen": true,
	}
)

// maxWholeWords is the longest transcript sentence a summary quotes
// whole when one of its pieces (see units) is chosen.
const maxWholeWords = 60

// renderRange returns the words [from, to) a summary quotes for unit i:
// the whole transcript sentence the unit belongs to, so that a summary
// point never starts or ends inside a sentence; for a sentence longer than
// maxWholeWords (speech the punctuate stage could not cut), from its start
// to the unit's end when that is at most maxWholeWords words, and the
// unit alone otherwise.
func (x *Text) renderRange(i int) (from, to int) {
	s := x.sents[i]
	w := s.whole
	switch {
	case w[1] <= w[0] || s.From == w[0] && s.To == w[1]:
		return s.From, s.To
	case w[1]-w[0] <= maxWholeWords:
		return w[0], w[1]
	case s.To-w[0] <= maxWholeWords:
		return w[0], x.clauseEnd(s.To, w[0], min(w[1], w[0]+maxWholeWords))
	}
	f := x.clauseStart(s.From, w[0], s.To)
	return f, x.clauseEnd(s.To, f, min(w[1], f+maxWholeWords))
}

// clauseReach is how far (in words) renderRange moves the end of a piece
// of a long sentence forward (and its start backward) to meet a clause
// break, clauseBack the other way.
const (
	clauseReach = 20
	clauseBack  = 10
)

// clauseEnd returns where a piece of a long sentence that ends at to
// should end: at the nearest clause break (a word with ",", ";", ":" or
// a dash after it) up to clauseReach words later (and no later than hi),
// else up to clauseBack words earlier,
// so that what a summary quotes ends where a clause does ("estimates
// vary widely, according to ..." rather than "in particular the fire
// Fox"); to when there is none. The piece keeps at least five words
// after from.
func (x *Text) clauseEnd(to, from, hi int) int {
	for e := to; e <= min(hi, to+clauseReach); e++ {
		if e > 0 && e-from >= 5 && x.toks[e-1].EndsClause() {
			return e
		}
	}
	for e := to - 1; e >= max(from+5, to-clauseBack); e-- {
		if x.toks[e-1].EndsClause() {
			return e
		}
	}
	return to
}

// clauseStart is clauseEnd for the start of a piece: the nearest word
// after a clause break up to clauseReach words earlier (down to lo),
// else up to clauseBack words later; from when there is none.
func (x *Text) clauseStart(from, lo, to int) int {
	for f := from; f >= max(lo, from-clauseReach); f-- {
		if f == lo || f > 0 && x.toks[f-1].EndsClause() {
			return f
		}
	}
	for f := from + 1; f <= min(to-5, from+clauseBack); f++ {
		if x.toks[f-1].EndsClause() {
			return f
		}
	}
	return from
}

// rendered returns the chosen units idx (in text order) as the ranges a
// summary quotes (renderRange), each once: units of one sentence give it
// once, and ranges that overlap are quoted as one.
func (x *Text) rendered(idx []int) (units []int, ranges [][2]int) {
	for _, i := range idx {
		f, t := x.renderRange(i)
		dup := false
		for k, r := range ranges {
			if f < r[1] && r[0] < t {
				// Inside, around or overlapping: quote the words once (a
				// piece moved to a clause break can reach into its
				// neighbour's range).
				ranges[k] = [2]int{min(f, r[0]), max(t, r[1])}
				dup = true
			}
			if dup {
				break
			}
		}
		if !dup {
			units = append(units, i)
			ranges = append(ranges, [2]int{f, t})
		}
	}
	return units, ranges
}

// sentenceText returns the text of unit i as it appears in a summary
// (the words of renderRange, see rangeText).
func (x *Text) sentenceText(i int) string {
	f, t := x.renderRange(i)
	return x.rangeText(f, t)
}

// rangeText returns words [from, to) as a summary sentence: leading
// discourse words removed, the first letter capitalized and
// sentence-final punctuation ensured.
func (x *Text) rangeText(from, to int) string {
	toks := x.toks[from:to]
	k := 0
	for k < len(toks)-3 {
		tk := toks[k]
		comma := strings.HasPrefix(tk.Post, ",")
		if strings.ContainsAny(tk.Post, ".?!") || !(leadIns[tk.Norm] || commaLeadIns[tk.Norm] && comma) {
			break
		}
		k++
	}
	words := make([]string, 0, len(toks)-k)
	for _, w := range x.words[from+k : to] {
		if w.Text != "" {
			words = append(words, w.Text)
		}
	}
	out := strings.Join(words, " ")
	if k > 0 {
		out = strings.TrimLeft(out, ",;: ")
	}
	return finish(capitalize(out))
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// finish ends s with sentence-final punctuation, replacing a trailing
// comma or similar.
func finish(s string) string {
	s = strings.TrimRight(s, " ,;:-—")
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".?!…\"”'") {
		return s
	}
	return s + "."
}
