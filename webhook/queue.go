package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/queue"
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

// Claim identifies a dispatcher claiming a delivery at Now for Lease (the
// leased queue's claim, shared with transcription jobs).
type Claim = queue.Claim

// Queue keeps webhook deliveries durably, for one or several dispatching
// processes. Methods are safe for concurrent use (and, for shared
// databases, by several processes). The lease rules are those of every
// leased queue (queue.Queue, checked through DeliveryQueue by
// queuetest.Run); the rest is checked by webhooktest.RunQueueTests:
//
// Method names carry the noun so that one type (a SQL store, say) can
// implement driver.Store, driver.UploadStore and Queue at once.
//
//   - AddDelivery inserts d; an error wrapping transcribe.ErrExists when d.ID is
//     taken.
//   - ClaimDelivery atomically picks the delivery that is not Done, has the
//     earliest NextAttempt <= c.Now (ties: smaller ID) and whose lease is
//     free (no owner) or expired (LeaseUntil before c.Now), gives it to
//     c.Owner until c.Now+c.Lease and returns it; an error wrapping
//     ErrNoDelivery when none is due. Two concurrent claims never return
//     the same delivery while its lease holds.
//   - ExtendDelivery moves LeaseUntil of delivery l.ID to l.Until if
//     l.Owner (not empty) holds its lease; an error wrapping
//     transcribe.ErrLeaseLost otherwise (ErrNotFound or ErrLeaseLost for
//     an absent id).
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
	ExtendDelivery(ctx context.Context, l driver.Lease) error
	UpdateDelivery(ctx context.Context, d *Delivery) error
	PurgeDeliveries(ctx context.Context, doneBefore time.Time, limit int) (int, error)
}

// DeliveryQueue returns the deliveries of q as a leased queue: due ones
// by earliest NextAttempt, claimed with ClaimDelivery. now is the clock
// of the writes: Complete stores a delivery as Done with NextAttempt now
// (PurgeDeliveries goes by it); RetryAt stores it due at the given time.
// Both give the lease back (expired, owner kept) with UpdateDelivery. The
// Notifier dispatches from it, and queuetest checks a Queue through it.
func DeliveryQueue(q Queue, now func() time.Time) queue.Queue[*Delivery] {
	return deliveryQueue{q, now}
}

type deliveryQueue struct {
	q   Queue
	now func() time.Time
}

func (q deliveryQueue) Claim(ctx context.Context, c Claim) (*Delivery, error) {
	d, err := q.q.ClaimDelivery(ctx, c)
	if errors.Is(err, ErrNoDelivery) && !errors.Is(err, queue.ErrEmpty) {
		err = fmt.Errorf("%w (%w)", err, queue.ErrEmpty)
	}
	return d, err
}

// Extend moves the lease with ExtendDelivery; an absent delivery has lost it.
func (q deliveryQueue) Extend(ctx context.Context, l driver.Lease) error {
	err := q.q.ExtendDelivery(ctx, l)
	if errors.Is(err, transcribe.ErrNotFound) && !errors.Is(err, transcribe.ErrLeaseLost) {
		err = fmt.Errorf("%w (%w)", err, transcribe.ErrLeaseLost)
	}
	return err
}

func (q deliveryQueue) Complete(ctx context.Context, d *Delivery, owner string) error {
	now := q.now()
	d.Done, d.NextAttempt = true, now
	return q.write(ctx, d, owner, now)
}

func (q deliveryQueue) RetryAt(ctx context.Context, d *Delivery, owner string, at time.Time) error {
	d.Done, d.NextAttempt = false, at
	end := q.now()
	if at.Before(end) {
		end = at
	}
	return q.write(ctx, d, owner, end)
}

// write stores d with its lease given back: expired a second before end,
// so d can be claimed again as soon as it is due. The owner stays set so
// that UpdateDelivery still checks that owner held the lease.
func (q deliveryQueue) write(ctx context.Context, d *Delivery, owner string, end time.Time) error {
	if owner == "" {
		return fmt.Errorf("webhook: delivery %s: empty owner: %w", d.ID, transcribe.ErrLeaseLost)
	}
	d.LeaseOwner, d.LeaseUntil = owner, end.Add(-time.Second)
	return q.q.UpdateDelivery(ctx, d)
}
