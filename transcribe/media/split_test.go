package media

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// checkSpans fails t unless spans cover [0, n) in order without gaps, each
// at most maxN samples long and none empty.
func checkSpans(t *testing.T, spans []Span, n, maxN int) {
	t.Helper()
	if n == 0 {
		if len(spans) != 0 {
			t.Fatalf("empty input gave %v", spans)
		}
		return
	}
	if len(spans) == 0 || spans[0].Start != 0 || spans[len(spans)-1].End != n {
		t.Fatalf("spans %v do not cover [0, %d)", spans, n)
	}
	for i, s := range spans {
		if s.Len() <= 0 {
			t.Fatalf("span %d %v is empty", i, s)
		}
		if maxN > 0 && s.Len() > maxN {
			t.Fatalf("span %d %v has %d samples, limit %d", i, s, s.Len(), maxN)
		}
		if i > 0 && s.Start != spans[i-1].End {
			t.Fatalf("span %d %v does not start where span %d %v ends", i, s, i-1, spans[i-1])
		}
	}
}

func TestSplitAtPausesEdges(t *testing.T) {
	t.Parallel()
	ten := make([]int16, 10)
	cases := []struct {
		name    string
		samples []int16
		rate    int
		max     time.Duration
		want    []Span
	}{
		{"empty", nil, 16000, time.Second, nil},
		{"no limit", ten, 16000, 0, []Span{{Start: 0, End: 10}}},
		{"negative limit", ten, 16000, -time.Second, []Span{{Start: 0, End: 10}}},
		{"no rate", ten, 0, time.Second, []Span{{Start: 0, End: 10}}},
		{"negative rate", ten, -8000, time.Second, []Span{{Start: 0, End: 10}}},
		{"shorter than limit", ten, 16000, time.Second, []Span{{Start: 0, End: 10}}},
		{"exactly the limit", make([]int16, 16000), 16000, time.Second, []Span{{Start: 0, End: 16000}}},
		{"huge limit", ten, 16000, time.Duration(math.MaxInt64), []Span{{Start: 0, End: 10}}},
		{"limit below a sample", []int16{1, 2, 3}, 16000, time.Nanosecond, []Span{{Start: 0, End: 1}, {Start: 1, End: 2}, {Start: 2, End: 3}}},
	}
	for _, c := range cases {
		got := SplitAtPauses(c.samples, c.rate, c.max)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// TestSplitAtPausesRandom checks the covering rules on random audio of
// random lengths against random limits and rates.
func TestSplitAtPausesRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	for range 300 {
		rate := []int{8000, 16000, 44100, 3}[rng.Intn(4)]
		n := rng.Intn(5 * rate)
		s := make([]int16, n)
		for i := range s {
			s[i] = int16(rng.Intn(2000) - 1000)
			if rng.Intn(3) == 0 { // stretches of quiet
				s[i] /= 100
			}
		}
		max := time.Duration(rng.Int63n(int64(3*time.Second))) + time.Millisecond
		spans := SplitAtPauses(s, rate, max)
		maxN := max2(int(max.Seconds()*float64(rate)), 1)
		checkSpans(t, spans, n, maxN)
	}
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// TestSplitAtPausesSpeech cuts real speech (flite sentences separated by
// pauses with room noise) and checks every cut falls in a pause, never in
// a word, and the latest usable pause is taken.
func TestSplitAtPausesSpeech(t *testing.T) {
	t.Parallel()
	const rate = 16000
	sentences := []string{
		"the budget for next year was approved by the board",
		"we will meet again on tuesday to discuss the details",
		"please send your comments before the end of the week",
		"thank you all for coming to this meeting today",
		"the quick brown fox jumps over the lazy dog",
	}
	rng := rand.New(rand.NewSource(2))
	noise := func(n int) []int16 { // about -50 dBFS
		out := make([]int16, n)
		for i := range out {
			out[i] = int16(rng.NormFloat64() * 100)
		}
		return out
	}
	var audio []int16
	type region struct{ start, end int }
	var pauses []region
	for i, text := range sentences {
		s, r, err := transcribetest.ReadWAV16(testaudio.Speech(t, testaudio.Voices[i%len(testaudio.Voices)], text))
		if err != nil || r != rate {
			t.Fatalf("speech: rate %d, %v", r, err)
		}
		// The speech proper: from the first to the last 10 ms frame above
		// -40 dBFS; flite's own leading and trailing quiet is pause.
		first, last := -1, 0
		for f := 0; f+160 <= len(s); f += 160 {
			var e float64
			for _, v := range s[f : f+160] {
				e += float64(v) * float64(v)
			}
			if math.Sqrt(e/160) > 328 {
				if first < 0 {
					first = f
				}
				last = f + 160
			}
		}
		if len(pauses) > 0 {
			pauses[len(pauses)-1].end = len(audio) + first
		}
		for k := range s {
			s[k] += int16(rng.NormFloat64() * 100)
		}
		p := (600 + 200*i) * rate / 1000
		pauses = append(pauses, region{len(audio) + last, 0})
		audio = append(audio, s...)
		audio = append(audio, noise(p)...)
	}
	pauses[len(pauses)-1].end = len(audio)
	maxLen := 5 * time.Second
	spans := SplitAtPauses(audio, rate, maxLen)
	checkSpans(t, spans, len(audio), int(maxLen.Seconds()*rate))
	if len(spans) < 3 {
		t.Fatalf("%.1f s of audio in %d spans for a %v limit", float64(len(audio))/rate, len(spans), maxLen)
	}
	t.Logf("pauses %v, spans %v", pauses, spans)
	for _, sp := range spans[:len(spans)-1] {
		cut := sp.End
		in := -1
		for k, p := range pauses {
			if cut >= p.start && cut <= p.end {
				in = k
			}
		}
		if in < 0 {
			t.Errorf("cut at %.2f s is not in a pause (pauses %v)", float64(cut)/rate, pauses)
			continue
		}
		// No later pause would also have fitted in this span.
		for _, p := range pauses[in+1:] {
			if p.start+rate/10 < sp.Start+int(maxLen.Seconds()*rate) && p.end <= sp.Start+int(maxLen.Seconds()*rate) {
				t.Errorf("span %v cut in pause %d, but a later pause %v also fits", sp, in, p)
			}
		}
	}
}

// TestSplitAtPausesNoPause: audio without pauses is cut near the limit.
func TestSplitAtPausesNoPause(t *testing.T) {
	t.Parallel()
	const rate = 16000
	tone := make([]int16, 11*rate)
	for i := range tone {
		tone[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate))
	}
	spans := SplitAtPauses(tone, rate, 4*time.Second)
	checkSpans(t, spans, len(tone), 4*rate)
	for _, sp := range spans[:len(spans)-1] {
		if sp.Len() < 4*rate-rate/5 {
			t.Errorf("span %v is %.2f s, want close to the 4 s limit on a steady tone", sp, float64(sp.Len())/rate)
		}
	}
}

// TestSplitAtPausesDeeperPause: a true silence earlier in the second half
// wins over a shallow dip near the limit; of two equal pauses, the later.
func TestSplitAtPausesDeeperPause(t *testing.T) {
	t.Parallel()
	const rate = 16000
	rng := rand.New(rand.NewSource(3))
	loud := func(n int) []int16 {
		out := make([]int16, n)
		for i := range out {
			out[i] = int16(rng.NormFloat64() * 3000)
		}
		return out
	}
	dip := func(n int, amp float64) []int16 {
		out := make([]int16, n)
		for i := range out {
			out[i] = int16(rng.NormFloat64() * amp)
		}
		return out
	}
	// 0-6 s loud, 6.0-6.5 s silence, 6.5-9.3 s loud, 9.3-9.6 s dip to a
	// quarter, 9.6-12 s loud.
	var a []int16
	a = append(a, loud(6*rate)...)
	a = append(a, dip(rate/2, 5)...)
	a = append(a, loud(rate*28/10)...)
	a = append(a, dip(rate*3/10, 750)...)
	a = append(a, loud(rate*24/10)...)
	spans := SplitAtPauses(a, rate, 10*time.Second)
	checkSpans(t, spans, len(a), 10*rate)
	if cut := spans[0].End; cut < 6*rate || cut > 6*rate+rate/2 {
		t.Errorf("cut at %.2f s, want in the silence at 6.0-6.5 s", float64(cut)/rate)
	}

	// Two equal silences in the second half: the later one.
	var b []int16
	b = append(b, loud(6*rate)...)
	b = append(b, dip(rate/2, 5)...)
	b = append(b, loud(2*rate)...)
	b = append(b, dip(rate/2, 5)...)
	b = append(b, loud(4*rate)...)
	spans = SplitAtPauses(b, rate, 10*time.Second)
	checkSpans(t, spans, len(b), 10*rate)
	if cut := spans[0].End; cut < 8*rate+rate/2 || cut > 9*rate {
		t.Errorf("cut at %.2f s, want in the later silence at 8.5-9.0 s", float64(cut)/rate)
	}
}

// BenchmarkSplitAtPauses splits an hour of noise into 5-minute spans and
// reports the cost per audio hour relative to one pass summing the
// samples (the least any pause finder must do).
func BenchmarkSplitAtPauses(b *testing.B) {
	const rate = 16000
	rng := rand.New(rand.NewSource(4))
	a := make([]int16, 3600*rate)
	for i := range a {
		a[i] = int16(rng.Intn(4000) - 2000)
	}
	var base time.Duration
	{
		start := time.Now()
		var s int64
		for range 5 {
			for _, v := range a {
				s += int64(v) * int64(v)
			}
		}
		base = time.Since(start) / 5
		if s == 0 {
			b.Fatal("no energy")
		}
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		SplitAtPauses(a, rate, 5*time.Minute)
	}
	b.ReportMetric(float64(time.Since(start)/time.Duration(b.N))/float64(base), "x_one_pass")
}
