package postgres

import (
	"testing"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

// TestReadStore: GetUnlessSummary on two Stores sharing one database (two
// processes).
func TestReadStore(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	drivertest.RunReadStoreTests(t, func(t *testing.T) (driver.Store, driver.Store) {
		return openTest(t, url, "reads"), openTest(t, url, "reads")
	})
}

// TestPageStore: ListPage on two Stores sharing one database (two
// processes).
func TestPageStore(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	drivertest.RunPageStoreTests(t, func(t *testing.T) (driver.Store, driver.Store) {
		return openTest(t, url, "pages"), openTest(t, url, "pages")
	})
}
