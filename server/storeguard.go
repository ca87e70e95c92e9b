package server

import (
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// storeTimeout is httpapi.Config.StoreTimeout for EARSHOT_STORE_TIMEOUT,
// whose 0 disables the bound (httpapi's 0 is its default).
func storeTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

// idempotencyStore is the region's store as the keeper of Idempotency-Key
// records when it is one (the bundled sqlite and postgres stores are, so
// processes sharing a database share their keys); nil otherwise, which
// leaves them in each process's memory.
func idempotencyStore(s any) driver.IdempotencyStore {
	is, _ := s.(driver.IdempotencyStore)
	return is
}
