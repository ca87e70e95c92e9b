package realtime

import (
	"time"

	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// The fake recognizer, clock and PCM builders of these tests are
// realtime/realtimetest/streamtest's, shared with realtime/universal.

// newFakeClock returns a clock at a fixed time with sub-microsecond digits.
func newFakeClock() *streamtest.Clock {
	return streamtest.NewClock(time.Date(2026, 11, 4, 14, 14, 36, 994363000, time.UTC))
}
