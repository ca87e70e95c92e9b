package queue

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Config configures a Runner. Queue, Handle and ID are required; zero
// durations take the documented defaults.
type Config[T any] struct {
	// Queue is where the workers claim items.
	Queue Queue[T]
	// Handle processes an item its worker claimed as owner. ctx ends when
	// the Runner stops, or with cause ErrLeaseLost when the item's lease
	// is lost (context.Cause tells them apart). Handle ends the claim
	// itself (Complete or RetryAt); an item it returns from without doing
	// so is claimed again when its lease runs out. It returns false when
	// its worker must stop (what it needs is gone).
	Handle func(ctx context.Context, owner string, item T) bool
	// ID returns an item's id, for the lease Extend keeps.
	ID func(T) string
	// Workers is how many items are handled at once. Zero runs only the
	// Background tasks.
	Workers int
	// Owner names the leases of worker i (0 <= i < Workers). Required
	// when Workers > 0.
	Owner func(worker int) string
	// Lease is how long a claim holds an item. While Handle runs, the
	// lease is extended every Lease/3. Default 30s.
	Lease time.Duration
	// PollInterval is how often an idle worker claims again when nothing
	// was due; Wake ends the wait early. Default 1s.
	PollInterval time.Duration
	// Now is the clock of claims and leases. Default time.Now.
	Now func() time.Time
	// OnError receives the errors of claims (other than ErrEmpty) and of
	// extending a lease (other than ErrLeaseLost), with the item's id ("" for
	// a claim). Default: dropped.
	OnError func(id string, err error)
	// Background tasks run beside the workers for as long as the Runner
	// runs (see Every); their ctx ends when it stops.
	Background []func(ctx context.Context)
}

// Runner works a Queue with Config.Workers workers. Each worker claims an
// item, holds its lease while Handle runs, and claims the next at once;
// after a claim it wakes another idle worker, since more may be due. When
// nothing is due it waits PollInterval or until Wake. Start runs it in the
// background and Stop and Wait end it; Run runs it until a context ends.
// Safe for concurrent use.
type Runner[T any] struct {
	cfg  Config[T]
	wake chan struct{}

	mu      sync.Mutex
	started bool
	cancel  context.CancelFunc
	done    chan struct{}
}

// NewRunner returns a Runner for cfg; nothing runs until Start or Run.
func NewRunner[T any](cfg Config[T]) *Runner[T] {
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.OnError == nil {
		cfg.OnError = func(string, error) {}
	}
	return &Runner[T]{cfg: cfg, wake: make(chan struct{}, 1)}
}

// Wake makes one idle worker claim at once (an item was just added).
func (r *Runner[T]) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run runs the workers and background tasks until ctx is done, then waits
// for them: a Handle in progress finishes (it sees ctx end) before Run
// returns nil.
func (r *Runner[T]) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, task := range r.cfg.Background {
		wg.Go(func() { task(ctx) })
	}
	for i := range r.cfg.Workers {
		owner := r.cfg.Owner(i)
		wg.Go(func() { r.work(ctx, owner) })
	}
	wg.Wait()
	return nil
}

// Start runs Run in the background until Stop. Calling it twice, or
// after Stop, does nothing.
func (r *Runner[T]) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return
	}
	r.started = true
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	go func() {
		defer close(r.done)
		r.Run(ctx)
	}()
}

// Stop tells the workers and tasks started by Start to end; it does not
// wait (Wait does). Start after Stop does nothing.
func (r *Runner[T]) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = true
	if r.cancel != nil {
		r.cancel()
	}
}

// Wait waits until what Start started has ended after Stop, or ctx ends
// (its error is returned). Without Start it returns nil at once.
func (r *Runner[T]) Wait(ctx context.Context) error {
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// work is one worker's loop.
func (r *Runner[T]) work(ctx context.Context, owner string) {
	timer := time.NewTimer(r.cfg.PollInterval)
	defer timer.Stop()
	for ctx.Err() == nil {
		item, err := r.cfg.Queue.Claim(ctx, Claim{Owner: owner, Now: r.cfg.Now(), Lease: r.cfg.Lease})
		if err == nil {
			r.Wake() // there may be more: let an idle worker look too
			if !r.handle(ctx, owner, item) {
				return
			}
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if !errors.Is(err, ErrEmpty) {
			r.cfg.OnError("", err)
		}
		timer.Reset(r.cfg.PollInterval) // Go 1.23+ timers: no stale tick survives Reset
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-timer.C:
		}
	}
}

// handle runs Handle on item while a goroutine extends its lease every
// Lease/3, and cancels Handle's context with cause ErrLeaseLost when the
// lease is lost.
func (r *Runner[T]) handle(ctx context.Context, owner string, item T) bool {
	ictx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	id := r.cfg.ID(item)
	held := make(chan struct{})
	go func() {
		defer close(held)
		tick := time.NewTicker(r.cfg.Lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-ictx.Done():
				return
			case <-tick.C:
			}
			err := r.cfg.Queue.Extend(ictx, Lease{ID: id, Owner: owner, Until: r.cfg.Now().Add(r.cfg.Lease)})
			switch {
			case err == nil, ictx.Err() != nil:
			case errors.Is(err, ErrLeaseLost):
				cancel(ErrLeaseLost)
				return
			default:
				r.cfg.OnError(id, err)
			}
		}
	}()
	defer func() { cancel(nil); <-held }()
	return r.cfg.Handle(ictx, owner, item)
}
