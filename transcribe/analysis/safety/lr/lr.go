// Package lr is a binary logistic-regression text classifier over sparse
// binary features, with a deterministic trainer and a compact text format
// for its weights. Package safety uses it for hate speech;
// internal/cmd/trainsafety trains it.
//
// Training minimises the weighted mean log loss plus an L2 penalty with
// full-batch L-BFGS (history 10, backtracking line search) from zero
// weights, for at most a fixed number of iterations, visiting documents
// in their given order: the same data give the same weights. Positive
// documents can be weighted (PosWeight) to make up for a rare class.
// With NB > 0 each feature is scaled by the size of its naive Bayes
// log-count ratio, |log((p_f/|p|)/(q_f/|q|))| with p_f and q_f the
// numbers of positive and negative documents holding f plus NB (Wang and
// Manning's NB-LR, ACL 2012): the penalty then favours the features that
// tell the classes apart. The scale is folded into the written weights,
// so a model reads and scores the same either way.
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
	L2         float64 // penalty on the squared weights (L2/2 × Σ w²; the bias is free)
	Iterations int     // most L-BFGS iterations (it stops earlier once the loss no longer moves; 0: DefaultIterations)
	PosWeight  float64 // weight of a positive document (1 if zero)
	MinCount   int     // a feature must occur in this many documents
	Prune      float64 // weights smaller than this in size are dropped
	NB         float64 // smoothing of the naive Bayes feature scale (0: no scaling)
}

// DefaultIterations is Options.Iterations when it is 0.
const DefaultIterations = 300

// Train fits a model to docs (each a list of features; repeats count
// once) and their labels.
func Train(docs [][]string, y []bool, o Options) *Model {
	if o.PosWeight == 0 {
		o.PosWeight = 1
	}
	if o.Iterations <= 0 {
		o.Iterations = DefaultIterations
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
	scale := nbScale(xs, y, len(names), o.NB)
	w, bias := lbfgs(xs, y, scale, o)
	m := &Model{Bias: round(bias), w: map[string]float64{}}
	for j, f := range names {
		if r := round(w[j] * scale[j]); r != 0 && math.Abs(r) >= o.Prune {
			m.w[f] = r
		}
	}
	return m
}

// nbScale returns each feature's value in training: 1, or with alpha > 0
// the size of its naive Bayes log-count ratio.
func nbScale(xs [][]int, y []bool, n int, alpha float64) []float64 {
	v := make([]float64, n)
	if alpha <= 0 {
		for j := range v {
			v[j] = 1
		}
		return v
	}
	p, q := make([]float64, n), make([]float64, n)
	for i, x := range xs {
		c := q
		if y[i] {
			c = p
		}
		for _, j := range x {
			c[j]++
		}
	}
	sp, sq := 0.0, 0.0
	for j := range p {
		p[j] += alpha
		q[j] += alpha
		sp += p[j]
		sq += q[j]
	}
	for j := range v {
		v[j] = math.Abs(math.Log((p[j] / sp) / (q[j] / sq)))
	}
	return v
}

// lbfgs minimises the weighted mean log loss of the documents xs (feature
// indexes, feature j of value v[j]) plus L2/2 × Σ w², the bias left out of
// the penalty. It returns the weights and the bias.
func lbfgs(xs [][]int, y []bool, v []float64, o Options) ([]float64, float64) {
	nf := len(v)
	n := nf + 1 // the bias last
	total := 0.0
	for i := range xs {
		total += weightOf(y[i], o.PosWeight)
	}
	total = max(total, 1)
	eval := func(w, g []float64) float64 {
		clear(g)
		loss, b := 0.0, w[nf]
		for i, x := range xs {
			z := b
			for _, j := range x {
				z += w[j] * v[j]
			}
			// log p and log(1 - p), kept finite for large |z|
			var lp, lq float64
			if z >= 0 {
				e := math.Log1p(math.Exp(-z))
				lp, lq = -e, -z-e
			} else {
				e := math.Log1p(math.Exp(z))
				lp, lq = z-e, -e
			}
			c := weightOf(y[i], o.PosWeight)
			d := c * math.Exp(lp)
			if y[i] {
				loss -= c * lp
				d -= c
			} else {
				loss -= c * lq
			}
			g[nf] += d
			for _, j := range x {
				g[j] += d * v[j]
			}
		}
		loss /= total
		for j := 0; j < nf; j++ {
			g[j] = g[j]/total + o.L2*w[j]
			loss += 0.5 * o.L2 * w[j] * w[j]
		}
		g[nf] /= total
		return loss
	}
	const history = 10
	var ss, ys [][]float64
	var rho []float64
	alpha := make([]float64, history)
	w, g := make([]float64, n), make([]float64, n)
	wn, gn, dir := make([]float64, n), make([]float64, n), make([]float64, n)
	f := eval(w, g)
	for it := 0; it < o.Iterations; it++ {
		// dir = -H g, the two-loop recursion
		copy(dir, g)
		k := len(ss)
		for i := k - 1; i >= 0; i-- {
			alpha[i] = rho[i] * dot(ss[i], dir)
			axpy(-alpha[i], ys[i], dir)
		}
		if k > 0 {
			gamma := dot(ss[k-1], ys[k-1]) / dot(ys[k-1], ys[k-1])
			for i := range dir {
				dir[i] *= gamma
			}
		}
		for i := 0; i < k; i++ {
			axpy(alpha[i]-rho[i]*dot(ys[i], dir), ss[i], dir)
		}
		for i := range dir {
			dir[i] = -dir[i]
		}
		gd := dot(g, dir)
		if gd >= 0 { // not a descent direction: restart from the gradient
			for i := range dir {
				dir[i] = -g[i]
			}
			gd = dot(g, dir)
			ss, ys, rho = nil, nil, nil
		}
		if gd == 0 {
			break
		}
		step := 1.0
		if it == 0 {
			step = 1 / math.Sqrt(-gd)
		}
		var fn float64
		for try := 0; try < 30; try++ {
			for i := range w {
				wn[i] = w[i] + step*dir[i]
			}
			if fn = eval(wn, gn); fn <= f+1e-4*step*gd {
				break
			}
			step /= 2
		}
		s, d := make([]float64, n), make([]float64, n)
		for i := range w {
			s[i], d[i] = wn[i]-w[i], gn[i]-g[i]
		}
		done := math.Abs(f-fn) < 1e-9*max(1, math.Abs(f))
		copy(w, wn)
		copy(g, gn)
		f = fn
		if sd := dot(s, d); sd > 1e-12 {
			if len(ss) == history {
				ss, ys, rho = ss[1:], ys[1:], rho[1:]
			}
			ss, ys, rho = append(ss, s), append(ys, d), append(rho, 1/sd)
		}
		if done {
			break
		}
	}
	return w[:nf], w[nf]
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// axpy adds a × x to y.
func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
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

// PR is the precision-recall curve of a classifier's probabilities on a
// labelled set, for reporting.
type PR struct {
	precision, recall []float64 // at each distinct probability, highest first
	ap                float64
}

// Curve returns the precision-recall curve of the probabilities p whose
// true labels are gold.
func Curve(p []float64, gold []bool) PR {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] > p[idx[b]] })
	pos := 0
	for _, g := range gold {
		if g {
			pos++
		}
	}
	var c PR
	if pos == 0 {
		return c
	}
	tp := 0
	for k, i := range idx {
		if gold[i] {
			tp++
			c.ap += float64(tp) / float64(k+1)
		}
		if k+1 < len(idx) && p[idx[k+1]] == p[i] {
			continue // ties count together
		}
		c.precision = append(c.precision, float64(tp)/float64(k+1))
		c.recall = append(c.recall, float64(tp)/float64(pos))
	}
	c.ap /= float64(pos)
	return c
}

// PrecisionAt returns the best precision at a threshold whose recall is
// at least r (0 if none).
func (c PR) PrecisionAt(r float64) float64 {
	best := 0.0
	for i, x := range c.recall {
		if x >= r {
			best = max(best, c.precision[i])
		}
	}
	return best
}

// AveragePrecision returns the mean of the precisions at the rank of each
// positive (the area under the curve, as scikit-learn's
// average_precision_score computes it without ties).
func (c PR) AveragePrecision() float64 { return c.ap }
