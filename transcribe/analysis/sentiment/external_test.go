package sentiment

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jonreiter/govader"
)

// modelSHA256 is the checksum trainsentiment printed with the figures in
// doc.go ("Measured quality"): the committed model.json is that model.
const modelSHA256 = "216a1a944860a7853cc93acb977251b06501aa542d59e9147ab0e015914e71c8"

func TestModelChecksum(t *testing.T) {
	t.Parallel()
	if got := ModelSHA256(); got != modelSHA256 {
		t.Fatalf("model.json has sha256 %s, the figures describe %s: retrain with internal/cmd/trainsentiment and update doc.go", got, modelSHA256)
	}
	m, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	if m.Source == "" {
		t.Error("model.json names no training data")
	}
	if _, err := LoadModel([]byte(`{"weights": "x"}`)); err == nil {
		t.Error("a malformed model loaded")
	}
}

// plainVaderLabel is govader as published, with the thresholds VADER's
// documentation gives (compound ±0.05): the baseline.
func plainVaderLabel(a *govader.SentimentIntensityAnalyzer, text string) string {
	c := a.PolarityScores(text).Compound
	switch {
	case c >= 0.05:
		return Positive
	case c <= -0.05:
		return Negative
	}
	return Neutral
}

type ratedSet struct {
	name string
	rs   []Rated
}

// scoreRated returns the accuracy of the analyser and of plain VADER on
// rated sentences (gold labels from GoldLabel).
func scoreRated(t testing.TB, rs []Rated) (ours, plain float64) {
	t.Helper()
	a := govader.NewSentimentIntensityAnalyzer()
	okO, okP := 0, 0
	for _, r := range rs {
		gold := GoldLabel(r.Rating)
		got, err := Analyzer{}.Classify(r.Text)
		if err != nil {
			t.Fatal(err)
		}
		if got.Sentiment == gold {
			okO++
		}
		if plainVaderLabel(a, r.Text) == gold {
			okP++
		}
	}
	n := float64(max(len(rs), 1))
	return float64(okO) / n, float64(okP) / n
}

// TestVADERSample scores the committed held-out sample of VADER's
// human-rated sets (testdata/vader-heldout-sample.tsv, MIT): the model
// must beat plain VADER on the sample as a whole and stay above a floor
// on each set.
func TestVADERSample(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/vader-heldout-sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sets := map[string][]Rated{}
	var all []Rated
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.SplitN(line, "\t", 4)
		if len(p) != 4 {
			t.Fatalf("bad line %q", line)
		}
		v, err := strconv.ParseFloat(p[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		if !HeldOut(p[0], p[1]) {
			t.Fatalf("%s/%s is not in the held-out half", p[0], p[1])
		}
		r := Rated{ID: p[1], Rating: v, Text: p[3]}
		sets[p[0]] = append(sets[p[0]], r)
		all = append(all, r)
	}
	for _, name := range VADERSets {
		ours, plain := scoreRated(t, sets[name])
		t.Logf("%-22s n=%d  model %.1f%%  plain VADER %.1f%%", name, len(sets[name]), 100*ours, 100*plain)
		if ours < 0.5 {
			t.Errorf("%s: accuracy %.1f%% below the 50%% floor", name, 100*ours)
		}
	}
	ours, plain := scoreRated(t, all)
	t.Logf("all %d: model %.1f%%  plain VADER %.1f%%", len(all), 100*ours, 100*plain)
	if ours < plain {
		t.Errorf("model %.1f%% below plain VADER's %.1f%% on the committed sample", 100*ours, 100*plain)
	}
}

// TestVADERExternal scores the held-out half of each of VADER's four
// human-rated sets, next to plain VADER, when EARSHOT_VADER_DATA names
// the unpacked hutto_ICWSM_2014 directory (see doc.go).
func TestVADERExternal(t *testing.T) {
	dir := os.Getenv("EARSHOT_VADER_DATA")
	if dir == "" {
		t.Skip("EARSHOT_VADER_DATA not set (directory of VADER's *_GroundTruth.txt)")
	}
	t.Parallel()
	var sets []ratedSet
	for _, name := range VADERSets {
		f, err := os.Open(filepath.Join(dir, name+"_GroundTruth.txt"))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ReadRated(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var held []Rated
		for _, r := range rs {
			if HeldOut(name, r.ID) {
				held = append(held, r)
			}
		}
		sets = append(sets, ratedSet{name, held})
	}
	out := fmt.Sprintf("%-22s %6s %8s %12s\n", "held-out half", "n", "model", "plain VADER")
	for _, s := range sets {
		ours, plain := scoreRated(t, s.rs)
		out += fmt.Sprintf("%-22s %6d %7.1f%% %11.1f%%\n", s.name, len(s.rs), 100*ours, 100*plain)
		// The target, met on every set: at least plain VADER's accuracy.
		if ours < plain {
			t.Errorf("%s: model %.2f%% below plain VADER's %.2f%%", s.name, 100*ours, 100*plain)
		}
	}
	t.Log("\n" + out)
}
