// Package queue is the leased queue that transcription jobs (transcribe)
// and webhook deliveries (webhook) share: the contract a store gives for
// one queue (Queue: claim with a lease, extend, complete, retry at a
// time), and the Runner that works it (one poll/wake loop, a lease held
// while an item is handled, one Start/Stop/Wait lifecycle).
//
// An item is claimed by an owner for a lease. While the lease holds, no
// other claim returns it and only its owner may write it; when the lease
// runs out (the owner's process died or stalled) any claimer takes it
// over. The owner ends its claim in one of two ways: Complete (the item
// is done and never claimed again) or RetryAt (the item goes back and is
// claimable by anyone from a given time; "now" releases it at once).
// Delivery is at least once: an owner that dies after its work but
// before Complete leaves the item to be claimed again.
//
// The conformance suite of a Queue is queuetest.Run; storage/memory,
// storage/sqlite and storage/postgres pass it for both of their queues
// (transcribe.JobQueue and webhook.DeliveryQueue) with one call each.
package queue

import (
	"context"
	"errors"
	"time"
)

var (
	// ErrEmpty is wrapped by Queue.Claim's error when no item is due.
	// transcribe.ErrNoJob and webhook.ErrNoDelivery wrap it.
	ErrEmpty = errors.New("queue: nothing due")
	// ErrLeaseLost is wrapped by the error of a write whose owner no
	// longer holds the item's lease (it ran out and another owner claimed
	// the item, or the item was taken out of the queue). It is
	// transcribe.ErrLeaseLost.
	ErrLeaseLost = errors.New("transcribe: lease lost")
)

// Claim identifies an owner claiming an item at Now for Lease.
type Claim struct {
	Owner string
	Now   time.Time
	Lease time.Duration
}

// Lease moves the lease of item ID, held by Owner, to Until.
type Lease struct {
	ID    string
	Owner string
	Until time.Time
}

// Queue is one leased queue of items of type T as a store gives it. Its
// methods are safe for concurrent use, by several processes for a shared
// database. Contract (checked by queuetest.Run):
//
//   - Claim atomically picks the first due item in the queue's order
//     whose lease is free or ran out before c.Now, leases it to c.Owner
//     until c.Now+c.Lease and returns it; an error wrapping ErrEmpty when
//     none is due. Two concurrent claims never return the same item while
//     its lease holds; when a lease runs out, exactly one claim takes the
//     item over.
//   - Extend moves the lease of item l.ID to l.Until if l.Owner holds it;
//     an error wrapping ErrLeaseLost otherwise (an empty owner never holds
//     a lease; an absent item is lost too).
//   - Complete stores item as done, its lease given up: it is never
//     claimed again. RetryAt stores item back in the queue, claimable by
//     any owner from at (at or before now: at once) and not before. Both
//     write only while owner still holds the lease (or held it last and
//     nobody claimed the item since); an error wrapping ErrLeaseLost
//     otherwise.
//   - Times are kept to at least the microsecond.
type Queue[T any] interface {
	Claim(ctx context.Context, c Claim) (T, error)
	Extend(ctx context.Context, l Lease) error
	Complete(ctx context.Context, item T, owner string) error
	RetryAt(ctx context.Context, item T, owner string, at time.Time) error
}

// Drain claims items of q for the claims c returns and hands each to
// handle, one after another, until none is due; it returns how many it
// handled. A claim error other than ErrEmpty, or ctx ending after an
// item, stops it with that error. It is the synchronous form of a
// Runner's loop, for tests with a fake clock and tools that flush a
// queue.
func Drain[T any](ctx context.Context, q Queue[T], c func() Claim, handle func(context.Context, T)) (int, error) {
	n := 0
	for {
		item, err := q.Claim(ctx, c())
		if errors.Is(err, ErrEmpty) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		handle(ctx, item)
		n++
		if err := ctx.Err(); err != nil {
			return n, err
		}
	}
}

// Every calls fn at once and then every interval until ctx is done. It is
// what a Runner's background tasks (purging, sweeping) are made of.
func Every(ctx context.Context, interval time.Duration, fn func(context.Context)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		fn(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
