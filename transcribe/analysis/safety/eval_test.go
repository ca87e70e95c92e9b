package safety

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

type labelled struct {
	labels []string // gold labels; empty for a safe segment
	text   string
}

// readSet reads "labels | segment" lines of testdata/name.
func readSet(t testing.TB, name string) []labelled {
	t.Helper()
	var out []labelled
	for _, p := range nlptest.ReadPairs(t, "testdata/"+name) {
		var labels []string
		for _, l := range strings.Split(p.Label, ",") {
			if l = strings.TrimSpace(l); l != "none" {
				if !slices.Contains(Labels(), l) {
					t.Fatalf("%s: unknown label %q", name, l)
				}
				labels = append(labels, l)
			}
		}
		out = append(out, labelled{labels, p.Text})
	}
	return out
}

// scores counts per-label true and false positives and false negatives.
type scores struct {
	tp, fp, fn map[string]int
	errs       []string
}

func newScores() *scores {
	return &scores{tp: map[string]int{}, fp: map[string]int{}, fn: map[string]int{}}
}

func (s *scores) add(gold, got []string, text string) {
	for _, g := range got {
		if slices.Contains(gold, g) {
			s.tp[g]++
		} else {
			s.fp[g]++
			s.errs = append(s.errs, fmt.Sprintf("extra %s: %s", g, text))
		}
	}
	for _, g := range gold {
		if !slices.Contains(got, g) {
			s.fn[g]++
			s.errs = append(s.errs, fmt.Sprintf("missed %s (got %v): %s", g, got, text))
		}
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func (s *scores) precision() float64 { return ratio(sum(s.tp), sum(s.tp)+sum(s.fp)) }
func (s *scores) recall() float64    { return ratio(sum(s.tp), sum(s.tp)+sum(s.fn)) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (s *scores) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s %4s %4s %4s %9s %7s\n", "label", "gold", "tp", "fp", "precision", "recall")
	for _, l := range Labels() {
		g := s.tp[l] + s.fn[l]
		fmt.Fprintf(&b, "%-24s %4d %4d %4d %8.0f%% %6.0f%%\n", l, g, s.tp[l], s.fp[l],
			100*ratio(s.tp[l], s.tp[l]+s.fp[l]), 100*ratio(s.tp[l], g))
	}
	fmt.Fprintf(&b, "all (micro)                %4d %4d %8.1f%% %6.1f%%", sum(s.tp), sum(s.fp), 100*s.precision(), 100*s.recall())
	return b.String()
}

// labelsOf runs the stage (default content_safety_confidence 50) on
// words and returns the labels of all its results.
func labelsOf(t testing.TB, ws []transcribe.Word) []string {
	t.Helper()
	tr := nlptest.Transcript(ws)
	r, err := Stage{}.Analyze(context.Background(), tr, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, res := range r.Results {
		for _, l := range res.Labels {
			if !slices.Contains(out, l.Label) {
				out = append(out, l.Label)
			}
		}
	}
	sort.Strings(out)
	return out
}

func evaluate(t testing.TB, set []labelled, words [][]transcribe.Word) *scores {
	s := newScores()
	for i, l := range set {
		s.add(l.labels, labelsOf(t, words[i]), transcribe.JoinWords(words[i]))
	}
	return s
}

func referenceWords(set []labelled) [][]transcribe.Word {
	out := make([][]transcribe.Word, len(set))
	for i, l := range set {
		out[i] = nlptest.Words(l.text)
	}
	return out
}

// covers fails unless every label has at least min gold segments and
// there are safe segments.
func covers(t *testing.T, set []labelled, min int) {
	t.Helper()
	n := map[string]int{}
	for _, l := range set {
		for _, g := range l.labels {
			n[g]++
		}
		if len(l.labels) == 0 {
			n["none"]++
		}
	}
	for _, l := range append(Labels(), "none") {
		if n[l] < min {
			t.Errorf("%d segments labelled %s, want at least %d", n[l], l, min)
		}
	}
}

// TestDevSet reports precision and recall on the dev set (the segments
// the lexicon was tuned on), with every error.
func TestDevSet(t *testing.T) {
	t.Parallel()
	set := readSet(t, "dev.txt")
	covers(t, set, 3)
	s := evaluate(t, set, referenceWords(set))
	t.Logf("dev set (tuned on), %d segments:\n%v", len(set), s)
	for _, e := range s.errs {
		t.Log(e)
	}
	if s.precision() < 0.9 || s.recall() < 0.85 {
		t.Errorf("dev precision %.1f%% recall %.1f%%", 100*s.precision(), 100*s.recall())
	}
}

// TestHeldOutReference measures the held-out test set as written.
// Targets: precision 90%, recall 80%.
func TestHeldOutReference(t *testing.T) {
	t.Parallel()
	set := readSet(t, "test.txt")
	covers(t, set, 3)
	if len(set) < 60 {
		t.Fatalf("%d segments, want at least 60", len(set))
	}
	s := evaluate(t, set, referenceWords(set))
	t.Logf("held-out test set, reference text, %d segments:\n%v", len(set), s)
	if s.precision() < 0.9 || s.recall() < 0.8 {
		t.Errorf("held-out precision %.1f%% (target 90%%), recall %.1f%% (target 80%%)", 100*s.precision(), 100*s.recall())
	}
}

// TestHeldOutRecognized speaks the held-out set with flite, recognizes it
// with pocketsphinx and formats it, then measures the stage on what was
// recognized. Floors are lower than on reference text: names such as
// "Naruto" or "fentanyl" are outside the recognizer's vocabulary.
func TestHeldOutRecognized(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes about six minutes of speech")
	}
	t.Parallel()
	set := readSet(t, "test.txt")
	texts := make([]string, len(set))
	for i, l := range set {
		texts[i] = l.text
	}
	recs := nlptest.Recognize(t, texts)
	wer, nw := 0.0, 0
	for i, ws := range recs {
		e, n := nlptest.WordErrorRate(texts[i], ws)
		wer += e * float64(n)
		nw += n
	}
	s := evaluate(t, set, recs)
	t.Logf("held-out test set, flite + pocketsphinx (word error rate %.1f%% over %d words):\n%v", 100*wer/float64(nw), nw, s)
	if s.precision() < 0.8 || s.recall() < 0.6 {
		t.Errorf("recognized precision %.1f%% (floor 80%%), recall %.1f%% (floor 60%%)", 100*s.precision(), 100*s.recall())
	}
}
