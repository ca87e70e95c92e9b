package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// table is one leased queue in a table of the database (the jobs among
// the transcripts, the webhook deliveries): one implementation of
// claiming, extending and checking a lease serves both.
type table struct {
	name  string // the table, keyed by its id column
	what  string // "transcript", "delivery"
	empty error  // wrapped when nothing is due
	// claim is the statement (claimSQL) that leases the first claimable
	// row to ?1 until ?2 at now ?3 and returns it.
	claim string
}

// claimSQL is one UPDATE ... WHERE key = (SELECT ...) RETURNING
// statement: SQLite runs it under the database's write lock, so claims
// are atomic across connections and processes. due selects the
// claimable rows at now ?3, order is the queue's, set what a claim
// changes beside the lease.
func claimSQL(table, key, due, order, set, cols string) string {
	if set != "" {
		set = ", " + set
	}
	return `UPDATE ` + table + `
		SET lease_owner = ?1, lease_until = ?2` + set + `
		WHERE ` + key + ` = (
			SELECT ` + key + ` FROM ` + table + `
			WHERE ` + due + `
			ORDER BY ` + order + ` LIMIT 1)
		RETURNING ` + cols
}

// claim leases the first claimable row of t to c.Owner and scans it.
func claim[T any](ctx context.Context, s *Store, t *table, c transcribe.Claim, scan func(scanner) (*T, error)) (*T, error) {
	if c.Owner == "" {
		return nil, fmt.Errorf("sqlite: claiming a %s: owner is empty", t.what)
	}
	nowN, until, err := leaseWindow(c.Now, c.Lease)
	if err != nil {
		return nil, err
	}
	r, err := scan(s.db.QueryRowContext(ctx, t.claim, c.Owner, until, nowN))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: %w", t.empty)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: claiming a %s: %w", t.what, err)
	}
	return r, nil
}

// leaseWindow encodes a claim's "now" and the end of its lease.
func leaseWindow(now time.Time, lease time.Duration) (nowN, until int64, err error) {
	if nowN, err = encTime("now", now); err != nil {
		return 0, 0, err
	}
	until, err = encTime("lease end", now.Add(lease))
	return nowN, until, err
}

// extend moves the lease of row l.ID when l.Owner (not empty) holds it.
func (s *Store) extend(ctx context.Context, t *table, l transcribe.Lease) error {
	n, err := encTime("until", l.Until)
	if err != nil {
		return err
	}
	if l.Owner == "" {
		return s.missOrLost(ctx, t, l.ID, l.Owner)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE `+t.name+` SET lease_until = ? WHERE id = ? AND lease_owner = ?`, n, l.ID, l.Owner)
	if err != nil {
		return fmt.Errorf("sqlite: extending the lease of %s: %w", l.ID, err)
	}
	if k, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: extending the lease of %s: %w", l.ID, err)
	} else if k == 1 {
		return nil
	}
	return s.missOrLost(ctx, t, l.ID, l.Owner)
}

// missOrLost explains an UPDATE that matched no row: the id is absent
// (ErrNotFound) or leased by someone else (ErrLeaseLost).
func (s *Store) missOrLost(ctx context.Context, t *table, id, owner string) error {
	what := t.what
	var cur string
	err := s.db.QueryRowContext(ctx, `SELECT lease_owner FROM `+t.name+` WHERE id = ?`, id).Scan(&cur)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("sqlite: %s %s: %w", what, id, transcribe.ErrNotFound)
	case err != nil:
		return fmt.Errorf("sqlite: reading %s %s: %w", what, id, err)
	}
	return fmt.Errorf("sqlite: %s %s is leased by %q, not %q: %w", what, id, cur, owner, transcribe.ErrLeaseLost)
}
