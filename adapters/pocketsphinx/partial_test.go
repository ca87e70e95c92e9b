package pocketsphinx

import (
	"math"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// TestPartialConfidence streams real speech (pocketsphinx-testdata's
// LibriVox clips) in 100 ms chunks: every word of every partial hypothesis
// has a confidence in 0..1, the words of the utterance still being
// decoded have one above 0, and those confidences are on the scale of the
// posteriors the same words get in the final: their mean is within 0.1 of
// the finals' mean, and they follow the finals (the partial words that the
// final keeps with a posterior of 0.9 or more average a higher confidence
// than those it keeps below 0.5).
func TestPartialConfidence(t *testing.T) {
	t.Parallel()
	r := rec(t)
	clips := testaudio.Librivox(t)
	var open, sumPartial, sumFinal float64
	var hi, lo []float64
	for _, clip := range clips[:3] {
		pcm := wav(t, clip)
		st, err := r.NewStream(t.Context(), transcribe.StreamOptions{SampleRate: SampleRate})
		if err != nil {
			t.Fatal(err)
		}
		var partials []transcribe.Word // words of the open utterance
		var finals []transcribe.Word
		done := 0 // words of the hypothesis from finished stretches
		for i := 0; i+1600 <= len(pcm); i += 1600 {
			if err := st.Write(pcm[i : i+1600]); err != nil {
				t.Fatal(err)
			}
			h, err := st.Partial()
			if err != nil {
				t.Fatal(err)
			}
			s := st.(*Stream).s
			done = len(s.done)
			for j, w := range h.Words {
				if !(w.Confidence >= 0 && w.Confidence <= 1) || math.IsNaN(w.Confidence) {
					t.Fatalf("%s: partial word %q has confidence %v", clip, w.Text, w.Confidence)
				}
				if j >= done {
					if w.Confidence <= 0 {
						t.Errorf("%s: word %q of the open utterance has confidence %v", clip, w.Text, w.Confidence)
					}
					partials = append(partials, w)
				}
			}
		}
		h, err := st.EndUtterance()
		if err != nil {
			t.Fatal(err)
		}
		finals = h.Words
		st.Close()
		for _, p := range partials {
			for _, f := range finals {
				if f.Text == p.Text && abs(f.Start-p.Start) <= 30 {
					open++
					sumPartial += p.Confidence
					sumFinal += f.Confidence
					if f.Confidence >= 0.9 {
						hi = append(hi, p.Confidence)
					} else if f.Confidence < 0.5 {
						lo = append(lo, p.Confidence)
					}
					break
				}
			}
		}
	}
	if open < 100 || len(hi) == 0 || len(lo) == 0 {
		t.Fatalf("%d partial words matched a final (%d sure, %d doubtful): too few to judge", int(open), len(hi), len(lo))
	}
	mp, mf := sumPartial/open, sumFinal/open
	t.Logf("%d partial words kept by their final: mean confidence %.3f while partial, %.3f final; %.3f for %d sure words, %.3f for %d doubtful ones",
		int(open), mp, mf, mean(hi), len(hi), mean(lo), len(lo))
	if math.Abs(mp-mf) > 0.1 {
		t.Errorf("mean partial confidence %.3f, final %.3f: not on the same scale", mp, mf)
	}
	if mean(hi) <= mean(lo) {
		t.Errorf("partial confidence %.3f for words the final is sure of, %.3f for doubtful ones", mean(hi), mean(lo))
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
