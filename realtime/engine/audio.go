package engine

import (
	"math"

	"github.com/earshot-dev/earshot/transcribe/media"
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

// BytesPerSample returns the size of one sample of e.
func (e Encoding) BytesPerSample() int {
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
			out = append(out, media.MulawDecode(c))
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

// MulawEncode encodes 16-bit PCM as G.711 mu-law bytes (the inverse of
// what the service decodes for encoding=pcm_mulaw). Useful to clients and
// tests; the table lives in transcribe/media.
func MulawEncode(samples []int16) []byte { return media.MulawEncode(samples) }

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
