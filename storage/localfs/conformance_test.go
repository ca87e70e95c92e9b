package localfs

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

func TestConformance(t *testing.T) {
	transcribetest.RunBlobStoreTests(t, func(t *testing.T) transcribe.BlobStore {
		s, err := New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
