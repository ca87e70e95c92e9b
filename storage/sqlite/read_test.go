package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestReadStore: GetUnlessSummary on two Stores sharing one file (two
// processes).
func TestReadStore(t *testing.T) {
	t.Parallel()
	transcribetest.RunReadStoreTests(t, func(t *testing.T) (transcribe.Store, transcribe.Store) {
		path := filepath.Join(t.TempDir(), "earshot.db")
		a, b := openTemp(t, Config{Path: path}), openTemp(t, Config{Path: path})
		t.Cleanup(func() { a.Close(); b.Close() })
		return a, b
	})
}

// TestPageStore: ListPage on two Stores sharing one database (two
// processes).
func TestPageStore(t *testing.T) {
	t.Parallel()
	transcribetest.RunPageStoreTests(t, func(t *testing.T) (transcribe.Store, transcribe.Store) {
		path := filepath.Join(t.TempDir(), "earshot.db")
		a, b := openTemp(t, Config{Path: path}), openTemp(t, Config{Path: path})
		t.Cleanup(func() { a.Close(); b.Close() })
		return a, b
	})
}
