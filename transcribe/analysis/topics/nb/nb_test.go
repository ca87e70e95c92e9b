package nb

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// small trains a model where "pets" has a short profile and "news" many
// words and a large vocabulary, as the topics model's keyword-only
// classes and news classes.
func small(t *testing.T, prior float64) *Model {
	t.Helper()
	tr := NewTrainer([]string{"news", "pets"}, [][]string{{"News"}, {"Pets"}})
	for range 50 {
		if err := tr.Add("news", strings.Fields("minister vote weekend price election government week people"), 1); err != nil {
			t.Fatal(err)
		}
	}
	filler := make([]string, 2000)
	for i := range filler {
		filler[i] = "w" + strconv.Itoa(i)
	}
	if err := tr.Add("news", filler, 1); err != nil {
		t.Fatal(err)
	}
	if err := tr.Add("pets", strings.Fields("dog puppy vet kitten"), 1); err != nil {
		t.Fatal(err)
	}
	if err := tr.Add("nobody", []string{"x"}, 1); err == nil {
		t.Fatal("Add accepted an unknown class")
	}
	return tr.ModelPrior(0.3, prior, 8, 1)
}

func TestPriorSmoothing(t *testing.T) {
	text := strings.Fields("my dog saw the vet at the weekend price")
	add := small(t, 0)
	dir := small(t, 100)
	if add.Prior != 0 || dir.Prior != 100 {
		t.Fatalf("priors %v, %v", add.Prior, dir.Prior)
	}
	// Under add-α the pets class pays for every everyday word it never
	// saw ("weekend", "price") as for a word of another topic, so the
	// news class wins a text about a dog at the vet; with the Dirichlet
	// prior those words cost it little and its own words decide.
	pa, _ := add.Posterior(text)
	pd, n := dir.Posterior(text)
	if pa[1] >= pa[0] {
		t.Errorf("add-α: P(pets) %.3f ≥ P(news) %.3f: the case does not show the difference", pa[1], pa[0])
	}
	if n != 4 {
		t.Fatalf("known features %d, want 4", n)
	}
	if pd[1] <= pd[0] {
		t.Errorf("Dirichlet prior: P(pets) %.3f ≤ P(news) %.3f", pd[1], pd[0])
	}
	if pd[1] <= pa[1] {
		t.Errorf("P(pets) %.3f with the prior, %.3f without: want higher", pd[1], pa[1])
	}
	// Each class's smoothed distribution sums to 1 over the vocabulary.
	for _, m := range []*Model{add, dir} {
		for i := range m.Classes {
			sum := 0.0
			for f := range m.counts {
				ll, _ := m.LogLikelihoods([]string{f})
				sum += math.Exp(ll[i])
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("prior %v, class %s: probabilities sum to %v", m.Prior, m.Classes[i], sum)
			}
		}
	}
}

func TestPriorRoundTrip(t *testing.T) {
	for _, prior := range []float64{0, 100} {
		m := small(t, prior)
		b, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		r, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if r.Prior != prior || r.Alpha != m.Alpha || r.Tempering != m.Tempering {
			t.Errorf("read back alpha %v prior %v tempering %v, want %v %v %v", r.Alpha, r.Prior, r.Tempering, m.Alpha, prior, m.Tempering)
		}
		text := strings.Fields("dog weekend minister")
		a, _ := m.LogLikelihoods(text)
		c, _ := r.LogLikelihoods(text)
		for i := range a {
			if math.Abs(a[i]-c[i]) > 1e-12 {
				t.Errorf("prior %v: log-likelihoods %v after reading, %v before", prior, c, a)
			}
		}
		if b2, _ := r.Bytes(); !bytes.Equal(b, b2) {
			t.Errorf("prior %v: written again, the bytes differ", prior)
		}
		// A model without a prior is written without the line, so the
		// files of models trained before it are unchanged.
		if has := bytes.Contains(gunzip(t, b), []byte("\nprior ")); has != (prior > 0) {
			t.Errorf("prior %v: prior line written: %v", prior, has)
		}
	}
}

func TestReadBadPrior(t *testing.T) {
	for _, v := range []string{"0", "-1", "x", "Inf", "NaN"} {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte("nb 1\nalpha 0.3\nprior " + v + "\ntempering 8\nclass a A\nf 0:1\n"))
		zw.Close()
		if _, err := Read(&b); !errors.Is(err, ErrFormat) {
			t.Errorf("prior %s: err %v, want ErrFormat", v, err)
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestSpread: a feature of both classes at the same rate has spread 1, a
// feature of one class alone its share of all counts over that class's,
// and an unknown feature 0.
func TestSpread(t *testing.T) {
	tr := NewTrainer([]string{"a", "b"}, [][]string{{"A"}, {"B"}})
	if err := tr.Add("a", strings.Fields("common common only"), 1); err != nil {
		t.Fatal(err)
	}
	if err := tr.Add("b", strings.Fields("common common other"), 1); err != nil {
		t.Fatal(err)
	}
	m := tr.ModelPrior(0.3, 800, 8, 1)
	for _, c := range []struct {
		f    string
		want float64
	}{{"common", 1}, {"only", 2}, {"unknown", 0}} {
		if got := m.Spread(c.f); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Spread(%q) = %v, want %v", c.f, got, c.want)
		}
	}
}
