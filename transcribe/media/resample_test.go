package media

import (
	"math"
	"math/rand/v2"
	"testing"
)

func tone(rate int, freq, amp float64, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return x
}

func resampleAll(t testing.TB, in, out int, x []float32) []float32 {
	t.Helper()
	r, err := NewResampler(in, out)
	if err != nil {
		t.Fatal(err)
	}
	y := r.Process(nil, x)
	return r.Flush(y)
}

// amplitudeAt returns the amplitude of the component of x at freq (Hz),
// measured by correlation with a Hann-windowed complex exponential.
func amplitudeAt(x []float32, rate int, freq float64) float64 {
	var re, im, wsum float64
	n := len(x)
	for i, v := range x {
		w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n-1))
		ph := 2 * math.Pi * freq * float64(i) / float64(rate)
		re += w * float64(v) * math.Cos(ph)
		im += w * float64(v) * math.Sin(ph)
		wsum += w
	}
	return 2 * math.Hypot(re, im) / wsum
}

func db(a float64) float64 { return 20 * math.Log10(a) }

// TestResampleTone checks that tones keep their frequency and level, that
// tones above the output Nyquist frequency do not alias into the band, and
// that upsampling leaves no images.
func TestResampleTone(t *testing.T) {
	const out = 16000
	for _, in := range []int{44100, 48000, 8000, 22050, 11025, 32000, 96000, 16001} {
		n := in / 2 // half a second
		for _, f := range []float64{440, 1000, 3000, 6000} {
			if f >= 0.43*float64(min(in, out)) {
				continue
			}
			y := resampleAll(t, in, out, tone(in, f, 0.5, n))
			if want := (n*out + in - 1) / in; len(y) != want {
				t.Fatalf("%d->%d: %d samples, want %d", in, out, len(y), want)
			}
			mid := y[len(y)/8 : len(y)*7/8]
			if g := db(amplitudeAt(mid, out, f) / 0.5); math.Abs(g) > 0.1 {
				t.Errorf("%d->%d: %v Hz tone gain %.3f dB", in, out, f, g)
			}
			// Whatever is not the ideal tone at the expected frequency and
			// phase is distortion, aliasing, images or misalignment.
			want := tone(out, f, 0.5, len(y))
			var num, den float64
			for i := len(y) / 8; i < len(y)*7/8; i++ {
				d := float64(y[i] - want[i])
				num += d * d
				den += float64(want[i]) * float64(want[i])
			}
			snr := 10 * math.Log10(den/num)
			if snr < 60 {
				t.Errorf("%d->%d: %v Hz tone SNR %.1f dB against the ideal (misaligned or distorted)", in, out, f, snr)
			}
			if f == 1000 {
				t.Logf("%d->%d: 1 kHz tone SNR %.1f dB", in, out, snr)
			}
		}
		if in > out {
			// Tones between the output Nyquist (8 kHz) and the input's would
			// alias to 16000-f; they must be filtered out.
			for _, f := range []float64{8100, 9000, 12000, 15000, 20000} {
				if f >= float64(in)/2 {
					continue
				}
				y := resampleAll(t, in, out, tone(in, f, 0.5, n))
				mid := y[len(y)/8 : len(y)*7/8]
				alias := float64(out) - f
				if alias < 0 {
					alias = -alias
				}
				var rms float64
				for _, v := range mid {
					rms += float64(v) * float64(v)
				}
				rms = math.Sqrt(rms / float64(len(mid)))
				lvl := db(rms * math.Sqrt2 / 0.5)
				if lvl > -70 {
					t.Errorf("%d->%d: %v Hz tone leaks at %.1f dB (alias at %.0f Hz: %.1f dB)", in, out, f, lvl, alias, db(amplitudeAt(mid, out, alias)/0.5))
				}
				if f == 9000 {
					t.Logf("%d->%d: 9 kHz tone (would alias to 7 kHz) at %.1f dB", in, out, lvl)
				}
			}
		}
		if in < out {
			// Upsampling: the image of a tone at f appears at in-f.
			f := 3000.0
			if f < 0.43*float64(in) {
				y := resampleAll(t, in, out, tone(in, f, 0.5, n))
				mid := y[len(y)/8 : len(y)*7/8]
				img := float64(in) - f
				if lvl := db(amplitudeAt(mid, out, img) / 0.5); lvl > -70 {
					t.Errorf("%d->%d: image of %v Hz at %v Hz is %.1f dB", in, out, f, img, lvl)
				}
			}
		}
	}
}

// TestResampleStreaming checks that any split of the input into blocks
// gives exactly the same output as one block.
func TestResampleStreaming(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rates := range [][2]int{{44100, 16000}, {8000, 16000}, {48000, 16000}, {16001, 16000}, {16000, 16000}} {
		x := make([]float32, 30000)
		for i := range x {
			x[i] = float32(rng.Float64()*2 - 1)
		}
		want := resampleAll(t, rates[0], rates[1], x)
		r, _ := NewResampler(rates[0], rates[1])
		var got []float32
		for rest := x; len(rest) > 0; {
			k := min(len(rest), rng.IntN(5000))
			got = r.Process(got, rest[:k])
			rest = rest[k:]
		}
		got = r.Flush(got)
		got = r.Flush(got) // a second Flush adds nothing
		got = r.Process(got, x[:10])
		if len(got) != len(want) {
			t.Fatalf("%v: %d samples in blocks, %d at once", rates, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%v: sample %d differs: %v vs %v", rates, i, got[i], want[i])
			}
		}
	}
}

func TestResampleIdentityAndErrors(t *testing.T) {
	x := tone(16000, 1234, 0.7, 1000)
	y := resampleAll(t, 16000, 16000, x)
	for i := range x {
		if math.Abs(float64(x[i]-y[i])) > 1e-6 {
			t.Fatalf("same-rate sample %d: %v vs %v", i, y[i], x[i])
		}
	}
	for _, r := range [][2]int{{0, 16000}, {16000, 0}, {-1, 8000}, {20_000_000, 16000}} {
		if _, err := NewResampler(r[0], r[1]); err == nil {
			t.Errorf("NewResampler(%d, %d) succeeded", r[0], r[1])
		}
	}
	if in, out := mustResampler(t, 44100, 16000).Rates(); in != 44100 || out != 16000 {
		t.Errorf("Rates() = %d, %d", in, out)
	}
}

func mustResampler(t *testing.T, in, out int) *Resampler {
	r, err := NewResampler(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func BenchmarkResample(b *testing.B) {
	for _, in := range []int{8000, 44100, 48000} {
		b.Run(itoa(in)+"to16000", func(b *testing.B) {
			x := tone(in, 440, 0.5, in*10)
			b.SetBytes(int64(len(x) * 2))
			for b.Loop() {
				r, _ := NewResampler(in, 16000)
				r.Flush(r.Process(nil, x))
			}
			b.ReportMetric(10*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
