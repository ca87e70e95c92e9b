// Package nb is a multinomial naive Bayes text classifier over word
// features (stems), with a compact, deterministic text format for its
// counts. Package topics uses it to weigh the IAB tier-1 families of a
// text; internal/cmd/traintopics trains it.
//
// The model stores, for every class, the count of every vocabulary
// feature seen in its training documents, and the class's members (the
// IAB tier-1 categories a class stands for). Classification uses uniform
// class priors, so a class's share of the training data does not bias
// the answer (news sets are mostly politics), and one of two
// smoothings: add-α (Laplace/Lidstone), or, when the model has a Prior
// μ, Dirichlet-prior smoothing towards the pooled distribution of all
// classes,
//
//	P(f | c) = (count(f, c) + μ P(f)) / (total(c) + μ),
//	P(f) = (count(f) + α) / (total + α V),
//
// the usual choice in text retrieval (Zhai and Lafferty, SIGIR 2001). A
// class trained on few words (a keyword profile, a category with a few
// dozen news records) is then close to the pooled distribution, with
// its own words raised, instead of giving every word it never saw the
// same small count α: under add-α an everyday word such a class lacks
// ("weekend", "price") counted against it as strongly as a word of
// another topic. Posterior turns the log-likelihoods into
// probabilities tempered by the text's length: naive Bayes treats words
// as independent, so its raw posteriors are near 0 or 1 after a few
// words; dividing the log-likelihoods by 1 + n/Tempering (n counted
// features) keeps short texts uncertain and long ones decisive.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: Trainer, which
// the training command uses through its methods, and ErrFormat.
package nb

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Model is a trained classifier. It is immutable once built and safe for
// concurrent use.
type Model struct {
	// Classes are the class names, in the model's order.
	Classes []string
	// Members lists, for each class, the labels it stands for.
	Members [][]string
	// Alpha is the smoothing count added to every feature of every class.
	Alpha float64
	// Tempering is the number of features at which log-likelihoods are
	// halved before the softmax (see the package doc).
	Tempering float64
	// Prior is the μ of Dirichlet-prior smoothing (see the package doc);
	// 0 means add-Alpha smoothing. Alpha then smooths the pooled
	// distribution.
	Prior float64

	counts map[string][]float64 // feature -> count per class
	totals []float64            // features counted per class
	all    float64              // features counted over all classes
}

// ErrFormat is wrapped by the errors of Read for a malformed model.
var ErrFormat = errors.New("nb: malformed model")

// Trainer accumulates training documents.
type Trainer struct {
	classes []string
	members [][]string
	index   map[string]int
	counts  map[string][]float64
}

// NewTrainer starts a model over classes, each standing for its members.
func NewTrainer(classes []string, members [][]string) *Trainer {
	t := &Trainer{classes: classes, members: members, index: map[string]int{}, counts: map[string][]float64{}}
	for i, c := range classes {
		t.index[c] = i
	}
	return t
}

// Add counts the features of one document of class c, each weight
// times. It fails for an unknown class.
func (t *Trainer) Add(c string, features []string, weight float64) error {
	i, ok := t.index[c]
	if !ok {
		return fmt.Errorf("nb: unknown class %q", c)
	}
	for _, f := range features {
		if f == "" || strings.ContainsAny(f, " \t\n") {
			continue
		}
		v := t.counts[f]
		if v == nil {
			v = make([]float64, len(t.classes))
			t.counts[f] = v
		}
		v[i] += weight
	}
	return nil
}

// Model returns the model of the documents added so far, keeping the
// features counted at least minCount times over all classes, with add-α
// smoothing.
func (t *Trainer) Model(alpha, tempering float64, minCount float64) *Model {
	return t.ModelPrior(alpha, 0, tempering, minCount)
}

// ModelPrior is Model with Dirichlet-prior smoothing of strength prior
// (μ; 0 is add-α smoothing, as Model).
func (t *Trainer) ModelPrior(alpha, prior, tempering float64, minCount float64) *Model {
	m := &Model{Classes: t.classes, Members: t.members, Alpha: alpha, Tempering: tempering, Prior: prior,
		counts: map[string][]float64{}, totals: make([]float64, len(t.classes))}
	for f, v := range t.counts {
		s := 0.0
		for _, x := range v {
			s += x
		}
		if s < minCount {
			continue
		}
		w := make([]float64, len(v))
		for i, x := range v {
			w[i] = math.Round(x*100) / 100 // what Write keeps
			m.totals[i] += w[i]
		}
		m.counts[f] = w
	}
	m.sumTotals()
	return m
}

// sumTotals sets all from totals.
func (m *Model) sumTotals() {
	m.all = 0
	for _, x := range m.totals {
		m.all += x
	}
}

// Vocabulary returns the number of features the model knows.
func (m *Model) Vocabulary() int { return len(m.counts) }

// LogLikelihoods returns, per class, the sum over the known features of
// log P(feature | class), and how many features were known.
func (m *Model) LogLikelihoods(features []string) ([]float64, int) {
	ll := make([]float64, len(m.Classes))
	v := float64(len(m.counts))
	n := 0
	for _, f := range features {
		c, ok := m.counts[f]
		if !ok {
			continue
		}
		n++
		if m.Prior > 0 {
			s := 0.0
			for _, x := range c {
				s += x
			}
			pooled := m.Prior * (s + m.Alpha) / (m.all + m.Alpha*v)
			for i := range ll {
				ll[i] += math.Log((c[i] + pooled) / (m.totals[i] + m.Prior))
			}
			continue
		}
		for i := range ll {
			ll[i] += math.Log((c[i] + m.Alpha) / (m.totals[i] + m.Alpha*v))
		}
	}
	return ll, n
}

// Posterior returns the probability of each class given the features,
// tempered by length (see the package doc), and the number of known
// features. With no known feature it returns the uniform distribution.
func (m *Model) Posterior(features []string) ([]float64, int) {
	ll, n := m.LogLikelihoods(features)
	t := 1.0
	if m.Tempering > 0 {
		t += float64(n) / m.Tempering
	}
	best := math.Inf(-1)
	for _, x := range ll {
		best = max(best, x)
	}
	p := make([]float64, len(ll))
	sum := 0.0
	for i, x := range ll {
		p[i] = math.Exp((x - best) / t)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p, n
}

// Write writes the model in its text format, gzip-compressed:
//
//	nb 1
//	alpha <α>
//	prior <μ>                             (only when Prior > 0)
//	tempering <n>
//	class <name> <member,member,...>      (one line per class, in order)
//	<feature> <class index>:<count> ...   (one line per feature, sorted)
//
// The output is the same bytes for the same model.
func (m *Model) Write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	fmt.Fprintf(bw, "nb 1\nalpha %s\n", fnum(m.Alpha))
	if m.Prior > 0 {
		fmt.Fprintf(bw, "prior %s\n", fnum(m.Prior))
	}
	fmt.Fprintf(bw, "tempering %s\n", fnum(m.Tempering))
	for i, c := range m.Classes {
		fmt.Fprintf(bw, "class %s %s\n", c, strings.Join(m.Members[i], ","))
	}
	fs := make([]string, 0, len(m.counts))
	for f := range m.counts {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	for _, f := range fs {
		bw.WriteString(f)
		for i, x := range m.counts[f] {
			if x != 0 {
				fmt.Fprintf(bw, " %d:%s", i, fnum(x))
			}
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

func fnum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// Read reads a model written by Write.
func Read(r io.Reader) (*Model, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	m := &Model{counts: map[string][]float64{}}
	line := 0
	bad := func(msg string) error { return fmt.Errorf("%w: line %d: %s", ErrFormat, line, msg) }
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		switch {
		case line == 1:
			if len(f) != 2 || f[0] != "nb" || f[1] != "1" {
				return nil, bad("not an nb 1 model")
			}
		case len(f) == 0:
			return nil, bad("empty line")
		case f[0] == "alpha" && len(f) == 2 && len(m.counts) == 0:
			if m.Alpha, err = strconv.ParseFloat(f[1], 64); err != nil || m.Alpha <= 0 {
				return nil, bad("alpha must be a positive number")
			}
		case f[0] == "prior" && len(f) == 2 && len(m.counts) == 0:
			if m.Prior, err = strconv.ParseFloat(f[1], 64); err != nil || !(m.Prior > 0) || math.IsInf(m.Prior, 0) {
				return nil, bad("prior must be a positive number")
			}
		case f[0] == "tempering" && len(f) == 2 && len(m.counts) == 0:
			if m.Tempering, err = strconv.ParseFloat(f[1], 64); err != nil || m.Tempering < 0 {
				return nil, bad("tempering must be a number ≥ 0")
			}
		case f[0] == "class" && len(f) == 3 && len(m.counts) == 0:
			m.Classes = append(m.Classes, f[1])
			m.Members = append(m.Members, strings.Split(f[2], ","))
		default:
			if len(m.Classes) == 0 {
				return nil, bad("feature before the classes")
			}
			v := make([]float64, len(m.Classes))
			for _, p := range f[1:] {
				is, xs, ok := strings.Cut(p, ":")
				i, err1 := strconv.Atoi(is)
				x, err2 := strconv.ParseFloat(xs, 64)
				if !ok || err1 != nil || err2 != nil || i < 0 || i >= len(v) || x < 0 || math.IsInf(x, 0) {
					return nil, bad(fmt.Sprintf("bad count %q", p))
				}
				v[i] = x
			}
			if _, dup := m.counts[f[0]]; dup {
				return nil, bad(fmt.Sprintf("feature %q twice", f[0]))
			}
			m.counts[f[0]] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if m.Alpha <= 0 || len(m.Classes) == 0 {
		return nil, fmt.Errorf("%w: no alpha or no classes", ErrFormat)
	}
	m.totals = make([]float64, len(m.Classes))
	for _, v := range m.counts {
		for i, x := range v {
			m.totals[i] += x
		}
	}
	m.sumTotals()
	return m, nil
}

// Checksum returns the hex SHA-256 of b (a model file), as recorded next
// to a committed model.
func Checksum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Bytes returns the model in the format of Write.
func (m *Model) Bytes() ([]byte, error) {
	var b bytes.Buffer
	err := m.Write(&b)
	return b.Bytes(), err
}

// Spread returns how much more often than in all classes together the
// feature occurs in the class where it is most frequent: (count in class
// ÷ that class's total) ÷ (count in all ÷ total of all), at least 1 for
// a known feature; 0 for an unknown one. A word of every topic ("new",
// "first") is near 1, a topic's own word far above.
func (m *Model) Spread(feature string) float64 {
	cs, ok := m.counts[feature]
	if !ok || m.all == 0 {
		return 0
	}
	sum, best := 0.0, 0.0
	for k, c := range cs {
		sum += c
		if m.totals[k] > 0 {
			best = math.Max(best, c/m.totals[k])
		}
	}
	if sum == 0 {
		return 0
	}
	return best / (sum / m.all)
}
