package diarize

import (
	"math"
	"math/cmplx"
	"sort"
)

// Frame geometry shared by every step: 25 ms analysis windows every 10 ms.
const (
	frameMS = 10 // hop
	winMS   = 25 // window
)

// features are per-frame MFCCs and log energies of one channel.
type features struct {
	mfcc   [][]float64 // [frame][coef], c1..cN (c0 dropped)
	energy []float64   // log10 frame energy (variance of samples / 32768^2)
}

// mfccExtractor computes MFCCs for one sample rate; it is built once per
// call and holds scratch buffers, so it is not shared between goroutines.
type mfccExtractor struct {
	rate, win, hop, nfft int
	window               []float64
	filters              [][]melWeight // per mel band: (bin, weight)
	dct                  [][]float64   // [coef][band]
	buf, tw              []complex128
	power                []float64
	logmel               []float64
}

type melWeight struct {
	bin int
	w   float64
}

func hzToMel(f float64) float64 { return 1127 * math.Log(1+f/700) }
func melToHz(m float64) float64 { return 700 * (math.Exp(m/1127) - 1) }

func newMFCCExtractor(rate, bands, coefs int) *mfccExtractor {
	e := &mfccExtractor{rate: rate, win: rate * winMS / 1000, hop: rate * frameMS / 1000}
	e.nfft = 1
	for e.nfft < e.win {
		e.nfft <<= 1
	}
	e.window = make([]float64, e.win)
	for i := range e.window {
		e.window[i] = 0.54 - 0.46*math.Cos(2*math.Pi*float64(i)/float64(e.win-1))
	}
	lo, hi := hzToMel(100), hzToMel(math.Min(7600, float64(rate)/2))
	centers := make([]float64, bands+2)
	for i := range centers {
		centers[i] = melToHz(lo + (hi-lo)*float64(i)/float64(bands+1))
	}
	binHz := float64(rate) / float64(e.nfft)
	e.filters = make([][]melWeight, bands)
	for b := 0; b < bands; b++ {
		l, c, r := centers[b], centers[b+1], centers[b+2]
		for k := int(l / binHz); k <= int(r/binHz)+1 && k <= e.nfft/2; k++ {
			f := float64(k) * binHz
			var w float64
			switch {
			case f > l && f <= c:
				w = (f - l) / (c - l)
			case f > c && f < r:
				w = (r - f) / (r - c)
			}
			if w > 0 {
				e.filters[b] = append(e.filters[b], melWeight{k, w})
			}
		}
	}
	e.dct = make([][]float64, coefs)
	for c := range e.dct {
		e.dct[c] = make([]float64, bands)
		for b := 0; b < bands; b++ {
			e.dct[c][b] = math.Cos(math.Pi * float64(c+1) * (float64(b) + 0.5) / float64(bands))
		}
	}
	e.buf = make([]complex128, e.nfft)
	e.tw = twiddles(e.nfft)
	e.power = make([]float64, e.nfft/2+1)
	e.logmel = make([]float64, bands)
	return e
}

// extract returns one feature vector per 10 ms hop of samples. A trailing
// partial window is zero-padded.
func (e *mfccExtractor) extract(samples []int16) features {
	n := 0
	if len(samples) > 0 {
		n = (len(samples) + e.hop - 1) / e.hop
	}
	f := features{mfcc: make([][]float64, n), energy: make([]float64, n)}
	flat := make([]float64, n*len(e.dct))
	for i := 0; i < n; i++ {
		start := i * e.hop
		var sq, sum float64
		prev := 0.0
		if start > 0 {
			prev = float64(samples[start-1]) / 32768
		}
		for j := 0; j < e.nfft; j++ {
			if j >= e.win || start+j >= len(samples) {
				e.buf[j] = 0
				continue
			}
			x := float64(samples[start+j]) / 32768
			sq += x * x
			sum += x
			e.buf[j] = complex((x-0.97*prev)*e.window[j], 0)
			prev = x
		}
		// energy of the frame without its DC offset
		win := float64(min(e.win, len(samples)-start))
		f.energy[i] = math.Log10(math.Max(sq/win-(sum/win)*(sum/win), 0) + 1e-10)
		fft(e.buf, e.tw)
		for k := range e.power {
			c := e.buf[k]
			e.power[k] = real(c)*real(c) + imag(c)*imag(c)
		}
		for b, fl := range e.filters {
			s := 1e-10
			for _, mw := range fl {
				s += mw.w * e.power[mw.bin]
			}
			e.logmel[b] = math.Log(s)
		}
		v := flat[i*len(e.dct) : (i+1)*len(e.dct)]
		for c, row := range e.dct {
			s := 0.0
			for b, x := range e.logmel {
				s += row[b] * x
			}
			v[c] = s
		}
		f.mfcc[i] = v
	}
	return f
}

// fft is an in-place iterative radix-2 FFT; len(a) must be a power of two
// and tw[k] = exp(-2πik/len(a)) for k < len(a)/2.
func fft(a, tw []complex128) {
	n := len(a)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		half, stride := size/2, n/size
		for start := 0; start < n; start += size {
			for k := 0; k < half; k++ {
				u, v := a[start+k], a[start+k+half]*tw[k*stride]
				a[start+k], a[start+k+half] = u+v, u-v
			}
		}
	}
}

func twiddles(n int) []complex128 {
	tw := make([]complex128, n/2)
	for k := range tw {
		tw[k] = cmplx.Exp(complex(0, -2*math.Pi*float64(k)/float64(n)))
	}
	return tw
}

// span is a half-open range of frames [from, to).
type span struct{ from, to int }

func (s span) len() int { return s.to - s.from }

// detectSpeech marks speech frames by log energy against an adaptive
// threshold (between the recording's noise floor and its loud frames),
// bridges gaps shorter than bridge frames and drops runs shorter than
// minRun frames.
func detectSpeech(energy []float64, thresholdDB float64, bridge, minRun int) []span {
	if len(energy) == 0 {
		return nil
	}
	sorted := append([]float64(nil), energy...)
	sort.Float64s(sorted)
	floor := sorted[len(sorted)/10]
	peak := sorted[len(sorted)*97/100]
	// energy is log10 power: 1 unit = 10 dB.
	thr := math.Max(floor+0.2*(peak-floor), peak-thresholdDB/10)
	if peak-floor < 1 { // less than 10 dB of dynamic range: no speech contrast
		thr = math.Max(thr, -6) // only clearly audible frames
	}
	var runs []span
	in := false
	for i, e := range energy {
		switch {
		case e >= thr && !in:
			runs = append(runs, span{i, i + 1})
			in = true
		case e >= thr:
			runs[len(runs)-1].to = i + 1
		default:
			in = false
		}
	}
	var out []span
	for _, r := range runs {
		if n := len(out); n > 0 && r.from-out[n-1].to < bridge {
			out[n-1].to = r.to
			continue
		}
		out = append(out, r)
	}
	kept := out[:0]
	for _, r := range out {
		if r.len() >= minRun {
			kept = append(kept, r)
		}
	}
	return kept
}
