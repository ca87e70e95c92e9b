package sentiment

import (
	"math"
	"testing"
)

// FuzzClassify checks that any text gets one of the three labels with a
// confidence in [0.5, 1] and a score in [-1, 1], without panicking.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"", "Great!", "not not not bad", "nobody nobody happy happy", "can't believe ~ ~", "Well, like, okay.", "\xff\x00 [PERSON_NAME] ##### —", "on hold on hold charged twice"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Analyzer{}.Classify(s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Sentiment != Positive && r.Sentiment != Neutral && r.Sentiment != Negative {
			t.Fatalf("label %q", r.Sentiment)
		}
		if !(r.Confidence >= 0.5 && r.Confidence <= 1) || math.IsNaN(r.Score) || r.Score < -1 || r.Score > 1 {
			t.Fatalf("%q: %+v", s, r)
		}
	})
}
