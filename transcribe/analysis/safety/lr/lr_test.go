package lr

import (
	"bytes"
	"math"
	"testing"
)

// TestTrain: the trainer separates a toy set with and without the naive
// Bayes scale, gives the same bytes on every run, and the curve helpers
// read its probabilities.
func TestTrain(t *testing.T) {
	var docs [][]string
	var y []bool
	for i := 0; i < 40; i++ {
		docs = append(docs, []string{"vile", "those", "x"}, []string{"nice", "those", "y"}, []string{"nice", "day", "x"})
		y = append(y, true, false, false)
	}
	for _, nb := range []float64{0, 0.5} {
		o := Options{L2: 1e-3, Iterations: 100, PosWeight: 2, MinCount: 2, Prune: 0.01, NB: nb}
		m := Train(docs, y, o)
		if p, q := m.Probability([]string{"vile", "those"}), m.Probability([]string{"nice", "those"}); p < 0.9 || q > 0.1 {
			t.Errorf("NB %v: probabilities %.3f (positive) and %.3f (negative)", nb, p, q)
		}
		m.Threshold = 0.5
		a, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Train(docs, y, o).withThreshold(0.5).Bytes()
		if !bytes.Equal(a, b) {
			t.Errorf("NB %v: two runs gave different models", nb)
		}
		r, err := Read(bytes.NewReader(a))
		if err != nil || r.Features() != m.Features() || r.Weight("vile") != m.Weight("vile") {
			t.Errorf("NB %v: read back %v features (%v), want %d", nb, r.Features(), err, m.Features())
		}
	}
	// Options without Iterations train (DefaultIterations), not a model
	// of zero weights.
	if m := Train(docs, y, Options{MinCount: 2}); m.Probability([]string{"vile", "those"}) < 0.6 {
		t.Errorf("zero Options: probability %.3f of a positive", m.Probability([]string{"vile", "those"}))
	}
	c := Curve([]float64{0.9, 0.8, 0.7, 0.6}, []bool{true, false, true, false})
	if c.PrecisionAt(0.5) != 1 || c.PrecisionAt(1) != 2.0/3 || math.Abs(c.AveragePrecision()-(1+2.0/3)/2) > 1e-12 {
		t.Errorf("curve: precision at 0.5 %v, at 1 %v, average %v", c.PrecisionAt(0.5), c.PrecisionAt(1), c.AveragePrecision())
	}
}

func (m *Model) withThreshold(t float64) *Model { m.Threshold = t; return m }
