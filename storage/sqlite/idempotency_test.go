package sqlite

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

func TestIdempotencyConformance(t *testing.T) {
	t.Parallel()
	drivertest.RunIdempotencyStoreTests(t, func(t *testing.T) driver.IdempotencyStore { return openTemp(t, Config{}) })
}
