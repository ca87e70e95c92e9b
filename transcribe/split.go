package transcribe

import (
	"math"
	"time"
)

// Span is a half-open range of sample indices [Start, End) of one channel.
type Span struct {
	Start, End int
}

// Len returns the number of samples in s.
func (s Span) Len() int { return s.End - s.Start }

// Pause detection parameters of SplitAtPauses.
const (
	// splitFrame is the length of one energy frame.
	splitFrame = 10 * time.Millisecond
	// splitSmooth is the window over which frame energy is averaged, so
	// that a cut lands in a pause rather than in the gap between two
	// syllables.
	splitSmooth = 150 * time.Millisecond
	// splitQuietFloor is the mean square (of samples scaled to ±1) below
	// which a window counts as silence whatever the rest of the span holds:
	// -60 dBFS.
	splitQuietFloor = 1e-6
	// splitQuietRatio: a window within this factor of the quietest one
	// (about 3 dB) is as good a cut; the latest such window is taken, so
	// spans stay as long as the limit allows.
	splitQuietRatio = 2.0
)

// SplitAtPauses cuts mono audio at rate samples per second into
// consecutive spans no longer than maxLen, each cut placed at the quietest
// point of the second half of the stretch before the limit, so that words
// are not cut in two and the spans are as long as the limit allows.
//
// The spans cover the whole input in order, without gaps or overlap: the
// first starts at 0 and the last ends at len(samples). Audio no longer than
// maxLen gives one span; empty audio gives none. maxLen <= 0 or rate <= 0
// means no limit (one span); a limit shorter than one sample is treated as
// one sample.
//
// Quietness is the mean square of the samples over a 150 ms window moving
// in 10 ms steps. Among the windows of the search stretch, the latest whose
// energy is within 3 dB of the quietest one, or below -60 dBFS, is taken and
// the cut placed at its centre. Audio without pauses (music, steady noise)
// is therefore cut near the limit. The cost is linear in the input.
//
// SplitAtPauses is safe for concurrent use.
func SplitAtPauses(samples []int16, rate int, maxLen time.Duration) []Span {
	n := len(samples)
	if n == 0 {
		return nil
	}
	if maxLen <= 0 || rate <= 0 {
		return []Span{{0, n}}
	}
	maxN := durSamples(maxLen, rate)
	if maxN < 1 {
		maxN = 1
	}
	if n <= maxN {
		return []Span{{0, n}}
	}
	frame := max(durSamples(splitFrame, rate), 1)
	smooth := max(int(splitSmooth/splitFrame), 1)
	// Prefix sums of frame energies make every window's mean O(1).
	nf := (n + frame - 1) / frame
	prefix := make([]float64, nf+1)
	for f := range nf {
		var e float64
		end := min((f+1)*frame, n)
		for _, s := range samples[f*frame : end] {
			x := float64(s) / 32768
			e += x * x
		}
		prefix[f+1] = prefix[f] + e
	}
	// window returns the mean square over the smooth frames centred on f.
	window := func(f int) float64 {
		lo := max(f-smooth/2, 0)
		hi := min(lo+smooth, nf)
		lo = max(hi-smooth, 0)
		cnt := min(hi*frame, n) - lo*frame
		if cnt <= 0 {
			return 0
		}
		return (prefix[hi] - prefix[lo]) / float64(cnt)
	}

	var spans []Span
	start := 0
	for n-start > maxN {
		limit := start + maxN
		cut := limit
		// Frames whose centre lies in the second half of the span.
		first := (start + maxN/2) / frame
		last := limit/frame - 1
		if maxN >= 2*frame && last >= first {
			best := math.Inf(1)
			energy := make([]float64, 0, last-first+1)
			for f := first; f <= last; f++ {
				e := window(f)
				energy = append(energy, e)
				best = min(best, e)
			}
			threshold := max(best*splitQuietRatio, splitQuietFloor)
			for i := len(energy) - 1; i >= 0; i-- {
				if energy[i] <= threshold {
					c := (first+i)*frame + frame/2
					if c > start && c <= limit {
						cut = c
					}
					break
				}
			}
		}
		spans = append(spans, Span{start, cut})
		start = cut
	}
	return append(spans, Span{start, n})
}

// durSamples converts d to a sample count at rate without overflowing.
func durSamples(d time.Duration, rate int) int {
	n := d.Seconds() * float64(rate)
	if n >= float64(math.MaxInt/2) {
		return math.MaxInt / 2
	}
	return int(n)
}
