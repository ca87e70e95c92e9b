package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

// TestReadStore: GetUnlessSummary on two Stores sharing one file (two
// processes).
func TestReadStore(t *testing.T) {
	t.Parallel()
	drivertest.RunReadStoreTests(t, func(t *testing.T) (driver.Store, driver.Store) {
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
	drivertest.RunPageStoreTests(t, func(t *testing.T) (driver.Store, driver.Store) {
		path := filepath.Join(t.TempDir(), "earshot.db")
		a, b := openTemp(t, Config{Path: path}), openTemp(t, Config{Path: path})
		t.Cleanup(func() { a.Close(); b.Close() })
		return a, b
	})
}
