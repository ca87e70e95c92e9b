package postgres

import (
	"testing"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestReadStore: GetUnlessSummary on two Stores sharing one database (two
// processes).
func TestReadStore(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	transcribetest.RunReadStoreTests(t, func(t *testing.T) (transcribe.Store, transcribe.Store) {
		return openTest(t, url, "reads"), openTest(t, url, "reads")
	})
}

// TestPageStore: ListPage on two Stores sharing one database (two
// processes).
func TestPageStore(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	transcribetest.RunPageStoreTests(t, func(t *testing.T) (transcribe.Store, transcribe.Store) {
		return openTest(t, url, "pages"), openTest(t, url, "pages")
	})
}
