package engine

import (
	"math"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/media"
)

func TestMulawRoundTrip(t *testing.T) {
	for _, v := range []int16{0, 1, -1, 100, -100, 1000, -1000, 8000, -8000, 32000, -32000, 32767, -32768} {
		got := media.MulawDecode(media.MulawEncode([]int16{v})[0])
		tol := math.Abs(float64(v))/16 + 8 // mu-law keeps ~4 bits of mantissa
		if math.Abs(float64(got)-float64(v)) > tol {
			t.Errorf("%d -> %d (tolerance %.0f)", v, got, tol)
		}
	}
	// G.711 reference points: 0xFF and 0x7F are zero, 0x00 is the most
	// negative value, 0x80 the most positive.
	if media.MulawDecode(0xFF) != 0 || media.MulawDecode(0x7F) != 0 || media.MulawDecode(0x00) != -32124 || media.MulawDecode(0x80) != 32124 {
		t.Fatalf("table: ff=%d 7f=%d 00=%d 80=%d", media.MulawDecode(0xFF), media.MulawDecode(0x7F), media.MulawDecode(0x00), media.MulawDecode(0x80))
	}
}

func TestDecoderCarriesOddBytes(t *testing.T) {
	d := decoder{enc: EncodingPCMS16LE}
	var got []int16
	for _, part := range [][]byte{{0x01}, {0x02, 0x03}, {0x04, 0xff, 0x7f}} {
		if n := d.samplesIn(len(part)); n != (len(part)+len(d.carry))/2 {
			t.Fatalf("samplesIn %d", n)
		}
		got = append(got, d.decode(part)...)
	}
	want := []int16{0x0201, 0x0403, 0x7fff}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %x, want %x", got, want)
		}
	}
}

func sine(freq float64, rate, n int) []int16 {
	x := make([]int16, n)
	for i := range x {
		x[i] = int16(10000 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return x
}

// goertzel returns the power of freq in x.
func goertzel(x []int16, freq float64, rate int) float64 {
	w := 2 * math.Pi * freq / float64(rate)
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s := float64(v) + c*s1 - s2
		s2, s1 = s1, s
	}
	return (s1*s1 + s2*s2 - c*s1*s2) / float64(len(x)*len(x))
}

func TestResampler(t *testing.T) {
	for _, tc := range []struct{ in, out int }{{8000, 16000}, {44100, 16000}, {48000, 16000}, {22050, 16000}, {16000, 8000}} {
		r, err := media.NewInt16Resampler(tc.in, tc.out)
		if err != nil {
			t.Fatal(err)
		}
		x := sine(440, tc.in, tc.in) // one second
		// Feed in uneven pieces; the output must be the same length as one
		// call would give and keep the tone.
		var y []int16
		for off, step := 0, 37; off < len(x); off, step = off+step, step*2%997+1 {
			y = append(y, r.Process(nil, x[off:min(off+step, len(x))])...)
		}
		if d := len(y) - tc.out; d < -200 || d > 0 {
			t.Errorf("%d->%d: %d samples out", tc.in, tc.out, len(y))
		}
		mid := y[len(y)/4 : 3*len(y)/4]
		p440, p1k := goertzel(mid, 440, tc.out), goertzel(mid, 1000, tc.out)
		if p440 < 1e6 || p440 < 1000*p1k {
			t.Errorf("%d->%d: 440 Hz power %.3g, 1 kHz %.3g", tc.in, tc.out, p440, p1k)
		}
	}
	// Downsampling filters out what the new rate cannot hold: 10 kHz at
	// 48 kHz would alias to 6 kHz in 16 kHz output.
	r, _ := media.NewInt16Resampler(48000, 16000)
	hi := sine(10000, 48000, 48000)
	y := r.Process(nil, hi)
	in := goertzel(hi, 10000, 48000)
	if alias := goertzel(y[len(y)/4:3*len(y)/4], 6000, 16000); alias > in/100 {
		t.Errorf("10 kHz aliased to 6 kHz at %.3g of %.3g", alias, in)
	}
	// Any rate in range, any chunking: no panics, and the output length
	// tracks the input.
	for in := MinSampleRate; in <= MaxSampleRate; in += 1237 {
		r, _ := media.NewInt16Resampler(in, 16000)
		x := sine(300, in, in/2)
		n := 0
		for off, step := 0, 1; off < len(x); off, step = off+step, step*3%1013+1 {
			n += len(r.Process(nil, x[off:min(off+step, len(x))]))
		}
		if want := 8000; n < want-200 || n > want {
			t.Errorf("%d Hz: %d samples for half a second", in, n)
		}
	}
	same, _ := media.NewInt16Resampler(16000, 16000)
	if x := sine(440, 16000, 100); len(same.Process(nil, x)) != len(x) {
		t.Error("same-rate resampler changes the length")
	}
	if _, err := media.NewInt16Resampler(0, 16000); err == nil {
		t.Error("rate 0 accepted")
	}
}

func TestVAD(t *testing.T) {
	v := newVAD(16000, 300)
	var decisions []bool
	feed := func(x []int16) {
		v.frames(x, func(end int, speech bool) { decisions = append(decisions, speech) })
	}
	feed(make([]int16, 1600))     // 100 ms digital silence
	feed(sine(300, 16000, 3200))  // 200 ms tone
	feed(make([]int16, 3200))     // 200 ms silence
	noise := make([]int16, 16000) // 1 s of low noise (RMS ~ 200)
	for i := range noise {
		noise[i] = int16((i*7919)%400 - 200)
	}
	feed(noise)
	if len(decisions) != 10+20+20+100 {
		t.Fatalf("%d frames", len(decisions))
	}
	count := func(d []bool) (n int) {
		for _, s := range d {
			if s {
				n++
			}
		}
		return n
	}
	if n := count(decisions[:10]); n != 0 {
		t.Errorf("silence: %d speech frames", n)
	}
	if n := count(decisions[10:30]); n != 20 {
		t.Errorf("tone: %d of 20 speech frames", n)
	}
	if n := count(decisions[30:50]); n > 2 { // hangover
		t.Errorf("silence after tone: %d speech frames", n)
	}
	if n := count(decisions[50:]); n != 0 {
		t.Errorf("quiet noise: %d speech frames", n)
	}
	// Loud steady noise is absorbed into the noise floor over time, and
	// speech above it still counts.
	v2 := newVAD(16000, 300)
	loud := make([]int16, 32000)
	for i := range loud {
		loud[i] = int16((i*7919)%4000 - 2000)
	}
	v2.frames(loud, func(int, bool) {})
	var spoke int
	x := sine(300, 16000, 3200)
	for i := range x {
		x[i] *= 3
	}
	v2.frames(x, func(_ int, s bool) {
		if s {
			spoke++
		}
	})
	if spoke < 15 {
		t.Errorf("loud tone over noise: %d of 20 frames", spoke)
	}
}
