package memory

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

func TestConformance(t *testing.T) {
	t.Run("Store", func(t *testing.T) {
		transcribetest.RunStoreTests(t, func(t *testing.T) transcribe.Store { return New() })
	})
	t.Run("BlobStore", func(t *testing.T) {
		transcribetest.RunBlobStoreTests(t, func(t *testing.T) transcribe.BlobStore { return NewBlobStore() })
	})
}
