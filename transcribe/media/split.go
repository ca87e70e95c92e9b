package media

import (
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// Span is a half-open range of sample indices [Start, End) of one channel
// (transcribe.Span).
type Span = transcribe.Span

// SplitAtPauses cuts mono audio at rate samples per second into
// consecutive spans no longer than maxLen, at pauses: see
// transcribe.SplitAtPauses, where it lives so that the Service cuts long
// jobs into pieces the same way.
func SplitAtPauses(samples []int16, rate int, maxLen time.Duration) []Span {
	return transcribe.SplitAtPauses(samples, rate, maxLen)
}
