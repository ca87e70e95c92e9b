package postgres

import (
	"context"
	"testing"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/realtimetest"
)

// TestRealtimeConformance runs the realtime.StateStore suite against a
// real PostgreSQL, each subtest on the same schema emptied for it.
func TestRealtimeConformance(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	conn := admin(t, url)
	realtimetest.RunStateStoreTests(t, func(t *testing.T) realtime.StateStore {
		s := openTest(t, url, "rt")
		if _, err := conn.Exec(context.Background(), `TRUNCATE rt.realtime_tokens, rt.realtime_sessions`); err != nil {
			t.Fatal(err)
		}
		return s.Realtime()
	})
}
