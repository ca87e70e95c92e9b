package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/earshot-dev/earshot/storage/internal/sqlqueue"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// claim leases the first claimable row of t to c.Owner and reads it.
func claim[T any](ctx context.Context, s *Store, t *sqlqueue.Table, c driver.Claim, read func(pgx.Row) (*T, error)) (*T, error) {
	if c.Owner == "" {
		return nil, fmt.Errorf("postgres: claiming a %s: owner is empty", t.What)
	}
	if err := checkText("Claim.Owner", c.Owner); err != nil {
		return nil, err
	}
	now, until, err := leaseWindow(c.Now, c.Lease)
	if err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, errClosed("claiming a " + t.What)
	}
	r, err := read(s.pool.QueryRow(ctx, t.Claim, c.Owner, until, now))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: %w", t.Empty)
	}
	if err != nil {
		return nil, s.fail("claiming a "+t.What, err)
	}
	return r, nil
}

// extend moves the lease of row l.ID when l.Owner (not empty) holds it,
// in one statement that also reads the row's owner, to tell an absent id
// (ErrNotFound) from a lost lease.
func (s *Store) extend(ctx context.Context, t *sqlqueue.Table, l driver.Lease) error {
	until, err := stamp("Lease.Until", l.Until)
	if err != nil {
		return err
	}
	if !storable(l.ID) {
		return fmt.Errorf("postgres: %s %q: %w", t.What, l.ID, transcribe.ErrNotFound)
	}
	// An empty owner (or one no row can hold) never matches, but the
	// statement still runs, to tell an absent id (ErrNotFound) apart.
	owner := l.Owner
	if !storable(owner) {
		owner = ""
	}
	if s.closed.Load() {
		return errClosed("extending a lease")
	}
	var (
		moved bool
		cur   *string
	)
	err = s.pool.QueryRow(ctx, `WITH moved AS (
			UPDATE `+t.Name+` SET lease_until = $3 WHERE id = $1 AND lease_owner = $2 AND $2 <> '' RETURNING 1)
		SELECT EXISTS (SELECT FROM moved), (SELECT lease_owner FROM `+t.Name+` WHERE id = $1)`,
		l.ID, owner, until).Scan(&moved, &cur)
	if err != nil {
		return s.fail("extending the lease of "+l.ID, err)
	}
	if moved {
		return nil
	}
	return lostOrMissing(t.What, l.ID, l.Owner, cur)
}
