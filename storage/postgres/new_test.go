package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

// TestNewOnCallersPool: a Store on a pool the caller created (with
// ConfigurePool) passes the Store conformance suite, and its Close leaves
// the pool open; a pool with another search_path is refused.
func TestNewOnCallersPool(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pool := func(t *testing.T, schema string) *pgxpool.Pool {
		pc, err := pgxpool.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		if schema != "" {
			if err := ConfigurePool(pc, schema); err != nil {
				t.Fatal(err)
			}
		}
		p, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		return p
	}

	conn := admin(t, url)
	drivertest.RunStoreTests(t, func(t *testing.T) driver.Store {
		s, err := New(ctx, pool(t, "callers"), "callers")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `TRUNCATE callers.transcripts, callers.uploads, callers.deliveries RESTART IDENTITY`); err != nil {
			t.Fatal(err)
		}
		return s
	})

	p := pool(t, "callers_kept")
	s, err := New(ctx, p, "callers_kept")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := p.QueryRow(ctx, `SELECT count(*) FROM transcripts`).Scan(&n); err != nil {
		t.Fatalf("the caller's pool after the Store's Close: %v", err)
	}

	if _, err := New(ctx, pool(t, ""), "callers_other"); err == nil || !strings.Contains(err.Error(), "search_path") {
		t.Errorf("a pool without the schema as its search_path: New = %v, want an error naming search_path", err)
	}
	if err := ConfigurePool(&pgxpool.Config{}, "pg_bad"); err == nil {
		t.Error("ConfigurePool took a reserved schema name")
	}
}
