// Package queuetest holds the conformance suite of queue.Queue, the leased
// queue of transcription jobs and webhook deliveries. A store adapter runs
// it once, from its TestConformance, for all of its queues:
//
//	queuetest.Run(t,
//		drivertest.JobQueue(newStore),
//		webhooktest.DeliveryQueue(newQueue))
//
// The rules that are not about leases (which transcripts are jobs, the
// order of deliveries by due time, purging) are checked by the suites of
// the stores (drivertest.RunStoreTests, webhooktest.RunQueueTests).
package queuetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe/queue"
)

// base is the suite's reference time: microsecond precision (the finest a
// store must keep) in a zone other than UTC (stores may return UTC).
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.FixedZone("UTC+1", 3600))

// Harness is one fresh, empty queue under test and what the suite needs
// to fill and read it.
type Harness[T any] struct {
	// Queue is the queue under test.
	Queue queue.Queue[T]
	// Add adds an item with id that is due at the suite's times (which
	// are after 2026-03-14 15:09:26 UTC+1), after every item added before
	// in the queue's order.
	Add func(ctx context.Context, id string) error
	// ID and Lease read a claimed item.
	ID    func(T) string
	Lease func(T) (owner string, until time.Time)
	// Finish, when set, makes a claimed item ready for Complete (a job
	// needs a final status).
	Finish func(T)
	// Stored, when set, reads the lease of item id as the store keeps it.
	Stored func(ctx context.Context, id string) (owner string, until time.Time, err error)
}

// Kind is one kind of queue for Run; make it with For.
type Kind interface {
	name() string
	run(t *testing.T)
}

type kind[T any] struct {
	label string
	new   func(t *testing.T) Harness[T]
}

func (k kind[T]) name() string { return k.label }

// For names a kind of queue for Run; newHarness must return a fresh, empty
// queue each time.
func For[T any](name string, newHarness func(t *testing.T) Harness[T]) Kind {
	return kind[T]{name, newHarness}
}

// Run checks every clause of the queue.Queue contract on each kind, each
// as a subtest of its name.
func Run(t *testing.T, kinds ...Kind) {
	t.Helper()
	for _, k := range kinds {
		t.Run(k.name(), k.run)
	}
}

func (k kind[T]) run(t *testing.T) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *Harness[T])
	}{
		{"ClaimOrder", testClaimOrder[T]},
		{"ExpiredLease", testExpiredLease[T]},
		{"Extend", testExtend[T]},
		{"RetryAt", testRetryAt[T]},
		{"Concurrent", testConcurrent[T]},
		{"ReclaimRace", testReclaimRace[T]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := k.new(t)
			if h.Queue == nil || h.Add == nil || h.ID == nil || h.Lease == nil {
				t.Fatal("the harness lacks Queue, Add, ID or Lease")
			}
			tc.fn(t, &h)
		})
	}
}

func (h *Harness[T]) add(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := h.Add(t.Context(), id); err != nil {
			t.Fatalf("adding %s: %v", id, err)
		}
	}
}

func (h *Harness[T]) claim(t *testing.T, owner string, now time.Time, lease time.Duration) T {
	t.Helper()
	item, err := h.Queue.Claim(t.Context(), queue.Claim{Owner: owner, Now: now, Lease: lease})
	if err != nil {
		t.Fatalf("Claim(%s, %v): %v", owner, now, err)
	}
	return item
}

func (h *Harness[T]) wantEmpty(t *testing.T, owner string, now time.Time) {
	t.Helper()
	item, err := h.Queue.Claim(t.Context(), queue.Claim{Owner: owner, Now: now, Lease: time.Minute})
	if !errors.Is(err, queue.ErrEmpty) {
		id := ""
		if err == nil {
			id = h.ID(item)
		}
		t.Fatalf("Claim(%s, %v) = %q, %v; want ErrEmpty", owner, now, id, err)
	}
}

// wantLease checks the lease of a claimed item and, when the harness can
// read the store, the stored one.
func (h *Harness[T]) wantLease(t *testing.T, item T, id, owner string, until time.Time) {
	t.Helper()
	if got := h.ID(item); got != id {
		t.Fatalf("claimed %s, want %s", got, id)
	}
	if o, u := h.Lease(item); o != owner || !u.Equal(until) {
		t.Fatalf("%s: lease %q until %v, want %q until %v", id, o, u, owner, until)
	}
	h.wantStored(t, id, owner, until)
}

func (h *Harness[T]) wantStored(t *testing.T, id, owner string, until time.Time) {
	t.Helper()
	if h.Stored == nil {
		return
	}
	o, u, err := h.Stored(t.Context(), id)
	if err != nil {
		t.Fatalf("reading %s: %v", id, err)
	}
	if o != owner || !u.Equal(until) {
		t.Fatalf("%s: stored lease %q until %v, want %q until %v", id, o, u, owner, until)
	}
}

func (h *Harness[T]) complete(ctx context.Context, item T, owner string) error {
	if h.Finish != nil {
		h.Finish(item)
	}
	return h.Queue.Complete(ctx, item, owner)
}

// testClaimOrder: items are claimed in queue order, each leased to its
// claimer; an empty queue says ErrEmpty.
func testClaimOrder[T any](t *testing.T, h *Harness[T]) {
	h.wantEmpty(t, "w", base)
	h.add(t, "i1", "i2", "i3")
	now := base.Add(time.Hour)
	for _, id := range []string{"i1", "i2", "i3"} {
		h.wantLease(t, h.claim(t, "w", now, 30*time.Second), id, "w", now.Add(30*time.Second))
	}
	h.wantEmpty(t, "w", now)
}

// testExpiredLease: a lease holds until it runs out; then another owner
// takes the item over and the former owner's writes are refused; the same
// owner may claim its own expired item again; a completed item is never
// claimed again.
func testExpiredLease[T any](t *testing.T, h *Harness[T]) {
	ctx := t.Context()
	h.add(t, "j")
	first := h.claim(t, "w1", base, time.Minute)
	h.wantEmpty(t, "w2", base.Add(30*time.Second))
	h.wantEmpty(t, "w2", base.Add(time.Minute)) // LeaseUntil not before now
	second := h.claim(t, "w2", base.Add(2*time.Minute), time.Minute)
	h.wantLease(t, second, "j", "w2", base.Add(3*time.Minute))
	// The first owner has lost the item.
	if err := h.Queue.RetryAt(ctx, first, "w1", base); !errors.Is(err, queue.ErrLeaseLost) {
		t.Errorf("RetryAt by the owner whose lease was taken: err = %v, want ErrLeaseLost", err)
	}
	if err := h.complete(ctx, first, "w1"); !errors.Is(err, queue.ErrLeaseLost) {
		t.Errorf("Complete by the owner whose lease expired and was taken: err = %v, want ErrLeaseLost", err)
	}
	if err := h.Queue.Extend(ctx, queue.Lease{ID: "j", Owner: "w1", Until: base.Add(time.Hour)}); !errors.Is(err, queue.ErrLeaseLost) {
		t.Errorf("Extend by the owner whose lease was taken: err = %v, want ErrLeaseLost", err)
	}
	h.wantStored(t, "j", "w2", base.Add(3*time.Minute))
	// The same owner may claim its own expired item.
	again := h.claim(t, "w2", base.Add(time.Hour), time.Minute)
	h.wantLease(t, again, "j", "w2", base.Add(time.Hour+time.Minute))
	if err := h.complete(ctx, again, "w2"); err != nil {
		t.Fatalf("Complete by the owner: %v", err)
	}
	h.wantEmpty(t, "w3", base.Add(1000*time.Hour))
	// A longer lease is honoured.
	h.add(t, "k")
	h.wantLease(t, h.claim(t, "w3", base.Add(2*time.Hour), 24*time.Hour), "k", "w3", base.Add(26*time.Hour))
	h.wantEmpty(t, "w4", base.Add(25*time.Hour))
}

// testExtend: only the owner moves its lease; the moved lease holds
// against claims.
func testExtend[T any](t *testing.T, h *Harness[T]) {
	ctx := t.Context()
	h.add(t, "j", "other")
	h.wantLease(t, h.claim(t, "w1", base, time.Minute), "j", "w1", base.Add(time.Minute))
	h.claim(t, "w9", base, time.Hour) // other
	until := base.Add(5 * time.Minute)
	if err := h.Queue.Extend(ctx, queue.Lease{ID: "j", Owner: "w1", Until: until}); err != nil {
		t.Fatalf("Extend by the owner: %v", err)
	}
	h.wantStored(t, "j", "w1", until)
	h.wantEmpty(t, "w2", base.Add(4*time.Minute))
	for _, l := range []queue.Lease{
		{ID: "j", Owner: "w2", Until: base.Add(time.Hour)},     // not the owner
		{ID: "j", Owner: "", Until: base.Add(time.Hour)},       // an empty owner holds nothing
		{ID: "other", Owner: "w1", Until: base.Add(time.Hour)}, // leased to w9
		{ID: "missing", Owner: "w1", Until: base},              // absent
	} {
		if err := h.Queue.Extend(ctx, l); !errors.Is(err, queue.ErrLeaseLost) {
			t.Errorf("Extend(%+v): err = %v, want ErrLeaseLost", l, err)
		}
	}
	h.wantStored(t, "j", "w1", until)
	h.wantLease(t, h.claim(t, "w2", until.Add(time.Millisecond), time.Minute), "j", "w2", until.Add(time.Minute+time.Millisecond))
}

// testRetryAt: an item given back is claimable by anyone from the given
// time and not before; "now" gives it back at once; its former owner may
// still write it while nobody claimed it.
func testRetryAt[T any](t *testing.T, h *Harness[T]) {
	ctx := t.Context()
	h.add(t, "j")
	item := h.claim(t, "w1", base, time.Hour)
	at := base.Add(10 * time.Minute)
	if err := h.Queue.RetryAt(ctx, item, "w1", at); err != nil {
		t.Fatalf("RetryAt: %v", err)
	}
	h.wantEmpty(t, "w2", base.Add(time.Second))
	h.wantEmpty(t, "w2", at.Add(-time.Millisecond))
	if err := h.Queue.RetryAt(ctx, item, "w1", base.Add(time.Second)); err != nil {
		t.Fatalf("RetryAt again by the last owner: %v", err)
	}
	item = h.claim(t, "w2", base.Add(time.Second), time.Hour)
	h.wantLease(t, item, "j", "w2", base.Add(time.Second+time.Hour))
	if err := h.Queue.RetryAt(ctx, item, "w1", base); !errors.Is(err, queue.ErrLeaseLost) {
		t.Errorf("RetryAt by a former owner after another claimed: err = %v, want ErrLeaseLost", err)
	}
	// Given back "now": claimable at once.
	now := base.Add(2 * time.Second)
	if err := h.Queue.RetryAt(ctx, item, "w2", now); err != nil {
		t.Fatalf("RetryAt(now): %v", err)
	}
	item = h.claim(t, "w3", now, time.Minute)
	h.wantLease(t, item, "j", "w3", now.Add(time.Minute))
	// Given back for later, then claimed at that time.
	at = now.Add(time.Hour)
	if err := h.Queue.RetryAt(ctx, item, "w3", at); err != nil {
		t.Fatalf("RetryAt: %v", err)
	}
	h.wantLease(t, h.claim(t, "w4", at, time.Minute), "j", "w4", at.Add(time.Minute))
}

// testConcurrent: concurrent claimers never get the same item, and every
// item is claimed.
func testConcurrent[T any](t *testing.T, h *Harness[T]) {
	const items, workers = 40, 6
	for i := range items {
		h.add(t, fmt.Sprintf("i%03d", i))
	}
	var (
		mu      sync.Mutex
		claimed = map[string]string{}
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	for w := range workers {
		owner := fmt.Sprintf("w%d", w)
		wg.Go(func() {
			<-start
			for {
				item, err := h.Queue.Claim(context.Background(), queue.Claim{Owner: owner, Now: base, Lease: time.Hour})
				if errors.Is(err, queue.ErrEmpty) {
					return
				}
				if err != nil {
					t.Errorf("%s: Claim: %v", owner, err)
					return
				}
				id := h.ID(item)
				mu.Lock()
				prev, dup := claimed[id]
				claimed[id] = owner
				mu.Unlock()
				if dup {
					t.Errorf("%s claimed by %s and again by %s", id, prev, owner)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	if len(claimed) != items {
		t.Errorf("%d of %d items claimed", len(claimed), items)
	}
	for id, owner := range claimed {
		h.wantStored(t, id, owner, base.Add(time.Hour))
	}
}

// testReclaimRace: when a lease runs out, claimers race to take the item
// over; exactly one wins each round.
func testReclaimRace[T any](t *testing.T, h *Harness[T]) {
	const rounds, workers = 12, 6
	h.add(t, "j")
	h.claim(t, "w-start", base, time.Minute)
	for round := range rounds {
		now := base.Add(time.Duration(round+1) * 2 * time.Minute) // the last lease has run out
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []string
		)
		start := make(chan struct{})
		for w := range workers {
			owner := fmt.Sprintf("r%d-w%d", round, w)
			wg.Go(func() {
				<-start
				item, err := h.Queue.Claim(context.Background(), queue.Claim{Owner: owner, Now: now, Lease: time.Minute})
				if errors.Is(err, queue.ErrEmpty) {
					return
				}
				if err != nil {
					t.Errorf("Claim: %v", err)
					return
				}
				mu.Lock()
				winners = append(winners, owner+"/"+h.ID(item))
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: %d claimers took over the expired item: %v", round, len(winners), winners)
		}
		owner, _, _ := strings.Cut(winners[0], "/")
		h.wantStored(t, "j", owner, now.Add(time.Minute))
	}
}
