package drivertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// RunIdempotencyStoreTests checks every clause of the
// driver.IdempotencyStore contract. newStore must return a fresh,
// empty store each time.
func RunIdempotencyStoreTests(t *testing.T, newStore func(t *testing.T) driver.IdempotencyStore) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	rec := func(project, kind, key, hash, id string, created time.Time) *driver.IdempotencyRecord {
		return &driver.IdempotencyRecord{ProjectID: project, Kind: kind, Key: key, RequestHash: hash, ResourceID: id, Created: created}
	}
	same := func(t *testing.T, got, want *driver.IdempotencyRecord) {
		t.Helper()
		if got == nil || got.ProjectID != want.ProjectID || got.Kind != want.Kind || got.Key != want.Key ||
			got.RequestHash != want.RequestHash || got.ResourceID != want.ResourceID || !got.Created.Equal(want.Created) {
			t.Fatalf("record %+v, want %+v", got, want)
		}
	}
	t.Run("ClaimReturnsTheFirst", func(t *testing.T) {
		s := newStore(t)
		first := rec("p", "transcript", "k", "h1", "id1", now)
		got, err := s.ClaimIdempotency(ctx, first, now.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, first)
		got, err = s.ClaimIdempotency(ctx, rec("p", "transcript", "k", "h2", "id2", now.Add(time.Second)), now.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, first)
		// Other projects and kinds have keys of their own.
		for _, other := range []*driver.IdempotencyRecord{rec("q", "transcript", "k", "h3", "id3", now), rec("p", "upload", "k", "h4", "id4", now)} {
			got, err = s.ClaimIdempotency(ctx, other, now.Add(-time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			same(t, got, other)
		}
	})
	t.Run("ExpiredIsReplaced", func(t *testing.T) {
		s := newStore(t)
		old := rec("p", "transcript", "k", "h1", "id1", now.Add(-25*time.Hour))
		if _, err := s.ClaimIdempotency(ctx, old, now.Add(-48*time.Hour)); err != nil {
			t.Fatal(err)
		}
		fresh := rec("p", "transcript", "k", "h2", "id2", now)
		got, err := s.ClaimIdempotency(ctx, fresh, now.Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, fresh)
	})
	t.Run("DeleteIsConditional", func(t *testing.T) {
		s := newStore(t)
		first := rec("p", "upload", "k", "h1", "id1", now)
		if _, err := s.ClaimIdempotency(ctx, first, now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteIdempotency(ctx, "p", "upload", "k", "other"); err != nil {
			t.Fatal(err)
		}
		got, _ := s.ClaimIdempotency(ctx, rec("p", "upload", "k", "h2", "id2", now), now.Add(-time.Hour))
		same(t, got, first)
		if err := s.DeleteIdempotency(ctx, "p", "upload", "k", "id1"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteIdempotency(ctx, "p", "upload", "absent", "id1"); err != nil {
			t.Fatal(err)
		}
		next := rec("p", "upload", "k", "h3", "id3", now)
		got, _ = s.ClaimIdempotency(ctx, next, now.Add(-time.Hour))
		same(t, got, next)
	})
	t.Run("Sweep", func(t *testing.T) {
		s := newStore(t)
		for i, age := range []time.Duration{30 * time.Hour, 26 * time.Hour, time.Hour} {
			if _, err := s.ClaimIdempotency(ctx, rec("p", "transcript", string(rune('a'+i)), "h", "id", now.Add(-age)), now.Add(-100*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		n, err := s.SweepIdempotency(ctx, now.Add(-24*time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("swept %d, %v; want 2", n, err)
		}
		keep := rec("p", "transcript", "c", "other", "id9", now)
		got, _ := s.ClaimIdempotency(ctx, keep, now.Add(-100*time.Hour))
		if got.RequestHash != "h" {
			t.Errorf("the fresh record was swept: %+v", got)
		}
	})
	t.Run("ConcurrentClaimsAgree", func(t *testing.T) {
		s := newStore(t)
		const n = 8
		got := make([]*driver.IdempotencyRecord, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				got[i], errs[i] = s.ClaimIdempotency(ctx, rec("p", "transcript", "race", "h", string(rune('a'+i)), now), now.Add(-time.Hour))
			})
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if got[i].ResourceID != got[0].ResourceID {
				t.Fatalf("claims disagree: %q and %q", got[i].ResourceID, got[0].ResourceID)
			}
		}
	})
}
