package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/storage/internal/sqlqueue"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

const deliveryCols = `id, transcript_id, attempts, next_attempt, done, lease_owner, lease_until, data`

func scanDelivery(sc scanner) (*webhook.Delivery, error) {
	var (
		d           webhook.Delivery
		done        int
		next, until int64
	)
	if err := sc.Scan(&d.ID, &d.TranscriptID, &d.Attempts, &next, &done, &d.LeaseOwner, &until, &d.Data); err != nil {
		return nil, err
	}
	d.Done = done != 0
	d.NextAttempt, d.LeaseUntil = decTime(next), decTime(until)
	return &d, nil
}

func deliveryTimes(d *webhook.Delivery) (next, until int64, err error) {
	if next, err = encTime("NextAttempt", d.NextAttempt); err != nil {
		return
	}
	until, err = encTime("LeaseUntil", d.LeaseUntil)
	return
}

// AddDelivery implements webhook.Queue.
func (s *Store) AddDelivery(ctx context.Context, d *webhook.Delivery) error {
	if d == nil || d.ID == "" {
		return errors.New("sqlite: AddDelivery: delivery id is empty")
	}
	next, until, err := deliveryTimes(d)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO deliveries (`+deliveryCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		d.ID, d.TranscriptID, d.Attempts, next, boolInt(d.Done), d.LeaseOwner, until, nonNil(d.Data))
	if err != nil {
		return fmt.Errorf("sqlite: adding delivery %s: %w", d.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: adding delivery %s: %w", d.ID, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: delivery %s: %w", d.ID, transcribe.ErrExists)
	}
	return nil
}

// deliveries is the webhook delivery queue (sqlqueue.Deliveries).
var deliveries = sqlqueue.Deliveries(sqlqueue.SQLite, deliveryCols)

// ClaimDelivery implements webhook.Queue.
func (s *Store) ClaimDelivery(ctx context.Context, c webhook.Claim) (*webhook.Delivery, error) {
	return claim(ctx, s, deliveries, c, scanDelivery)
}

// ExtendDelivery implements webhook.Queue.
func (s *Store) ExtendDelivery(ctx context.Context, l driver.Lease) error {
	return s.extend(ctx, deliveries, l)
}

// UpdateDelivery implements webhook.Queue.
func (s *Store) UpdateDelivery(ctx context.Context, d *webhook.Delivery) error {
	if d == nil {
		return errors.New("sqlite: UpdateDelivery: nil delivery")
	}
	next, until, err := deliveryTimes(d)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE deliveries SET
		attempts = ?, next_attempt = ?, done = ?, lease_owner = ?, lease_until = ?, data = ?
		WHERE id = ? AND lease_owner = ?`,
		d.Attempts, next, boolInt(d.Done), d.LeaseOwner, until, nonNil(d.Data),
		d.ID, d.LeaseOwner)
	if err != nil {
		return fmt.Errorf("sqlite: updating delivery %s: %w", d.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: updating delivery %s: %w", d.ID, err)
	} else if n == 1 {
		return nil
	}
	return s.missOrLost(ctx, deliveries, d.ID, d.LeaseOwner)
}

// PurgeDeliveries implements webhook.Queue.
func (s *Store) PurgeDeliveries(ctx context.Context, doneBefore time.Time, limit int) (int, error) {
	before, err := encTime("doneBefore", doneBefore)
	if err != nil {
		return 0, err
	}
	if limit <= 0 {
		limit = -1
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM deliveries WHERE id IN (
		SELECT id FROM deliveries WHERE done = 1 AND next_attempt < ? ORDER BY next_attempt, id LIMIT ?)`, before, limit)
	if err != nil {
		return 0, fmt.Errorf("sqlite: purging deliveries: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: purging deliveries: %w", err)
	}
	return int(n), nil
}
