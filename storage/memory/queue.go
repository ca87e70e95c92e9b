package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// table is one leased queue kept in memory (the jobs among the
// transcripts, the webhook deliveries): one implementation of claiming
// and extending a lease serves both.
type table[T any] struct {
	what  string // "transcript", "delivery"
	empty error  // wrapped when nothing is due
	// get returns row id.
	get func(s *Store, id string) (*T, bool)
	// first returns the first row in queue order that a claim at now may
	// take, nil when none.
	first func(s *Store, now time.Time) *T
	// lease points at a row's lease owner and end.
	lease func(*T) (*string, *time.Time)
	// claimed, when set, makes what a claim changes beside the lease.
	claimed func(*T)
	clone   func(*T) *T
}

// claim leases the first claimable row of t to c.Owner.
func claim[T any](ctx context.Context, s *Store, t *table[T], c driver.Claim) (*T, error) {
	if c.Owner == "" {
		return nil, fmt.Errorf("memory: claiming a %s: owner is empty", t.what)
	}
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	r := t.first(s, c.Now)
	if r == nil {
		return nil, fmt.Errorf("memory: %w", t.empty)
	}
	owner, until := t.lease(r)
	*owner, *until = c.Owner, utc(c.Now.Add(c.Lease))
	if t.claimed != nil {
		t.claimed(r)
	}
	return t.clone(r), nil
}

// extend moves the lease of row l.ID when l.Owner (not empty) holds it.
func extend[T any](ctx context.Context, s *Store, t *table[T], l driver.Lease) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	r, ok := t.get(s, l.ID)
	if !ok {
		return fmt.Errorf("memory: %s %s: %w", t.what, l.ID, transcribe.ErrNotFound)
	}
	owner, until := t.lease(r)
	if l.Owner == "" || *owner != l.Owner {
		return lost(t.what, l.ID, *owner, l.Owner)
	}
	*until = utc(l.Until)
	return nil
}

// lost is the refusal of a write by owner to a row leased by cur.
func lost(what, id, cur, owner string) error {
	return fmt.Errorf("memory: %s %s is leased by %q, not %q: %w", what, id, cur, owner, transcribe.ErrLeaseLost)
}
