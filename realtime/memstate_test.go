package realtime_test

import (
	"testing"

	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/realtimetest"
)

func TestMemoryStateConformance(t *testing.T) {
	t.Parallel()
	realtimetest.RunStateStoreTests(t, func(*testing.T) realtime.StateStore { return realtime.NewMemoryState() })
}
