package pocketsphinx

import (
	"math"
	"testing"
)

func sine(rate int, hz float64, n int) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(10000 * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
	}
	return s
}

// amplitude of frequency hz in s (single-bin DFT).
func amplitude(s []int16, rate int, hz float64) float64 {
	var re, im float64
	for i, v := range s {
		a := 2 * math.Pi * hz * float64(i) / float64(rate)
		re += float64(v) * math.Cos(a)
		im += float64(v) * math.Sin(a)
	}
	return 2 * math.Hypot(re, im) / float64(len(s))
}

func TestResampler(t *testing.T) {
	for _, from := range []int{8000, 22050, 44100, 48000} {
		in := sine(from, 1000, from) // 1 s of 1 kHz
		r := newResampler(from, SampleRate)
		var out []int16
		// Odd-sized writes exercise the state kept between calls.
		for i := 0; i < len(in); i += 777 {
			out = append(out, r.process(in[i:min(i+777, len(in))])...)
		}
		out = append(out, r.flush()...)
		if d := len(out) - SampleRate; d < -2 || d > 2+SampleRate/100 {
			t.Errorf("%d Hz: %d samples out, want about %d", from, len(out), SampleRate)
		}
		body := out[1000 : SampleRate-1000]
		if a := amplitude(body, SampleRate, 1000); math.Abs(a-10000) > 300 {
			t.Errorf("%d Hz: 1 kHz amplitude %.0f after resampling, want 10000", from, a)
		}
	}
	// Content above the new Nyquist frequency is filtered, not aliased.
	in := sine(48000, 11000, 48000)
	r := newResampler(48000, SampleRate)
	out := r.process(in)
	if a := amplitude(out[1000:len(out)-1000], SampleRate, 5000); a > 300 {
		t.Errorf("11 kHz at 48 kHz aliased to 5 kHz with amplitude %.0f", a)
	}
}
