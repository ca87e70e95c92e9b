package postgres

import (
	"context"
	"testing"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/driver/drivertest"
)

func TestIdempotencyConformance(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	conn := admin(t, url)
	drivertest.RunIdempotencyStoreTests(t, func(t *testing.T) driver.IdempotencyStore {
		s := openTest(t, url, "idempotency")
		if err := s.idemTable(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(context.Background(), `TRUNCATE idempotency.idempotency_keys`); err != nil {
			t.Fatal(err)
		}
		return s
	})
}
