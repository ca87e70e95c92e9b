package punctmodel

import "fmt"

// F1 counts hits of one kind of mark.
type F1 struct{ TP, FP, FN int }

// Precision, Recall and F return the figures (0 when undefined).
func (f F1) Precision() float64 { return ratio(f.TP, f.TP+f.FP) }

// Recall is TP / (TP + FN).
func (f F1) Recall() float64 { return ratio(f.TP, f.TP+f.FN) }

// F is the harmonic mean of precision and recall.
func (f F1) F() float64 {
	p, r := f.Precision(), f.Recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func (f F1) String() string {
	return fmt.Sprintf("F1 %.3f (P %.3f R %.3f, %d/%d/%d)", f.F(), f.Precision(), f.Recall(), f.TP, f.FP, f.FN)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (f *F1) add(gold, pred bool) {
	switch {
	case gold && pred:
		f.TP++
	case pred:
		f.FP++
	case gold:
		f.FN++
	}
}

// Scores are the figures of predicted marks against gold marks.
type Scores struct {
	SentenceEnd F1 // "." or "?" where the gold has "." or "?"
	Question    F1
	Comma       F1
}

// Score compares pred with gold, gap by gap. The last gap (the end of the
// text, where every method ends a sentence) is not counted.
func Score(gold, pred []Mark) Scores {
	var s Scores
	for i := 0; i+1 < len(gold) && i+1 < len(pred); i++ {
		s.Add(gold[i], pred[i])
	}
	return s
}

// Add counts one gap.
func (s *Scores) Add(gold, pred Mark) {
	s.SentenceEnd.add(gold.EndsSentence(), pred.EndsSentence())
	s.Question.add(gold == Question, pred == Question)
	s.Comma.add(gold == Comma, pred == Comma)
}

// Merge adds o's counts to s.
func (s *Scores) Merge(o Scores) {
	for _, p := range [][2]*F1{{&s.SentenceEnd, &o.SentenceEnd}, {&s.Question, &o.Question}, {&s.Comma, &o.Comma}} {
		p[0].TP += p[1].TP
		p[0].FP += p[1].FP
		p[0].FN += p[1].FN
	}
}
