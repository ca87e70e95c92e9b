package localfs

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

func TestConformance(t *testing.T) {
	drivertest.RunBlobStoreTests(t, func(t *testing.T) driver.BlobStore {
		s, err := New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
