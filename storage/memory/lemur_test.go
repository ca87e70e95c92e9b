package memory_test

import (
	"testing"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

func TestLeMURStoreConformance(t *testing.T) {
	t.Parallel()
	drivertest.RunLeMURStoreTests(t, func(t *testing.T) driver.LeMURStore { return memory.NewLeMURStore() })
}
