package media

import (
	"fmt"
	"math"
	"sync"
)

// Resampler quality parameters. The anti-aliasing low-pass is a
// Kaiser-windowed sinc whose stopband starts exactly at the lower of the two
// Nyquist frequencies, so everything that would alias is attenuated by at
// least resampleAtten dB; the passband is flat up to resamplePass of that
// Nyquist frequency (7.3 kHz for 16 kHz output), which keeps all of the
// speech band.
const (
	resampleAtten = 75.0 // stopband attenuation, dB
	resamplePass  = 0.86 // passband edge as a fraction of the lower Nyquist frequency
	maxPhases     = 4096 // exact polyphase tables up to this many phases
	maxTableSize  = 1 << 20
)

// Resampler converts one channel of audio from one sample rate to another
// with a windowed-sinc polyphase filter. It streams: Process may be called
// with blocks of any size and Flush ends the stream. The output is
// time-aligned with the input (the filter delay is removed) and holds
// ceil(n*out/in) samples for n input samples; equal rates copy the input.
// Not safe for concurrent use.
type Resampler struct {
	in, out int
	l, m    int64 // output position advances by m/l input samples
	phases  int64 // table phases (l, or fewer for awkward ratios)
	half    int   // filter half width in input samples
	taps    int   // 2*half
	table   []float32

	buf     []float32 // input samples from absolute index start
	start   int64
	nIn     int64 // input samples received
	nOut    int64 // output samples produced
	flushed bool
}

// NewResampler returns a resampler from rate in to rate out (Hz).
func NewResampler(in, out int) (*Resampler, error) {
	if in <= 0 || out <= 0 || in > 10_000_000 || out > 10_000_000 {
		return nil, fmt.Errorf("media: resampling %d Hz to %d Hz: rates must be between 1 Hz and 10 MHz", in, out)
	}
	g := gcd(in, out)
	r := &Resampler{in: in, out: out, l: int64(out / g), m: int64(in / g)}
	if in == out {
		return r, nil // a copy
	}
	f := filterFor(in, out, r.l)
	r.phases, r.half, r.taps, r.table = f.phases, f.half, f.taps, f.table
	// Virtual zeros before the first sample.
	r.buf = make([]float32, r.half, r.half+8192)
	r.start = -int64(r.half)
	return r, nil
}

// Rates returns the input and output sample rates.
func (r *Resampler) Rates() (in, out int) { return r.in, r.out }

// Process feeds input samples and appends the output samples that are now
// complete to dst, returning it.
func (r *Resampler) Process(dst, in []float32) []float32 {
	if r.flushed {
		return dst
	}
	if r.in == r.out {
		return append(dst, in...)
	}
	r.buf = append(r.buf, in...)
	r.nIn += int64(len(in))
	return r.run(dst, r.start+int64(len(r.buf)), r.total())
}

// Flush ends the stream and appends the remaining output samples.
func (r *Resampler) Flush(dst []float32) []float32 {
	if r.flushed || r.in == r.out {
		r.flushed = true
		return dst
	}
	r.buf = append(r.buf, make([]float32, r.taps+1)...)
	dst = r.run(dst, r.start+int64(len(r.buf)), r.total())
	r.flushed = true
	r.buf = nil
	return dst
}

// total is the output length for the input seen so far.
func (r *Resampler) total() int64 {
	return (r.nIn*r.l + r.m - 1) / r.m
}

// run produces outputs while their inputs (up to index avail-1) are present
// and fewer than limit outputs were produced.
func (r *Resampler) run(dst []float32, avail, limit int64) []float32 {
	taps := int64(r.taps)
	for r.nOut < limit {
		pos := r.nOut * r.m // in units of 1/l input samples
		base := pos / r.l
		ph := pos % r.l
		if r.phases != r.l {
			q := (ph*r.phases*2 + r.l) / (2 * r.l) // nearest table phase
			if q == r.phases {
				q, base = 0, base+1
			}
			ph = q
		}
		first := base - int64(r.half-1)
		if first+taps > avail {
			break
		}
		x := r.buf[first-r.start : first-r.start+taps]
		h := r.table[ph*taps : ph*taps+taps]
		var s0, s1, s2, s3 float32
		k := 0
		for ; k+4 <= len(h); k += 4 {
			s0 += h[k] * x[k]
			s1 += h[k+1] * x[k+1]
			s2 += h[k+2] * x[k+2]
			s3 += h[k+3] * x[k+3]
		}
		for ; k < len(h); k++ {
			s0 += h[k] * x[k]
		}
		dst = append(dst, s0+s1+s2+s3)
		r.nOut++
	}
	// Drop input no later output needs.
	next := (r.nOut*r.m)/r.l - int64(r.half)
	if drop := next - r.start; drop > 4096 && drop <= int64(len(r.buf)) {
		n := copy(r.buf, r.buf[drop:])
		r.buf = r.buf[:n]
		r.start += drop
	}
	return dst
}

// filter is a polyphase table, shared read-only by resamplers.
type filter struct {
	phases int64
	half   int
	taps   int
	table  []float32
}

// Small tables for common rate pairs are cached.
var (
	filterMu    sync.Mutex
	filterCache = map[[2]int]*filter{}
)

const (
	maxCachedTable = 1 << 18
	maxCached      = 32
)

func filterFor(in, out int, l int64) *filter {
	key := [2]int{in, out}
	filterMu.Lock()
	f := filterCache[key]
	filterMu.Unlock()
	if f != nil {
		return f
	}
	f = newFilter(in, out, l)
	if len(f.table) <= maxCachedTable {
		filterMu.Lock()
		if len(filterCache) < maxCached {
			filterCache[key] = f
		}
		filterMu.Unlock()
	}
	return f
}

func newFilter(in, out int, l int64) *filter {
	r := &filter{}
	// Work in input-sample units. ratio < 1 when downsampling.
	ratio := math.Min(1, float64(out)/float64(in))
	nyq := 0.5 * ratio                            // stopband edge, cycles per input sample
	width := nyq * (1 - resamplePass)             // transition width
	fc := nyq - width/2                           // -6 dB cutoff
	beta := 0.1102 * (resampleAtten - 8.7)        // Kaiser beta for the attenuation
	n := (resampleAtten - 7.95) / (14.36 * width) // Kaiser's estimate of the filter length
	r.half = int(math.Ceil(n / 2))
	r.taps = 2 * r.half
	r.phases = l
	if r.phases > maxPhases {
		r.phases = maxPhases
	}
	for r.phases > 16 && r.phases*int64(r.taps) > maxTableSize {
		r.phases /= 2
	}
	r.table = make([]float32, r.phases*int64(r.taps))
	// The Kaiser window, tabulated: it is smooth, so linear interpolation
	// between 8192 points is exact to float32 precision.
	const wn = 8192
	win := make([]float64, wn+2)
	i0b := bessel0(beta)
	for i := range win {
		x := math.Min(1, float64(i)/wn)
		win[i] = bessel0(beta*math.Sqrt(1-x*x)) / i0b
	}
	for p := int64(0); p < r.phases; p++ {
		frac := float64(p) / float64(r.phases) // output lies frac input samples after base
		row := r.table[p*int64(r.taps) : (p+1)*int64(r.taps)]
		sum := 0.0
		for k := range row {
			// Tap k multiplies input base + k - (half-1).
			d := frac - float64(k-(r.half-1))
			x := d / float64(r.half)
			var w float64
			if x > -1 && x < 1 {
				pos := math.Abs(x) * wn
				i := int(pos)
				w = win[i] + (win[i+1]-win[i])*(pos-float64(i))
			}
			v := 2 * fc * sinc(2*fc*d) * w
			row[k] = float32(v)
			sum += v
		}
		if sum != 0 { // unity gain at DC in every phase
			for k := range row {
				row[k] = float32(float64(row[k]) / sum)
			}
		}
	}
	return r
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// bessel0 is the modified Bessel function of the first kind, order 0.
func bessel0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 200; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

// Int16Resampler is a Resampler over 16-bit samples, for streams of PCM
// that arrive in pieces (realtime sessions, streaming recognizers): the
// output of many small calls equals the output of one big call. Not safe
// for concurrent use.
type Int16Resampler struct {
	r   *Resampler
	in  []float32
	out []float32
}

// NewInt16Resampler returns a resampler from rate in to rate out (equal
// rates pass samples through unchanged).
func NewInt16Resampler(in, out int) (*Int16Resampler, error) {
	r, err := NewResampler(in, out)
	if err != nil {
		return nil, err
	}
	return &Int16Resampler{r: r}, nil
}

// Process appends to dst[:0] the output samples that x makes available and
// returns it.
func (r *Int16Resampler) Process(dst, x []int16) []int16 {
	if r.r.in == r.r.out {
		return append(dst[:0], x...)
	}
	r.in = r.in[:0]
	for _, v := range x {
		r.in = append(r.in, float32(v)/32768)
	}
	r.out = r.r.Process(r.out[:0], r.in)
	return appendInt16(dst[:0], r.out)
}

// Flush appends to dst[:0] the samples still held back at the end of the
// stream and returns it.
func (r *Int16Resampler) Flush(dst []int16) []int16 {
	if r.r.in == r.r.out {
		return dst[:0]
	}
	r.out = r.r.Flush(r.out[:0])
	return appendInt16(dst[:0], r.out)
}
