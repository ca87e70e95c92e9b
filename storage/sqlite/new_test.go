package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

// callersDB opens a *sql.DB the way a caller would for New: with DSN.
func callersDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	dsn, err := DSN(Config{Path: path, Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestNewOnCallersDB: a Store on a *sql.DB the caller opened passes the
// Store conformance suite, and its Close leaves the caller's db open.
func TestNewOnCallersDB(t *testing.T) {
	drivertest.RunStoreTests(t, func(t *testing.T) driver.Store {
		s, err := New(context.Background(), callersDB(t, filepath.Join(t.TempDir(), "app.db")))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})

	path := filepath.Join(t.TempDir(), "app.db")
	db := callersDB(t, path)
	s, err := New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM transcripts`).Scan(&n); err != nil {
		t.Fatalf("the caller's db after the Store's Close: %v", err)
	}
	// The caller's tables live beside the store's.
	if _, err := db.Exec(`CREATE TABLE app_users (id integer)`); err != nil {
		t.Fatal(err)
	}
}

// TestNewRefusesUnsuitableDB: a database the store cannot run on safely
// is refused with an error naming what is wrong.
func TestNewRefusesUnsuitableDB(t *testing.T) {
	plain, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "plain.db")) // no WAL, no foreign keys
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	mem, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	for _, tc := range []struct {
		name string
		db   *sql.DB
		want string
	}{
		{"nil", nil, "db is nil"},
		{"without WAL and foreign keys", plain, "foreign_keys=0"},
		{"in memory", mem, "in-memory"},
	} {
		if _, err := New(context.Background(), tc.db); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New = %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
