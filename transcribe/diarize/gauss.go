package diarize

import "math"

// gstats are the additive sufficient statistics of a full-covariance
// Gaussian: frame count, sum of vectors and sum of outer products (upper
// triangle, row-major). Adding two gstats pools their frames.
type gstats struct {
	n   float64
	sum []float64
	sxx []float64
}

func newGstats(d int) gstats {
	return gstats{sum: make([]float64, d), sxx: make([]float64, d*(d+1)/2)}
}

func (g *gstats) addFrame(x []float64) {
	g.n++
	k := 0
	for i, xi := range x {
		g.sum[i] += xi
		for j := i; j < len(x); j++ {
			g.sxx[k] += xi * x[j]
			k++
		}
	}
}

func (g *gstats) add(o gstats) {
	g.n += o.n
	for i := range g.sum {
		g.sum[i] += o.sum[i]
	}
	for i := range g.sxx {
		g.sxx[i] += o.sxx[i]
	}
}

func (g gstats) clone() gstats {
	return gstats{n: g.n, sum: append([]float64(nil), g.sum...), sxx: append([]float64(nil), g.sxx...)}
}

func plus(a, b gstats) gstats {
	c := a.clone()
	c.add(b)
	return c
}

// gaussian is a full-covariance Gaussian ready for likelihoods.
type gaussian struct {
	mean []float64
	chol []float64 // lower-triangular Cholesky factor of the covariance, d*d
	// logNorm is -0.5*(d*log(2π) + log|Σ|).
	logNorm float64
}

// cov returns the (regularized) covariance as a dense d*d matrix.
func (g gstats) cov(reg float64) []float64 {
	d := len(g.sum)
	c := make([]float64, d*d)
	n := math.Max(g.n, 1)
	k := 0
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := g.sxx[k]/n - g.sum[i]/n*g.sum[j]/n
			if i == j {
				v += reg
			}
			c[i*d+j], c[j*d+i] = v, v
			k++
		}
	}
	return c
}

// cholesky factors a symmetric positive definite d*d matrix in place into
// its lower triangle; it returns false when the matrix is not positive
// definite.
func cholesky(a []float64, d int) bool {
	for j := 0; j < d; j++ {
		s := a[j*d+j]
		for k := 0; k < j; k++ {
			s -= a[j*d+k] * a[j*d+k]
		}
		if s <= 0 || math.IsNaN(s) {
			return false
		}
		a[j*d+j] = math.Sqrt(s)
		for i := j + 1; i < d; i++ {
			s := a[i*d+j]
			for k := 0; k < j; k++ {
				s -= a[i*d+k] * a[j*d+k]
			}
			a[i*d+j] = s / a[j*d+j]
		}
		for k := j + 1; k < d; k++ {
			a[j*d+k] = 0
		}
	}
	return true
}

// factor returns the Cholesky factor of the covariance, raising the
// regularization until it is positive definite; a covariance that stays
// broken (non-finite statistics) falls back to the identity.
func (g gstats) factor(reg float64) []float64 {
	d := len(g.sum)
	for try := 0; try < 12; try++ {
		c := g.cov(reg)
		if cholesky(c, d) {
			return c
		}
		reg = math.Max(reg*10, 1e-6)
	}
	c := make([]float64, d*d)
	for i := 0; i < d; i++ {
		c[i*d+i] = 1
	}
	return c
}

// logdet returns log|Σ| of the regularized covariance.
func (g gstats) logdet(reg float64) float64 {
	d := len(g.sum)
	c := g.factor(reg)
	s := 0.0
	for i := 0; i < d; i++ {
		s += math.Log(c[i*d+i])
	}
	return 2 * s
}

func (g gstats) gaussian(reg float64) gaussian {
	d := len(g.sum)
	c := g.factor(reg)
	ld := 0.0
	for i := 0; i < d; i++ {
		ld += 2 * math.Log(c[i*d+i])
	}
	mean := make([]float64, d)
	n := math.Max(g.n, 1)
	for i := range mean {
		mean[i] = g.sum[i] / n
	}
	return gaussian{mean: mean, chol: c, logNorm: -0.5 * (float64(d)*math.Log(2*math.Pi) + ld)}
}

// logLik returns log N(x; mean, Σ); tmp is scratch of length d.
func (g gaussian) logLik(x, tmp []float64) float64 {
	d := len(x)
	// Solve L y = (x - mean); Mahalanobis distance is |y|^2.
	m := 0.0
	for i := 0; i < d; i++ {
		s := x[i] - g.mean[i]
		for k := 0; k < i; k++ {
			s -= g.chol[i*d+k] * tmp[k]
		}
		tmp[i] = s / g.chol[i*d+i]
		m += tmp[i] * tmp[i]
	}
	return g.logNorm - 0.5*m
}

// deltaBIC is the Bayesian information criterion gain of modelling a and b
// with one Gaussian instead of two; below zero means "same speaker".
func deltaBIC(a, b gstats, lambda, reg float64) float64 {
	return deltaBICWith(a, b, a.logdet(reg), b.logdet(reg), lambda, reg)
}

// deltaBICWith is deltaBIC given log|Σ| of a and b.
func deltaBICWith(a, b gstats, ldA, ldB, lambda, reg float64) float64 {
	d := float64(len(a.sum))
	n := a.n + b.n
	ab := plus(a, b)
	r := 0.5 * (n*ab.logdet(reg) - a.n*ldA - b.n*ldB)
	p := 0.5 * (d + d*(d+1)/2) * math.Log(n)
	return r - lambda*p
}

// glrPerFrame is the generalized likelihood ratio of modelling a and b
// with two Gaussians instead of one, per frame: a distance between
// speakers that, unlike ΔBIC, does not grow with the amount of speech.
func glrPerFrame(a, b gstats, reg float64) float64 {
	ab := plus(a, b)
	return 0.5 * (ab.n*ab.logdet(reg) - a.n*a.logdet(reg) - b.n*b.logdet(reg)) / ab.n
}
