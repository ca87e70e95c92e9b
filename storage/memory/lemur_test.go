package memory_test

import (
	"testing"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

func TestLeMURStoreConformance(t *testing.T) {
	t.Parallel()
	transcribetest.RunLeMURStoreTests(t, func(t *testing.T) transcribe.LeMURStore { return memory.NewLeMURStore() })
}
