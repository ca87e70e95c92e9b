package webhook

import (
	"context"
	"errors"
	"time"
)

// ErrNoDelivery is wrapped by Queue.ClaimDelivery's error when no delivery is due.
var ErrNoDelivery = errors.New("webhook: no delivery due")

// Delivery is a pending notification kept durably so that it survives
// restarts. Data (the URL, body and auth header) is sealed by the Notifier
// and opaque to the Queue.
type Delivery struct {
	ID           string
	TranscriptID string
	Attempts     int
	NextAttempt  time.Time
	Done         bool
	LeaseOwner   string
	LeaseUntil   time.Time
	Data         []byte
}

// Claim identifies a dispatcher claiming a delivery at Now for Lease.
type Claim struct {
	Owner string
	Now   time.Time
	Lease time.Duration
}

// Queue keeps webhook deliveries durably, for one or several dispatching
// processes. Methods are safe for concurrent use (and, for shared
// databases, by several processes). Contract (checked by
// webhooktest.RunQueueTests):
//
// Method names carry the noun so that one type (a SQL store, say) can
// implement transcribe.Store, transcribe.UploadStore and Queue at once.
//
//   - AddDelivery inserts d; an error wrapping transcribe.ErrExists when d.ID is
//     taken.
//   - ClaimDelivery atomically picks the delivery that is not Done, has the
//     earliest NextAttempt <= c.Now (ties: smaller ID) and whose lease is
//     free (no owner) or expired (LeaseUntil before c.Now), gives it to
//     c.Owner until c.Now+c.Lease and returns it; an error wrapping
//     ErrNoDelivery when none is due. Two concurrent claims never return
//     the same delivery while its lease holds.
//   - UpdateDelivery replaces the delivery with d.ID (every field but ID and
//     TranscriptID) if d.LeaseOwner is the stored lease owner; an error
//     wrapping transcribe.ErrLeaseLost otherwise, transcribe.ErrNotFound
//     when absent.
//   - PurgeDeliveries deletes up to limit Done deliveries whose NextAttempt is
//     before doneBefore (limit <= 0: all of them) and returns how many it
//     deleted.
//   - Times are kept to at least the microsecond.
type Queue interface {
	AddDelivery(ctx context.Context, d *Delivery) error
	ClaimDelivery(ctx context.Context, c Claim) (*Delivery, error)
	UpdateDelivery(ctx context.Context, d *Delivery) error
	PurgeDeliveries(ctx context.Context, doneBefore time.Time, limit int) (int, error)
}
