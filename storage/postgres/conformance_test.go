package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
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
// subtest gets a fresh store in a schema of its own on one database per
// suite (a fresh database per subtest would cost a CREATE DATABASE each).
func TestConformance(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	n := 0
	fresh := func(t *testing.T) *Store {
		n++
		return openTest(t, url, "conformance_"+itoa(n))
	}
	t.Run("Store", func(t *testing.T) {
		transcribetest.RunStoreTests(t, func(t *testing.T) transcribe.Store { return fresh(t) })
	})
	t.Run("UploadStore", func(t *testing.T) {
		transcribetest.RunUploadStoreTests(t, func(t *testing.T) transcribe.UploadStore { return fresh(t) })
	})
	t.Run("Queue", func(t *testing.T) {
		webhooktest.RunQueueTests(t, func(t *testing.T) webhook.Queue { return fresh(t) })
	})
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}
