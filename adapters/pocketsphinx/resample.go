package pocketsphinx

import "math"

// resampler converts a stream of 16-bit samples between rates with a
// windowed-sinc interpolator (Blackman window, 16 zero crossings each side,
// cut-off at the lower Nyquist frequency), keeping state across calls.
type resampler struct {
	from, to int
	step     float64 // input samples per output sample
	cutoff   float64 // relative to the input Nyquist
	half     int     // taps each side, in input samples
	hist     []float64
	pos      float64   // position of the next output sample in hist
	table    []float64 // kernel at |x| = i/tableRes, i = 0..half*tableRes
}

// tableRes is the kernel table's resolution (entries per input sample).
const tableRes = 512

const sincZeros = 16

func newResampler(from, to int) *resampler {
	r := &resampler{from: from, to: to, step: float64(from) / float64(to)}
	r.cutoff = math.Min(1, float64(to)/float64(from))
	r.half = int(math.Ceil(sincZeros / r.cutoff))
	// Start with half a window of silence so the first sample is centred.
	r.hist = make([]float64, r.half)
	r.pos = float64(r.half)
	r.table = make([]float64, r.half*tableRes+2)
	for i := range r.table {
		r.table[i] = r.kernel(float64(i) / tableRes)
	}
	return r
}

// lookup interpolates the kernel table at x.
func (r *resampler) lookup(x float64) float64 {
	x = math.Abs(x) * tableRes
	i := int(x)
	if i >= len(r.table)-1 {
		return 0
	}
	f := x - float64(i)
	return r.table[i] + f*(r.table[i+1]-r.table[i])
}

func (r *resampler) kernel(x float64) float64 {
	if x == 0 {
		return r.cutoff
	}
	w := float64(r.half)
	if x <= -w || x >= w {
		return 0
	}
	s := math.Sin(math.Pi*r.cutoff*x) / (math.Pi * x)
	n := (x + w) / (2 * w)
	win := 0.42 - 0.5*math.Cos(2*math.Pi*n) + 0.08*math.Cos(4*math.Pi*n)
	return s * win
}

// process consumes in and returns the output samples that are complete.
func (r *resampler) process(in []int16) []int16 {
	for _, s := range in {
		r.hist = append(r.hist, float64(s))
	}
	var out []int16
	for r.pos+float64(r.half) < float64(len(r.hist)) {
		out = append(out, r.sample())
		r.pos += r.step
	}
	// Drop history no longer needed.
	if drop := int(r.pos) - r.half; drop > 0 {
		r.hist = append(r.hist[:0], r.hist[drop:]...)
		r.pos -= float64(drop)
	}
	return out
}

// flush pads with silence to emit the tail of the input.
func (r *resampler) flush() []int16 {
	return r.process(make([]int16, r.half))
}

func (r *resampler) sample() int16 {
	c := int(math.Floor(r.pos))
	frac := r.pos - float64(c)
	sum := 0.0
	for k := c - r.half + 1; k <= c+r.half; k++ {
		if k < 0 || k >= len(r.hist) {
			continue
		}
		sum += r.hist[k] * r.lookup(float64(k)-float64(c)-frac)
	}
	return int16(math.Max(-32768, math.Min(32767, math.Round(sum))))
}
