package punctmodel

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// TrainOptions configure Train.
type TrainOptions struct {
	Bits     uint   // log2 of the weight table rows (default 20)
	TurnBits uint   // log2 of the turn-end table (default 18)
	Epochs   int    // passes over the data (default 3)
	Seed     uint64 // seeds the pause simulation and the book order
	// Pauses draws the simulated pause after a word with the given mark
	// (default SimulatePause).
	Pauses func(r *rand.Rand, m Mark, paragraphEnd bool) int64
	// Lexicon, when set, holds the counts of the casing lexicon (default:
	// counted on docs).
	Lexicon *LexiconCounter
	// Progress, when set, is called after each epoch.
	Progress func(epoch int, errors, examples int)
	// Noise is the rate of recognition errors simulated in the training
	// words, drawn anew at each epoch (see Garble). Default 0: the text as
	// written.
	Noise float64
}

// Garble returns words with recognition errors simulated at the given
// rate, as a recognizer mishears read text: of the errors, 60 %
// substitute the word by another word of the text, 20 % delete it (its
// mark, when stronger, passes to the word before) and 20 % insert a word
// of the text after it (with no mark). marks, paraEnd and turn follow the
// words.
func Garble(r *rand.Rand, rate float64, words []string, marks []Mark, paraEnd, turn []bool) ([]string, []Mark, []bool, []bool) {
	n := len(words)
	ow, om := make([]string, 0, n+n/8), make([]Mark, 0, n+n/8)
	op, ot := make([]bool, 0, n+n/8), make([]bool, 0, n+n/8)
	for i, w := range words {
		u := r.Float64()
		switch {
		case u < rate*0.6:
			w = words[r.IntN(n)]
		case u < rate*0.8 && len(ow) > 0 && !turn[i] && !paraEnd[i]:
			j := len(ow) - 1
			if marks[i] > om[j] {
				om[j] = marks[i]
			}
			continue
		}
		ow, om, op, ot = append(ow, w), append(om, marks[i]), append(op, paraEnd[i]), append(ot, turn[i])
		if u >= rate*0.8 && u < rate && !turn[i] && !paraEnd[i] {
			// The inserted word takes the mark; the word before it none.
			j := len(ow) - 1
			ow, om, op, ot = append(ow, words[r.IntN(n)]), append(om, om[j]), append(op, false), append(ot, false)
			om[j] = None
		}
	}
	return ow, om, op, ot
}

// Doc is one document (a book or play): its paragraphs' tokens and, in a
// play, who speaks each paragraph.
type Doc struct {
	Paras    [][]Token
	Speakers []string
}

// newDoc tokenizes the paragraphs of a text.
func newDoc(ps []Paragraph) Doc {
	var d Doc
	for _, p := range ps {
		if t := Tokenize(p.Text); len(t) > 0 {
			d.Paras = append(d.Paras, t)
			d.Speakers = append(d.Speakers, p.Speaker)
		}
	}
	return d
}

// Flatten returns the document's words, gold marks, the positions where
// paragraphs end and those where the speaker changes after the word.
func (d Doc) Flatten() (words []string, marks []Mark, paraEnd, turn []bool) {
	for pi, p := range d.Paras {
		for i, t := range p {
			words = append(words, t.Word)
			marks = append(marks, t.Mark)
			last := i == len(p)-1
			paraEnd = append(paraEnd, last)
			turn = append(turn, last && pi+1 < len(d.Paras) && d.Speakers[pi] != "" &&
				d.Speakers[pi+1] != "" && d.Speakers[pi] != d.Speakers[pi+1])
		}
	}
	return
}

// SimulatePause draws the pause (ms) a speaker leaves after a word with
// mark m, as pocketsphinx reports it (the gap between one word's end and
// the next word's start). Text has no pauses, so training draws them from
// this distribution, measured on recognized speech of training-split text
// (`go run ./internal/cmd/trainpunct -pauses`, see the package
// documentation, "Pauses"): most words run into the next with no gap, a
// gap is 23 times likelier after a sentence end and 19 times after a
// comma, and its length says little more. paragraphEnd is accepted for
// other distributions and not used here.
func SimulatePause(r *rand.Rand, m Mark, paragraphEnd bool) int64 {
	_ = paragraphEnd
	logn := func(median, sigma float64) int64 {
		return int64(median * math.Exp(sigma*r.NormFloat64()))
	}
	u := r.Float64()
	switch m {
	case Period, Question:
		if u < 0.31 {
			return 0
		}
		return logn(100, 1.09)
	case Comma:
		if u < 0.42 {
			return 0
		}
		return logn(90, 0.69)
	}
	if u < 0.97 {
		return 0
	}
	return logn(100, 1.0)
}

// Train trains a model on docs: an averaged perceptron over the gap
// features for the marks, a logistic regression over the left-context
// features for the turn-end probability, and the casing lexicon.
func Train(docs []Doc, o TrainOptions) *Model {
	if o.Bits == 0 {
		o.Bits = 20
	}
	if o.TurnBits == 0 {
		o.TurnBits = 18
	}
	if o.Epochs == 0 {
		o.Epochs = 3
	}
	if o.Pauses == nil {
		o.Pauses = SimulatePause
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	// The turn-end head sees the pause so far, as a streaming endpointer
	// asks at a moment during the gap: the simulated pause times a
	// uniform fraction (its own generator, so that the marks' training
	// does not change with it).
	trng := rand.New(rand.NewPCG(o.Seed, 0x7e4d))
	// Simulated recognition errors have their own generator too.
	nrng := rand.New(rand.NewPCG(o.Seed, 0x9a4b))
	k := int(numMarks)
	rows := 1 << o.Bits
	w := make([]float32, rows*k)
	u := make([]float32, rows*k) // sum of c*update, for averaging
	tw := make([]float32, 1<<o.TurnBits)
	var tb float32
	// Sums of c*update of the turn-end weights, for averaging them as the
	// perceptron's: the weights of single-example gradient steps wander
	// with the last examples seen, above all the bias and the features
	// every example has.
	tu := make([]float64, len(tw))
	var tbu float64
	f := featurizer{mask: uint32(rows - 1)}
	tf := featurizer{mask: uint32(1<<o.TurnBits - 1)}
	var c float32 = 1
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	type flat struct {
		words         []string
		marks         []Mark
		paraEnd, turn []bool
	}
	flats := make([]flat, len(docs))
	for i, d := range docs {
		ws, ms, pe, tu := d.Flatten()
		flats[i] = flat{ws, ms, pe, tu}
	}
	var sc [numMarks]float32
	for ep := range o.Epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		errs, n := 0, 0
		lr := float32(0.1 / float64(ep+1))
		for _, di := range order {
			d := flats[di]
			if o.Noise > 0 {
				d.words, d.marks, d.paraEnd, d.turn = Garble(nrng, o.Noise, d.words, d.marks, d.paraEnd, d.turn)
			}
			gaps := make([]Gap, len(d.words))
			for i := range d.words {
				gaps[i] = Gap{PauseMs: o.Pauses(rng, d.marks[i], d.paraEnd[i]), Turn: d.turn[i]}
			}
			// The history features (the mark before, the sentence and
			// clause so far) are trained on the model's own marks, as
			// greedy decoding sees them at run time; the turn-end head
			// on the true sentence starts.
			st := state{}
			goldStart := 0
			for i := 0; i < len(d.words)-1; i++ {
				feats := f.gapFeatures(d.words, gaps, i, st)
				sc = [numMarks]float32{}
				for _, h := range feats {
					for cl := range k {
						sc[cl] += w[int(h)*k+cl]
					}
				}
				pred := None
				for cl := Comma; cl < numMarks; cl++ {
					if sc[cl] > sc[pred] {
						pred = cl
					}
				}
				gold := d.marks[i]
				if pred != gold {
					errs++
					for _, h := range feats {
						w[int(h)*k+int(gold)]++
						u[int(h)*k+int(gold)] += c
						w[int(h)*k+int(pred)]--
						u[int(h)*k+int(pred)] -= c
					}
				}
				c++
				n++
				// Turn end: logistic regression, left context only.
				y := float32(0)
				if gold.EndsSentence() {
					y = 1
				}
				soFar := int64(trng.Float64() * float64(gaps[i].PauseMs))
				tfe := tf.endFeatures(d.words, soFar, i, goldStart)
				s := tb
				for _, h := range tfe {
					s += tw[h]
				}
				g := (y - float32(1/(1+math.Exp(-float64(s))))) * lr
				tb += g
				tbu += float64(c) * float64(g)
				for _, h := range tfe {
					tw[h] += g
					tu[h] += float64(c) * float64(g)
				}
				if gaps[i].Turn {
					// A forced end, as Marks decodes it.
					pred = Period
					if sc[Question] > sc[Period] {
						pred = Question
					}
				}
				st = st.next(i, pred)
				if gold.EndsSentence() {
					goldStart = i + 1
				}
			}
		}
		if o.Progress != nil {
			o.Progress(ep+1, errs, n)
		}
	}
	// Average and quantise.
	var maxAbs float32
	for i := range w {
		w[i] -= u[i] / c
		maxAbs = max(maxAbs, float32(math.Abs(float64(w[i]))))
	}
	tb -= float32(tbu / float64(c))
	for i := range tw {
		tw[i] -= float32(tu[i] / float64(c))
	}
	m := &Model{bits: o.Bits, tbits: o.TurnBits, w: make([]int16, len(w)), tw: make([]int16, len(tw)), tbias: tb}
	for i, v := range w {
		m.w[i] = int16(math.Round(float64(v / maxAbs * 32767)))
	}
	var tmax float32
	for _, v := range tw {
		tmax = max(tmax, float32(math.Abs(float64(v))))
	}
	m.tsc = 32767 / max(tmax, 1e-6)
	for i, v := range tw {
		m.tw[i] = int16(math.Round(float64(v * m.tsc)))
	}
	lc := o.Lexicon
	if lc == nil {
		lc = &LexiconCounter{}
		for _, d := range docs {
			lc.Add(d)
		}
	}
	m.setLexicon(lc.Counted())
	return m
}

// LexiconCounter counts the written forms of words where their capital
// is not forced by a sentence start; Lexicon turns the counts into the
// casing lexicon. Add documents one by one (whole books: more text finds
// more names than the part the weights are trained on).
type LexiconCounter struct {
	words map[string]*formCount
	pairs map[string]*[2]int // lower, capitalised
}

type formCount struct {
	lower int
	forms map[string]int
}

// Add counts the words of d.
func (lc *LexiconCounter) Add(d Doc) { lc.AddTimes(d, 1) }

// AddTimes counts the words of d the given times: a smaller text of
// another kind (current news beside the books) weighs as much as that many
// times its size.
func (lc *LexiconCounter) AddTimes(d Doc, times int) {
	if lc.words == nil {
		lc.words, lc.pairs = map[string]*formCount{}, map[string]*[2]int{}
	}
	for _, p := range d.Paras {
		for i, t := range p {
			if i > 0 && !t.Start && !p[i-1].Start && p[i-1].Form != p[i-1].Word && t.Word != NumberWord {
				k := p[i-1].Word + " " + t.Word
				c := lc.pairs[k]
				if c == nil {
					c = &[2]int{}
					lc.pairs[k] = c
				}
				if t.Form == t.Word {
					c[0] += times
				} else {
					c[1] += times
				}
			}
			if t.Word == NumberWord || t.Word == "i" || strings.HasPrefix(t.Word, "i'") {
				continue
			}
			c := lc.words[t.Word]
			if c == nil {
				c = &formCount{}
				lc.words[t.Word] = c
			}
			if t.Form == t.Word {
				c.lower += times
			} else if !t.Start {
				if c.forms == nil {
					c.forms = map[string]int{}
				}
				c.forms[t.Form] += times
			}
		}
	}
}

// Lexicon returns the words usually written with capitals inside a
// sentence (form by lower-case word: "London", "FBI"), the words seen in
// lower case at least twice, and the pairs whose second word is usually
// capitalised after a capitalised first ("scotland yard").
func (lc *LexiconCounter) Lexicon() (cased map[string]string, known, pairs map[string]struct{}) {
	cased, known, pairs = map[string]string{}, map[string]struct{}{}, map[string]struct{}{}
	for w, c := range lc.words {
		best, bn := "", 0
		for f, n := range c.forms {
			if n > bn || (n == bn && f < best) {
				best, bn = f, n
			}
		}
		allUpper := best != "" && !strings.ContainsFunc(best, unicode.IsLower)
		switch {
		case bn >= 2 && bn > 2*c.lower && !(allUpper && (len(w) > 5 || bn < 3)):
			cased[w] = best
		case c.lower >= 2:
			known[w] = struct{}{}
		}
	}
	for k, c := range lc.pairs {
		w := k[strings.IndexByte(k, ' ')+1:]
		if _, ok := cased[w]; !ok && c[1] >= 2 && c[1] > 2*c[0] {
			pairs[k] = struct{}{}
		}
	}
	return cased, known, pairs
}

func sortStrings(s []string) { slices.Sort(s) }
