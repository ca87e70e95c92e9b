package topics

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// labelled is one paragraph of a labelled set and its expected tier-1
// category.
type labelled struct {
	want, text string
}

// readSet reads testdata/<name>: "Tier1 | text" per line.
func readSet(t testing.TB, name string) []labelled {
	t.Helper()
	var out []labelled
	for _, p := range nlptest.ReadPairs(t, "testdata/"+name) {
		out = append(out, labelled{p.Label, p.Text})
	}
	return out
}

// result of scoring a set: how often the first label's tier-1 category
// was the expected one.
type setScore struct {
	n, ok      int
	categories map[string]bool
	misses     []string
}

func (s setScore) accuracy() float64 { return float64(s.ok) / float64(max(s.n, 1)) }

// tier1 returns the tier-1 part of a label.
func tier1(label string) string { l, _, _ := strings.Cut(label, ">"); return l }

// scoreSet classifies the words of every paragraph of the set.
func scoreSet(t testing.TB, set []labelled, words [][]transcribe.Word) setScore {
	t.Helper()
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	s := setScore{categories: map[string]bool{}}
	for i, x := range set {
		labels := c.ClassifyStems(Stems(words[i]), 5, 0)
		s.n++
		s.categories[x.want] = true
		if len(labels) > 0 && tier1(labels[0].Label) == x.want {
			s.ok++
			continue
		}
		var got []string
		for _, l := range labels {
			got = append(got, fmt.Sprintf("%s %.2f", l.Label, l.Relevance))
		}
		s.misses = append(s.misses, fmt.Sprintf("want %s, got [%s] for %q", x.want, strings.Join(got, ", "), transcribe.JoinWords(words[i])))
	}
	return s
}

func referenceWords(set []labelled) [][]transcribe.Word {
	out := make([][]transcribe.Word, len(set))
	for i, x := range set {
		out[i] = nlptest.Words(x.text)
	}
	return out
}

func logScore(t *testing.T, name string, s setScore) {
	t.Helper()
	var cats []string
	for c := range s.categories {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	t.Logf("%s: right tier-1 label first for %d of %d paragraphs (%.1f%%), %d tier-1 categories", name, s.ok, s.n, 100*s.accuracy(), len(cats))
	for _, m := range s.misses {
		t.Logf("%s miss: %s", name, m)
	}
}

// TestDevSetReference measures the classifier on the development set, the
// paragraphs its keyword profiles and constants were tuned on.
func TestDevSetReference(t *testing.T) {
	t.Parallel()
	set := readSet(t, "dev.txt")
	s := scoreSet(t, set, referenceWords(set))
	logScore(t, "dev (reference text)", s)
	if s.accuracy() < 0.9 {
		t.Errorf("dev set: %.1f%% < 90%%", 100*s.accuracy())
	}
}

// TestTestSetReference measures the classifier on the held-out test set's
// reference text (what a perfect recognizer and formatter would give). The
// target: the right tier-1 label first for at least 80% of the paragraphs.
func TestTestSetReference(t *testing.T) {
	t.Parallel()
	set := readSet(t, "test.txt")
	s := scoreSet(t, set, referenceWords(set))
	logScore(t, "test (reference text)", s)
	if s.n < 40 || len(s.categories) < 15 {
		t.Fatalf("test set has %d paragraphs from %d tier-1 categories; want at least 40 from 15", s.n, len(s.categories))
	}
	if s.accuracy() < 0.8 {
		t.Errorf("test set: right tier-1 label first for %.1f%% < 80%%", 100*s.accuracy())
	}
}

// TestTestSetRecognized speaks the held-out test set with flite, recognizes
// it with pocketsphinx, formats the words with the default textfmt stages
// and measures the classifier on the result. Recognition errors (see the
// word error rate it prints) bound what any classifier can do here; the
// floor guards against regressions.
func TestTestSetRecognized(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes about fifteen minutes of speech (cached after the first run)")
	}
	set := readSet(t, "test.txt")
	texts := make([]string, len(set))
	for i, x := range set {
		texts[i] = x.text
	}
	words := nlptest.Recognize(t, texts)
	errs, n := 0.0, 0
	for i, x := range set {
		wer, k := nlptest.WordErrorRate(x.text, words[i])
		errs += wer * float64(k)
		n += k
	}
	t.Logf("recognizer word error rate on the test set: %.1f%% (%d words)", 100*errs/float64(n), n)
	s := scoreSet(t, set, words)
	logScore(t, "test (recognized speech)", s)
	if s.accuracy() < recognizedFloor {
		t.Errorf("recognized test set: right tier-1 label first for %.1f%% < %.0f%%", 100*s.accuracy(), 100*recognizedFloor)
	}
}

// recognizedFloor is the accuracy the recognized test set must keep
// (measured: 80.8% at a word error rate of 16.3%).
const recognizedFloor = 0.77
