package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/earshot-dev/earshot/storage/internal/sqlqueue"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

const deliveryCols = `id, transcript_id, attempts, next_attempt, done, lease_owner, lease_until, data`

func readDelivery(row pgx.Row) (*webhook.Delivery, error) {
	var (
		d           webhook.Delivery
		next, until pgtype.Timestamptz
	)
	if err := row.Scan(&d.ID, &d.TranscriptID, &d.Attempts, &next, &d.Done, &d.LeaseOwner, &until, &d.Data); err != nil {
		return nil, err
	}
	d.NextAttempt, d.LeaseUntil = unstamp(next), unstamp(until)
	return &d, nil
}

// checkDelivery rejects what the table cannot hold and encodes the times.
func checkDelivery(op string, d *webhook.Delivery) (next, until pgtype.Timestamptz, err error) {
	if d == nil {
		return next, until, fmt.Errorf("postgres: %s: nil delivery", op)
	}
	if d.ID == "" {
		return next, until, fmt.Errorf("postgres: %s: delivery id is empty", op)
	}
	for _, f := range [][2]string{{"ID", d.ID}, {"TranscriptID", d.TranscriptID}, {"LeaseOwner", d.LeaseOwner}} {
		if err := checkText("delivery "+f[0], f[1]); err != nil {
			return next, until, err
		}
	}
	if next, err = stamp("NextAttempt", d.NextAttempt); err != nil {
		return next, until, err
	}
	until, err = stamp("LeaseUntil", d.LeaseUntil)
	return next, until, err
}

// AddDelivery implements webhook.Queue.
func (s *Store) AddDelivery(ctx context.Context, d *webhook.Delivery) error {
	next, until, err := checkDelivery("AddDelivery", d)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return errClosed("AddDelivery")
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO deliveries (`+deliveryCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (id) DO NOTHING`,
		d.ID, d.TranscriptID, d.Attempts, next, d.Done, d.LeaseOwner, until, bytea(d.Data))
	if err != nil {
		return s.fail("adding delivery "+d.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: delivery %s: %w", d.ID, transcribe.ErrExists)
	}
	return nil
}

// deliveries is the webhook delivery queue (sqlqueue.Deliveries).
var deliveries = sqlqueue.Deliveries(sqlqueue.Postgres, deliveryCols)

// ClaimDelivery implements webhook.Queue.
func (s *Store) ClaimDelivery(ctx context.Context, c webhook.Claim) (*webhook.Delivery, error) {
	return claim(ctx, s, deliveries, c, readDelivery)
}

// ExtendDelivery implements webhook.Queue. An absent id is ErrNotFound.
func (s *Store) ExtendDelivery(ctx context.Context, l driver.Lease) error {
	return s.extend(ctx, deliveries, l)
}

// UpdateDelivery implements webhook.Queue: the owner check and the write
// are one UPDATE, which also reads the current owner for the refusal.
func (s *Store) UpdateDelivery(ctx context.Context, d *webhook.Delivery) error {
	if d != nil && d.ID != "" && !storable(d.ID) {
		return fmt.Errorf("postgres: delivery %q: %w", d.ID, transcribe.ErrNotFound)
	}
	next, until, err := checkDelivery("UpdateDelivery", d)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return errClosed("UpdateDelivery")
	}
	var (
		changed bool
		owner   *string
	)
	err = s.pool.QueryRow(ctx, `WITH changed AS (
			UPDATE deliveries SET attempts = $2, next_attempt = $3, done = $4, lease_owner = $5, lease_until = $6, data = $7
			WHERE id = $1 AND lease_owner = $5
			RETURNING 1)
		SELECT EXISTS (SELECT FROM changed), (SELECT lease_owner FROM deliveries WHERE id = $1)`,
		d.ID, d.Attempts, next, d.Done, d.LeaseOwner, until, bytea(d.Data)).Scan(&changed, &owner)
	if err != nil {
		return s.fail("updating delivery "+d.ID, err)
	}
	if changed {
		return nil
	}
	return lostOrMissing("delivery", d.ID, d.LeaseOwner, owner)
}

// PurgeDeliveries implements webhook.Queue. Rows another purger is
// deleting are skipped (FOR UPDATE SKIP LOCKED), so concurrent purges
// split the work instead of waiting on each other.
func (s *Store) PurgeDeliveries(ctx context.Context, doneBefore time.Time, limit int) (int, error) {
	if s.closed.Load() {
		return 0, errClosed("PurgeDeliveries")
	}
	var n *int64
	if limit > 0 {
		l := int64(limit)
		n = &l
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM deliveries WHERE id IN (
		SELECT id FROM deliveries WHERE done AND next_attempt < $1
		ORDER BY next_attempt, id
		LIMIT $2
		FOR UPDATE SKIP LOCKED)`, bound(doneBefore), n)
	if err != nil {
		return 0, s.fail("purging deliveries", err)
	}
	return int(tag.RowsAffected()), nil
}
