package realtime

import (
	"fmt"
	"math"
	"sync"
)

// Encoding is the byte format of streamed audio (the encoding query
// parameter).
type Encoding string

// Encodings the service accepts.
const (
	EncodingPCMS16LE Encoding = "pcm_s16le" // 16-bit signed little-endian PCM (default)
	EncodingPCMMulaw Encoding = "pcm_mulaw" // G.711 mu-law, 8 bits per sample
)

// Encodings lists the accepted encodings.
func Encodings() []Encoding { return []Encoding{EncodingPCMS16LE, EncodingPCMMulaw} }

// bytesPerSample returns the size of one sample of e.
func (e Encoding) bytesPerSample() int {
	if e == EncodingPCMMulaw {
		return 1
	}
	return 2
}

// decoder turns message bytes into int16 samples. For pcm_s16le a message
// with an odd number of bytes keeps its last byte for the next message, so
// a client may split frames anywhere.
type decoder struct {
	enc     Encoding
	carry   []byte
	scratch []int16
}

// decode appends the samples in b to dst[:0] and returns them. The slice is
// reused by the next call.
func (d *decoder) decode(b []byte) []int16 {
	out := d.scratch[:0]
	switch d.enc {
	case EncodingPCMMulaw:
		for _, c := range b {
			out = append(out, mulawTable[c])
		}
	default:
		if len(d.carry) == 1 && len(b) > 0 {
			out = append(out, int16(uint16(d.carry[0])|uint16(b[0])<<8))
			b = b[1:]
			d.carry = d.carry[:0]
		}
		n := len(b) / 2
		for i := 0; i < n; i++ {
			out = append(out, int16(uint16(b[2*i])|uint16(b[2*i+1])<<8))
		}
		if len(b)%2 == 1 {
			d.carry = append(d.carry[:0], b[len(b)-1])
		}
	}
	d.scratch = out
	return out
}

// pendingSamples reports how many samples the bytes in b make, counting a
// byte carried from the previous message.
func (d *decoder) samplesIn(n int) int {
	if d.enc == EncodingPCMMulaw {
		return n
	}
	return (n + len(d.carry)) / 2
}

var mulawTable = func() (t [256]int16) {
	for i := range t {
		u := ^byte(i)
		sign := u & 0x80
		exp := (u >> 4) & 0x07
		mant := u & 0x0f
		mag := ((int(mant) << 3) + 0x84) << exp
		mag -= 0x84
		if sign != 0 {
			t[i] = int16(-mag)
		} else {
			t[i] = int16(mag)
		}
	}
	return t
}()

// MulawEncode encodes 16-bit PCM as G.711 mu-law bytes (the inverse of
// what the service decodes for encoding=pcm_mulaw). Useful to clients and
// tests.
func MulawEncode(samples []int16) []byte {
	out := make([]byte, len(samples))
	for i, s := range samples {
		out[i] = mulawByte(s)
	}
	return out
}

func mulawByte(s int16) byte {
	const bias, clip = 0x84, 32635
	x := int(s)
	sign := 0
	if x < 0 {
		x = -x
		sign = 0x80
	}
	if x > clip {
		x = clip
	}
	x += bias
	exp := 7
	for mask := 0x4000; x&mask == 0 && exp > 0; mask >>= 1 {
		exp--
	}
	mant := (x >> (exp + 3)) & 0x0f
	return ^byte(sign | exp<<4 | mant)
}

// resampler converts a stream of samples from one rate to another with a
// windowed-sinc interpolator (low-pass at the lower Nyquist frequency when
// downsampling). The filter is precomputed for resamplerPhases fractional
// positions and shared by all sessions with the same rates. It keeps
// enough history between calls that the output of many small calls equals
// the output of one big call.
type resampler struct {
	in, out int
	step    float64 // input samples per output sample
	bank    *filterBank
	hist    []float64
	pos     float64 // position of the next output sample, relative to hist[0]
	dst     []int16
}

// resamplerPhases is the number of precomputed fractional positions
// (timing error at most 1/1024 of an input sample).
const resamplerPhases = 512

// filterBank holds normalised filter taps for each phase: taps of phase p
// for offsets -half+1..half are w[p*2*half:(p+1)*2*half].
type filterBank struct {
	half int
	w    []float64
}

var banks sync.Map // [2]int{in, out} -> *filterBank

func bankFor(in, out int) *filterBank {
	key := [2]int{in, out}
	if b, ok := banks.Load(key); ok {
		return b.(*filterBank)
	}
	cutoff, half := 1.0, 8
	if out < in {
		cutoff = float64(out) / float64(in)
		half = int(math.Ceil(8 / cutoff))
	}
	b := &filterBank{half: half, w: make([]float64, resamplerPhases*2*half)}
	for p := 0; p < resamplerPhases; p++ {
		frac := float64(p) / resamplerPhases
		taps := b.w[p*2*half : (p+1)*2*half]
		var sum float64
		for k := -half + 1; k <= half; k++ {
			d := float64(k) - frac
			w := cutoff * sinc(cutoff*d) * hann(d, float64(half))
			taps[k+half-1] = w
			sum += w
		}
		for i := range taps {
			taps[i] /= sum
		}
	}
	v, _ := banks.LoadOrStore(key, b)
	return v.(*filterBank)
}

func newResampler(in, out int) (*resampler, error) {
	if in <= 0 || out <= 0 {
		return nil, fmt.Errorf("realtime: bad resampling rates %d -> %d", in, out)
	}
	r := &resampler{in: in, out: out, step: float64(in) / float64(out)}
	if in == out {
		return r, nil
	}
	r.bank = bankFor(in, out)
	// Start with half taps of silence so the first output sample is centred
	// on input sample 0.
	r.hist = make([]float64, r.bank.half)
	r.pos = float64(r.bank.half)
	return r, nil
}

// process returns the resampled samples; the slice is reused by the next
// call.
func (r *resampler) process(x []int16) []int16 {
	if r.in == r.out {
		return x
	}
	for _, s := range x {
		r.hist = append(r.hist, float64(s))
	}
	half := r.bank.half
	out := r.dst[:0]
	// One sample of margin: a phase rounded up uses the next centre.
	for r.pos+float64(half)+1 < float64(len(r.hist)) {
		c := int(r.pos)
		ph := int((r.pos-float64(c))*resamplerPhases + 0.5)
		if ph == resamplerPhases {
			ph, c = 0, c+1
		}
		taps := r.bank.w[ph*2*half : (ph+1)*2*half]
		window := r.hist[c-half+1 : c+half+1]
		var sum float64
		for i, w := range taps {
			sum += w * window[i]
		}
		out = append(out, clamp16(sum))
		r.pos += r.step
	}
	// Drop history no longer needed.
	drop := int(r.pos) - half
	if drop > 0 {
		r.hist = append(r.hist[:0], r.hist[drop:]...)
		r.pos -= float64(drop)
	}
	r.dst = out
	return out
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

func hann(d, half float64) float64 {
	if d <= -half || d >= half {
		return 0
	}
	return 0.5 + 0.5*math.Cos(math.Pi*d/half)
}

func clamp16(v float64) int16 {
	v = math.Round(v)
	if v > math.MaxInt16 {
		return math.MaxInt16
	}
	if v < math.MinInt16 {
		return math.MinInt16
	}
	return int16(v)
}

// vad is an energy voice-activity detector over 10 ms frames. A frame is
// speech when its RMS exceeds both an absolute floor and a multiple of an
// adaptive noise estimate, so it works on digital silence (synthetic
// speech) and on steady background noise (microphones).
type vad struct {
	frame    int     // samples per frame
	minRMS   float64 // absolute speech floor
	noise    float64 // running noise estimate (RMS)
	buf      []int16 // partial frame
	hangover int     // frames of speech still credited after energy drops
	hang     int
}

func newVAD(sampleRate int, minRMS float64) *vad {
	f := sampleRate / 100
	if f < 1 {
		f = 1
	}
	return &vad{frame: f, minRMS: minRMS, noise: minRMS / 2, hangover: 2}
}

// frames feeds samples and calls fn for each complete 10 ms frame with
// whether it holds speech and the index in x just after the frame's last
// sample.
func (v *vad) frames(x []int16, fn func(end int, speech bool)) {
	off := 0
	for off < len(x) {
		n := v.frame - len(v.buf)
		if n > len(x)-off {
			n = len(x) - off
		}
		v.buf = append(v.buf, x[off:off+n]...)
		off += n
		if len(v.buf) < v.frame {
			return
		}
		var e float64
		for _, s := range v.buf {
			f := float64(s)
			e += f * f
		}
		v.buf = v.buf[:0]
		rms := math.Sqrt(e / float64(v.frame))
		speech := rms > v.minRMS && rms > 3*v.noise
		if speech {
			v.hang = v.hangover
			// Track the noise floor slowly upwards even during speech so a
			// sudden rise in background level is eventually absorbed.
			v.noise += (rms - v.noise) * 0.0005
		} else {
			// Fast down, slow up.
			if rms < v.noise {
				v.noise += (rms - v.noise) * 0.2
			} else {
				v.noise += (rms - v.noise) * 0.02
			}
			if v.noise < 1 {
				v.noise = 1
			}
			if v.hang > 0 {
				v.hang--
				speech = true
			}
		}
		fn(off, speech)
	}
}
