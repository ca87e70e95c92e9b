package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/storage/internal/sqlqueue"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// claim leases the first claimable row of t to c.Owner and scans it.
func claim[T any](ctx context.Context, s *Store, t *sqlqueue.Table, c driver.Claim, scan func(scanner) (*T, error)) (*T, error) {
	if c.Owner == "" {
		return nil, fmt.Errorf("sqlite: claiming a %s: owner is empty", t.What)
	}
	nowN, until, err := leaseWindow(c.Now, c.Lease)
	if err != nil {
		return nil, err
	}
	r, err := scan(s.db.QueryRowContext(ctx, t.Claim, c.Owner, until, nowN))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: %w", t.Empty)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: claiming a %s: %w", t.What, err)
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
func (s *Store) extend(ctx context.Context, t *sqlqueue.Table, l driver.Lease) error {
	n, err := encTime("until", l.Until)
	if err != nil {
		return err
	}
	if l.Owner == "" {
		return s.missOrLost(ctx, t, l.ID, l.Owner)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE `+t.Name+` SET lease_until = ? WHERE id = ? AND lease_owner = ?`, n, l.ID, l.Owner)
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
func (s *Store) missOrLost(ctx context.Context, t *sqlqueue.Table, id, owner string) error {
	what := t.What
	var cur string
	err := s.db.QueryRowContext(ctx, `SELECT lease_owner FROM `+t.Name+` WHERE id = ?`, id).Scan(&cur)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("sqlite: %s %s: %w", what, id, transcribe.ErrNotFound)
	case err != nil:
		return fmt.Errorf("sqlite: reading %s %s: %w", what, id, err)
	}
	return fmt.Errorf("sqlite: %s %s is leased by %q, not %q: %w", what, id, cur, owner, transcribe.ErrLeaseLost)
}
