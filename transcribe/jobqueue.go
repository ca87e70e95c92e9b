package transcribe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/queue"
)

// JobQueue returns the jobs of s as a leased queue: the transcripts that
// are queued, or processing under a lease that ran out, oldest (lowest
// Seq) first, claimed with Store.ClaimJob. Complete stores a finished
// record (status completed or error) with its lease cleared; RetryAt
// stores a processing record whose lease runs out at the given time, when
// any worker may claim it again. The Service's workers use it, and
// queuetest checks a Store through it.
func JobQueue(s driver.Store) queue.Queue[*driver.Record] { return jobQueue{s} }

type jobQueue struct{ s driver.Store }

func (q jobQueue) Claim(ctx context.Context, c driver.Claim) (*driver.Record, error) {
	r, err := q.s.ClaimJob(ctx, c)
	if errors.Is(err, ErrNoJob) && !errors.Is(err, queue.ErrEmpty) {
		err = fmt.Errorf("%w (%w)", err, queue.ErrEmpty)
	}
	return r, err
}

// Extend moves the lease with ExtendLease; an absent record has lost it.
func (q jobQueue) Extend(ctx context.Context, l driver.Lease) error {
	err := q.s.ExtendLease(ctx, l)
	if errors.Is(err, ErrNotFound) && !errors.Is(err, ErrLeaseLost) {
		err = fmt.Errorf("%w (%w)", err, ErrLeaseLost)
	}
	return err
}

func (q jobQueue) Complete(ctx context.Context, r *driver.Record, owner string) error {
	if r.Status != StatusCompleted && r.Status != StatusError {
		return fmt.Errorf("transcribe: completing job %s in status %q (want completed or error)", r.ID, r.Status)
	}
	return q.write(ctx, r, owner, time.Time{})
}

func (q jobQueue) RetryAt(ctx context.Context, r *driver.Record, owner string, at time.Time) error {
	if r.Status != StatusProcessing {
		return fmt.Errorf("transcribe: retrying job %s in status %q (want processing)", r.ID, r.Status)
	}
	if !at.IsZero() {
		// A processing job is claimable once its lease is before the
		// claim's now: from at on, given microsecond times.
		at = at.Add(-time.Microsecond)
	}
	return q.write(ctx, r, owner, at)
}

// write stores r with its lease (owner, until), refused with ErrLeaseLost
// when owner no longer holds it. An empty owner holds nothing: Update
// would skip the check.
func (q jobQueue) write(ctx context.Context, r *driver.Record, owner string, until time.Time) error {
	if owner == "" {
		return fmt.Errorf("transcribe: job %s: empty owner: %w", r.ID, ErrLeaseLost)
	}
	r.LeaseOwner, r.LeaseUntil = owner, until
	return q.s.Update(ctx, r)
}
