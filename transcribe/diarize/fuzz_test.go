package diarize

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// FuzzDiarize feeds arbitrary audio and bounds to the default diarizer: it
// must not panic, and what it returns must be well formed.
func FuzzDiarize(f *testing.F) {
	tone := make([]byte, 2*rate)
	for i := 0; i < rate; i++ {
		v := int16(0)
		if (i/2000)%2 == 0 {
			v = int16(9000 * math.Sin(float64(i)*0.05*float64(1+i/4000)))
		}
		binary.LittleEndian.PutUint16(tone[2*i:], uint16(v))
	}
	f.Add(tone, 0, 0, 16000)
	f.Add([]byte{1, 2, 3}, 2, 2, 8000)
	f.Add(make([]byte, 4000), 1, 10, 44100)
	d, _ := NewBIC(BICConfig{})
	f.Fuzz(func(t *testing.T, raw []byte, lo, hi, sr int) {
		if sr > 96000 || len(raw) > 1<<20 {
			return
		}
		x := make([]int16, len(raw)/2)
		for i := range x {
			x[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
		}
		segs, err := d.Diarize(context.Background(), x, sr, Options{MinSpeakers: lo, MaxSpeakers: hi})
		if err != nil {
			return
		}
		dur := int64(len(x)) * 1000 / int64(sr)
		_, maxSp, _ := Options{MinSpeakers: lo, MaxSpeakers: hi}.bounds()
		next := 0
		for i, s := range segs {
			if s.Start < 0 || s.End <= s.Start || s.End > dur+frameMS || (i > 0 && s.Start < segs[i-1].End) {
				t.Fatalf("bad segment %d %+v of %d ms: %v", i, s, dur, segs)
			}
			if s.Speaker > next || s.Speaker >= maxSp {
				t.Fatalf("speaker %d out of order or over %d: %v", s.Speaker, maxSp, segs)
			}
			if s.Speaker == next {
				next++
			}
		}
	})
}

// FuzzScoreDER checks DER bookkeeping on arbitrary segment lists.
func FuzzScoreDER(f *testing.F) {
	f.Add([]byte{0, 10, 0, 10, 30, 1}, []byte{0, 20, 1, 20, 30, 0}, uint8(25))
	f.Fuzz(func(t *testing.T, r, h []byte, collarCS uint8) {
		segs := func(b []byte) []Segment {
			var out []Segment
			for i := 0; i+2 < len(b) && len(out) < 40; i += 3 {
				s := int64(b[i]) * 50
				out = append(out, Segment{Start: s, End: s + int64(b[i+1])*20, Speaker: int(b[i+2] % 20)})
			}
			return out
		}
		ref, hyp := segs(r), segs(h)
		res := ScoreDER(ref, hyp, time.Duration(collarCS)*10*time.Millisecond)
		if res.DER < 0 || res.Missed < 0 || res.FalseAlarm < 0 || res.Confusion < 0 || math.IsNaN(res.DER) {
			t.Fatalf("%+v", res)
		}
		if res.Missed+res.Confusion > res.Scored {
			t.Fatalf("missed+confusion exceed scored: %+v", res)
		}
		self := ScoreDER(ref, ref, time.Duration(collarCS)*10*time.Millisecond)
		if self.DER != 0 {
			t.Fatalf("self DER %+v", self)
		}
	})
}

func TestFFT(t *testing.T) {
	const n = 16
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(math.Sin(float64(i)*1.3)+float64(i%3), 0)
	}
	got := append([]complex128(nil), x...)
	fft(got, twiddles(n))
	for k := 0; k < n; k++ {
		var want complex128
		for j, v := range x {
			want += v * complex(math.Cos(-2*math.Pi*float64(j*k)/n), math.Sin(-2*math.Pi*float64(j*k)/n))
		}
		if d := got[k] - want; math.Hypot(real(d), imag(d)) > 1e-9 {
			t.Fatalf("bin %d: got %v want %v", k, got[k], want)
		}
	}
}
