package sqlite

import (
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

func TestIdempotencyConformance(t *testing.T) {
	t.Parallel()
	transcribetest.RunIdempotencyStoreTests(t, func(t *testing.T) transcribe.IdempotencyStore { return openTemp(t, Config{}) })
}
