// Package lr is a binary logistic-regression text classifier over sparse
// binary features, with a deterministic trainer and a compact text format
// for its weights. Package safety uses it for hate speech;
// internal/cmd/trainsafety trains it.
//
// Training minimises the mean log loss plus an L2 penalty by full-batch
// gradient descent with a fixed step and a fixed number of passes, from
// zero weights, visiting documents in their given order: the same data
// give the same weights on every machine. Positive documents can be
// weighted (PosWeight) to make up for a rare class.
package lr

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

// Model is a trained classifier; immutable and safe for concurrent use.
type Model struct {
	// Bias is the intercept.
	Bias float64
	// Threshold is the probability at or above which a text is positive
	// (chosen on a dev set by the trainer's caller).
	Threshold float64
	w         map[string]float64
}

// ErrFormat is wrapped by Read's errors for a malformed model.
var ErrFormat = errors.New("lr: malformed model")

// Options are the training settings.
type Options struct {
	L2        float64 // penalty on the squared weights
	Step      float64 // gradient step
	Passes    int     // full passes over the data
	PosWeight float64 // weight of a positive document (1 if zero)
	MinCount  int     // a feature must occur in this many documents
	Prune     float64 // weights smaller than this in size are dropped
}

// Train fits a model to docs (each a list of features; repeats count
// once) and their labels.
func Train(docs [][]string, y []bool, o Options) *Model {
	if o.PosWeight == 0 {
		o.PosWeight = 1
	}
	df := map[string]int{}
	for _, d := range docs {
		for _, f := range uniq(d) {
			df[f]++
		}
	}
	names := make([]string, 0, len(df))
	for f, n := range df {
		if n >= o.MinCount {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	index := make(map[string]int, len(names))
	for i, f := range names {
		index[f] = i
	}
	xs := make([][]int, len(docs))
	for i, d := range docs {
		for _, f := range uniq(d) {
			if j, ok := index[f]; ok {
				xs[i] = append(xs[i], j)
			}
		}
	}
	w := make([]float64, len(names))
	g := make([]float64, len(names))
	bias, total := 0.0, 0.0
	for i := range docs {
		total += weightOf(y[i], o.PosWeight)
	}
	for pass := 0; pass < o.Passes; pass++ {
		clear(g)
		gb := 0.0
		for i, x := range xs {
			z := bias
			for _, j := range x {
				z += w[j]
			}
			target := 0.0
			if y[i] {
				target = 1
			}
			d := (sigmoid(z) - target) * weightOf(y[i], o.PosWeight)
			gb += d
			for _, j := range x {
				g[j] += d
			}
		}
		bias -= o.Step * gb / total
		for j := range w {
			w[j] -= o.Step * (g[j]/total + o.L2*w[j])
		}
	}
	m := &Model{Bias: round(bias), w: map[string]float64{}}
	for j, f := range names {
		if r := round(w[j]); r != 0 && math.Abs(r) >= o.Prune {
			m.w[f] = r
		}
	}
	return m
}

func weightOf(pos bool, pw float64) float64 {
	if pos {
		return pw
	}
	return 1
}

// round keeps four decimals, what Write keeps.
func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func uniq(d []string) []string {
	seen := make(map[string]bool, len(d))
	out := d[:0:0]
	for _, f := range d {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// Probability returns the model's probability that a text with these
// features is positive.
func (m *Model) Probability(features []string) float64 {
	z := m.Bias
	for _, f := range uniq(features) {
		z += m.w[f]
	}
	return sigmoid(z)
}

// Weight returns a feature's weight (0 when unknown).
func (m *Model) Weight(f string) float64 { return m.w[f] }

// Features returns the number of features with a weight.
func (m *Model) Features() int { return len(m.w) }

// Write writes the model, gzip-compressed:
//
//	lr 1
//	bias <b>
//	threshold <t>
//	<feature> <weight>     (one line per feature, sorted; spaces in a
//	                        feature written as "_")
//
// The output is the same bytes for the same model.
func (m *Model) Write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	fmt.Fprintf(bw, "lr 1\nbias %s\nthreshold %s\n", fnum(m.Bias), fnum(m.Threshold))
	fs := make([]string, 0, len(m.w))
	for f := range m.w {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	for _, f := range fs {
		fmt.Fprintf(bw, "%s %s\n", strings.ReplaceAll(f, " ", "_"), fnum(m.w[f]))
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

func fnum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// Bytes returns the model in the format of Write.
func (m *Model) Bytes() ([]byte, error) {
	var b bytes.Buffer
	err := m.Write(&b)
	return b.Bytes(), err
}

// Read reads a model written by Write.
func Read(r io.Reader) (*Model, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	sc := bufio.NewScanner(zr)
	m := &Model{w: map[string]float64{}}
	line := 0
	bad := func(msg string) error { return fmt.Errorf("%w: line %d: %s", ErrFormat, line, msg) }
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if line == 1 {
			if len(f) != 2 || f[0] != "lr" || f[1] != "1" {
				return nil, bad("not an lr 1 model")
			}
			continue
		}
		if len(f) != 2 {
			return nil, bad("want two fields")
		}
		x, err := strconv.ParseFloat(f[1], 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, bad(fmt.Sprintf("bad number %q", f[1]))
		}
		switch {
		case line == 2:
			if f[0] != "bias" {
				return nil, bad("want bias")
			}
			m.Bias = x
		case line == 3:
			if f[0] != "threshold" || x <= 0 || x >= 1 {
				return nil, bad("want threshold in (0, 1)")
			}
			m.Threshold = x
		default:
			k := strings.ReplaceAll(f[0], "_", " ")
			if _, dup := m.w[k]; dup {
				return nil, bad(fmt.Sprintf("feature %q twice", k))
			}
			m.w[k] = x
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if line < 3 {
		return nil, fmt.Errorf("%w: no bias or threshold", ErrFormat)
	}
	return m, nil
}

// Checksum returns the hex SHA-256 of b (a model file).
func Checksum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
