package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/earshot-dev/earshot/transcribe"
)

// table is one leased queue in a table of the schema (the jobs among the
// transcripts, the webhook deliveries): one implementation of claiming,
// extending and checking a lease serves both.
type table struct {
	name  string // the table, keyed by its id column
	what  string // "transcript", "delivery"
	empty error  // wrapped when nothing is due
	// claim is the statement (claimSQL) that leases the first claimable
	// row to $1 until $2 at now $3 and returns it.
	claim string
}

// claimSQL is one statement: the SELECT ... FOR UPDATE SKIP LOCKED of a
// CTE locks the first claimable row and the UPDATE around it leases it. A
// concurrent claimer skips the locked row and takes the next, so
// claimers never wait for one another and never get the same row; a row
// that changed between the snapshot and the lock is re-checked by
// PostgreSQL before it is returned. due selects the claimable rows at now
// $3 (it repeats the predicate of the table's partial index, so the scan
// reads only those), order is the queue's, set what a claim changes
// beside the lease.
func claimSQL(table, key, due, order, set, cols string) string {
	if set != "" {
		set = ", " + set
	}
	return `WITH pick AS (
		SELECT ` + key + ` FROM ` + table + `
		WHERE ` + due + `
		ORDER BY ` + order + `
		LIMIT 1
		FOR UPDATE SKIP LOCKED)
	UPDATE ` + table + ` SET lease_owner = $1, lease_until = $2` + set + `
	WHERE ` + key + ` = (SELECT ` + key + ` FROM pick)
	RETURNING ` + cols
}

// claim leases the first claimable row of t to c.Owner and reads it.
func claim[T any](ctx context.Context, s *Store, t *table, c transcribe.Claim, read func(pgx.Row) (*T, error)) (*T, error) {
	if c.Owner == "" {
		return nil, fmt.Errorf("postgres: claiming a %s: owner is empty", t.what)
	}
	if err := checkText("Claim.Owner", c.Owner); err != nil {
		return nil, err
	}
	now, until, err := leaseWindow(c.Now, c.Lease)
	if err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, errClosed("claiming a " + t.what)
	}
	r, err := read(s.pool.QueryRow(ctx, t.claim, c.Owner, until, now))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: %w", t.empty)
	}
	if err != nil {
		return nil, s.fail("claiming a "+t.what, err)
	}
	return r, nil
}

// extend moves the lease of row l.ID when l.Owner (not empty) holds it,
// in one statement that also reads the row's owner, to tell an absent id
// (ErrNotFound) from a lost lease.
func (s *Store) extend(ctx context.Context, t *table, l transcribe.Lease) error {
	until, err := stamp("Lease.Until", l.Until)
	if err != nil {
		return err
	}
	if !storable(l.ID) {
		return fmt.Errorf("postgres: %s %q: %w", t.what, l.ID, transcribe.ErrNotFound)
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
			UPDATE `+t.name+` SET lease_until = $3 WHERE id = $1 AND lease_owner = $2 AND $2 <> '' RETURNING 1)
		SELECT EXISTS (SELECT FROM moved), (SELECT lease_owner FROM `+t.name+` WHERE id = $1)`,
		l.ID, owner, until).Scan(&moved, &cur)
	if err != nil {
		return s.fail("extending the lease of "+l.ID, err)
	}
	if moved {
		return nil
	}
	return lostOrMissing(t.what, l.ID, l.Owner, cur)
}
