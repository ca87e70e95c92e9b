package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
	"github.com/earshot-dev/earshot/transcribe/queue/queuetest"
	"github.com/earshot-dev/earshot/webhook"
	"github.com/earshot-dev/earshot/webhook/webhooktest"
)

// openTest opens a Store on url in schema (DefaultSchema when empty),
// closed when the test ends.
func openTest(t testing.TB, url, schema string) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, Config{URL: url, Schema: schema, MaxConns: 12})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConformance runs every suite against a real PostgreSQL. Each
// subtest opens a new Store on one schema emptied for it (TRUNCATE ...
// RESTART IDENTITY): the suites run their subtests one after another, and
// emptying tables costs a fraction of creating a database or migrating a
// schema for each.
func TestConformance(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	conn := admin(t, url)
	fresh := func(t *testing.T) *Store {
		s := openTest(t, url, "conformance")
		if _, err := conn.Exec(context.Background(),
			`TRUNCATE conformance.transcripts, conformance.uploads, conformance.deliveries RESTART IDENTITY`); err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Run("Store", func(t *testing.T) {
		drivertest.RunStoreTests(t, func(t *testing.T) driver.Store { return fresh(t) })
	})
	t.Run("UploadStore", func(t *testing.T) {
		drivertest.RunUploadStoreTests(t, func(t *testing.T) driver.UploadStore { return fresh(t) })
	})
	t.Run("Queue", func(t *testing.T) {
		webhooktest.RunQueueTests(t, func(t *testing.T) webhook.Queue { return fresh(t) })
	})
	t.Run("LeasedQueue", func(t *testing.T) {
		queuetest.Run(t,
			drivertest.JobQueue(func(t *testing.T) driver.Store { return fresh(t) }),
			webhooktest.DeliveryQueue(func(t *testing.T) webhook.Queue { return fresh(t) }))
	})
}
