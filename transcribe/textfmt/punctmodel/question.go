package punctmodel

import (
	"crypto/sha256"
	_ "embed" // the committed classifier
	"encoding/hex"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// Questions is the sentence-level question classifier: once the marks'
// decoder has placed the sentence ends, it decides for each sentence
// whether it ends with "?" or ".", from the whole sentence (its first
// words and last words, the question shape of its start and of each of
// its clauses, a tag such as "isn't it", its length, its words) and the
// decoder's own choice. The decoder decides at each gap from the words
// around it, where "." and "?" are two of four marks and "?" is rare; here
// the sentence is known and the choice is between two.
type Questions struct {
	bits uint
	w    []float32
	// Threshold is the log-odds over which a sentence is a question
	// (tuned on development data).
	Threshold float32
}

// The committed question classifier (see the package documentation,
// "Questions"); Default uses it.
//
//go:embed questions.bin.gz
var questionsFile []byte

// QuestionsChecksum returns the SHA-256 (hex) of the committed question
// classifier file.
func QuestionsChecksum() string {
	s := sha256.Sum256(questionsFile)
	return hex.EncodeToString(s[:])
}

// Questions returns the model's question classifier (nil when its
// sentence ends are "?" or "." as the decoder decides).
func (m *Model) Questions() *Questions { return m.q }

// magicQ begins a question classifier file.
const magicQ = "EQUEST01"

// sentenceFeatures returns the hashed features of the sentence of ws from
// start to end (inclusive); marks are the decoder's marks (clauses start
// after a comma), pauseMs the pause after the sentence.
func (f *featurizer) sentenceFeatures(ws []string, marks []Mark, margin int32, start, end int, pauseMs int64) []uint32 {
	f.out = f.out[:0]
	s0, s1, s2 := at(ws, start), "</s>", "</s>"
	if start+1 <= end {
		s1 = at(ws, start+1)
	}
	if start+2 <= end {
		s2 = at(ws, start+2)
	}
	e0, e1, e2 := at(ws, end), "<s>", "<s>"
	if end-1 >= start {
		e1 = at(ws, end-1)
	}
	if end-2 >= start {
		e2 = at(ws, end-2)
	}
	n := lenBucket(end - start + 1)
	qs := qshape(ws, start, end)
	f.add("b")
	f.add("s0", s0)
	f.add("s0s1", s0, s1)
	f.add("s0s1s2", s0, s1, s2)
	f.add("qs", qs)
	f.add("qsn", qs, n)
	f.add("qss1", qs, s1)
	f.add("e0", e0)
	f.add("e1e0", e1, e0)
	f.add("e2e1e0", e2, e1, e0)
	f.add("n", n)
	f.add("p", strconv.Itoa(pauseBucket(pauseMs)))
	f.add("fp", marks[end].String())
	f.add("fpqs", marks[end].String(), qs)
	mb := strconv.Itoa(int(max(-8, min(8, margin/2000))))
	f.add("qm", mb)
	f.add("qmqs", mb, qs)
	if auxWords[e1] && subjects[e0] {
		f.add("tag", e1)
		f.add("tagqs", qs)
	}
	last := start
	for j := start; j < end; j++ {
		if marks[j] == Comma {
			c := j + 1
			q := qshape(ws, c, end)
			f.add("cq", q)
			f.add("c0c1", at(ws, c), at(ws, min(c+1, end)))
			last = c
		}
	}
	if last > start {
		q := qshape(ws, last, end)
		f.add("lcq", q)
		f.add("lc0c1", at(ws, last), at(ws, min(last+1, end)))
		f.add("lcqn", q, lenBucket(end-last+1))
	}
	for j := start; j <= end; j++ {
		f.add("bw", ws[j])
	}
	return f.out
}

// logit returns the classifier's log-odds that the sentence is a question.
func (q *Questions) logit(f *featurizer, ws []string, marks []Mark, margin int32, start, end int, pauseMs int64) float32 {
	var s float32
	for _, h := range f.sentenceFeatures(ws, marks, margin, start, end, pauseMs) {
		s += q.w[h]
	}
	return s
}

// apply rewrites each sentence end in marks as "?" or "." by the
// classifier.
func (q *Questions) apply(ws []string, gaps []Gap, marks []Mark, margins []int32) {
	f := featurizer{mask: 1<<q.bits - 1}
	start := 0
	for i := range marks {
		if !marks[i].EndsSentence() {
			continue
		}
		var pause int64
		if i < len(gaps) {
			pause = gaps[i].PauseMs
		}
		if q.logit(&f, ws, marks, margins[i], start, i, pause) > q.Threshold {
			marks[i] = Question
		} else {
			marks[i] = Period
		}
		start = i + 1
	}
}

// WithQuestions returns a copy of m, sharing its tables, whose sentence
// ends are "?" or "." as q decides (nil: as the decoder decides).
func (m *Model) WithQuestions(q *Questions) *Model {
	c := *m
	c.q = q
	return &c
}

// QuestionSentence is one sentence of training data for TrainQuestions:
// the words and the decoder's marks of its text, and the sentence's span
// and label.
type questionSentence struct {
	doc        int
	start, end int
	pause      int64
	y          bool
}

// TrainQuestions trains the question classifier on docs: each is read
// with pauses simulated from its gold marks (seeded), its sentence ends
// placed by m's decoder, and each sentence so found is a question when
// the gold mark at its end is "?" (a sentence end the decoder placed
// where the gold has none is not a question). A logistic regression,
// fitted by AdaGrad over epochs passes with weights averaged.
func TrainQuestions(m *Model, docs []Doc, bits uint, epochs int, seed uint64) *Questions {
	if bits == 0 {
		bits = 18
	}
	if epochs == 0 {
		epochs = 3
	}
	base := m.WithQuestions(nil)
	rng := rand.New(rand.NewPCG(seed, 0x9e57))
	type text struct {
		words   []string
		marks   []Mark
		margins []int32
	}
	texts := make([]text, len(docs))
	var sents []questionSentence
	for di, d := range docs {
		ws, gold, pe, tu := d.Flatten()
		if len(ws) == 0 {
			continue
		}
		gaps := make([]Gap, len(ws))
		for i := range ws {
			gaps[i] = Gap{PauseMs: SimulatePause(rng, gold[i], pe[i]), Turn: tu[i]}
		}
		dec := base.decode(ws, gaps)
		marks := dec.marks
		texts[di] = text{ws, marks, dec.qMargin}
		start := 0
		for i, mk := range marks {
			if mk.EndsSentence() {
				sents = append(sents, questionSentence{doc: di, start: start, end: i, pause: gaps[i].PauseMs, y: gold[i] == Question})
				start = i + 1
			}
		}
	}
	f := featurizer{mask: uint32(1<<bits - 1)}
	q := &Questions{bits: bits, w: fitLogistic(len(sents), func(k int) ([]uint32, bool) {
		s := sents[k]
		t := texts[s.doc]
		return f.sentenceFeatures(t.words, t.marks, t.margins[s.end], s.start, s.end, s.pause), s.y
	}, bits, epochs, rng)}
	return q
}

// fitLogistic fits a logistic regression over n examples (example k's
// hashed features and label), by AdaGrad over epochs passes in a shuffled
// order, and returns the weights averaged over the steps.
func fitLogistic(n int, example func(k int) ([]uint32, bool), bits uint, epochs int, rng *rand.Rand) []float32 {
	rows := 1 << bits
	w := make([]float64, rows)
	g2 := make([]float64, rows)
	avg := make([]float64, rows)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	const eta = 0.1
	steps := 0.0
	for range epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			feats, yes := example(k)
			var z float64
			for _, h := range feats {
				z += w[h]
			}
			y := 0.0
			if yes {
				y = 1
			}
			g := 1/(1+math.Exp(-z)) - y
			steps++
			for _, h := range feats {
				g2[h] += g * g
				d := eta * g / math.Sqrt(g2[h]+1e-8)
				w[h] -= d
				// avg accumulates the weights' sum over steps lazily: a
				// step's change counts for every later step.
				avg[h] -= d * steps
			}
		}
	}
	out := make([]float32, rows)
	for i := range w {
		out[i] = float32(w[i] - avg[i]/max(steps, 1))
	}
	return out
}

// Write writes q (gzip of a binary body, see hashed.go).
func (q *Questions) Write(w io.Writer) error {
	return writeHashed(w, magicQ, q.bits, q.Threshold, q.w, nil)
}

// ReadQuestions reads a classifier written by Questions.Write.
func ReadQuestions(r io.Reader) (*Questions, error) {
	bits, th, w, _, err := readHashed(r, magicQ, "question")
	if err != nil {
		return nil, err
	}
	return &Questions{bits: bits, w: w, Threshold: th}, nil
}
