package queue_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/queue"
)

// jobs returns a memory store and its job queue holding n queued jobs.
func jobs(t *testing.T, n int) (*memory.Store, queue.Queue[*driver.Record]) {
	t.Helper()
	st := memory.New()
	t.Cleanup(func() { st.Close() })
	for i := range n {
		if err := st.Create(t.Context(), &driver.Record{ID: fmt.Sprintf("j%02d", i), ProjectID: "p", Status: transcribe.StatusQueued, Created: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	return st, transcribe.JobQueue(st)
}

func config(q queue.Queue[*driver.Record], handle func(ctx context.Context, owner string, r *driver.Record) bool) queue.Config[*driver.Record] {
	return queue.Config[*driver.Record]{
		Queue: q, Handle: handle, ID: func(r *driver.Record) string { return r.ID },
		Workers: 3, Owner: func(i int) string { return fmt.Sprint("w", i) },
		Lease: time.Minute, PollInterval: time.Hour,
	}
}

func complete(ctx context.Context, q queue.Queue[*driver.Record], owner string, r *driver.Record) error {
	r.Status = transcribe.StatusCompleted
	return q.Complete(context.WithoutCancel(ctx), r, owner)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRunnerHandlesEachOnce: the workers handle every item exactly once,
// claiming the next at once after each (PollInterval is an hour), and an
// item added later is handled at once after Wake.
func TestRunnerHandlesEachOnce(t *testing.T) {
	t.Parallel()
	st, q := jobs(t, 20)
	var mu sync.Mutex
	seen := map[string]int{}
	r := queue.NewRunner(config(q, func(ctx context.Context, owner string, rec *driver.Record) bool {
		mu.Lock()
		seen[rec.ID]++
		mu.Unlock()
		if err := complete(ctx, q, owner, rec); err != nil {
			t.Errorf("Complete(%s): %v", rec.ID, err)
		}
		return true
	}))
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(seen) }
	r.Start()
	waitFor(t, "20 items", func() bool { return count() == 20 })
	if err := st.Create(t.Context(), &driver.Record{ID: "late", ProjectID: "p", Status: transcribe.StatusQueued}); err != nil {
		t.Fatal(err)
	}
	r.Wake()
	waitFor(t, "the item added after Wake", func() bool { return count() == 21 })
	r.Stop()
	if err := r.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s handled %d times", id, n)
		}
	}
}

// TestRunnerHoldsLease: while Handle runs past the lease, the Runner
// extends it, so no other claimer takes the item over.
func TestRunnerHoldsLease(t *testing.T) {
	t.Parallel()
	_, q := jobs(t, 1)
	release, started := make(chan struct{}), make(chan struct{})
	cfg := config(q, func(ctx context.Context, owner string, rec *driver.Record) bool {
		close(started)
		select {
		case <-release:
		case <-ctx.Done():
			t.Errorf("Handle's context ended while the lease was held: %v", context.Cause(ctx))
		}
		return true
	})
	cfg.Workers, cfg.Lease = 1, 90*time.Millisecond
	r := queue.NewRunner(cfg)
	r.Start()
	defer func() { r.Stop(); r.Wait(context.Background()) }()
	<-started
	for range 6 { // 6 * 50ms: more than three leases
		time.Sleep(50 * time.Millisecond)
		if item, err := q.Claim(t.Context(), queue.Claim{Owner: "thief", Now: time.Now(), Lease: time.Minute}); !errors.Is(err, queue.ErrEmpty) {
			t.Fatalf("a claim took the held item over: %v, %v", item, err)
		}
	}
	close(release)
	r.Stop()
	r.Wait(t.Context())
}

// TestRunnerLeaseLost: when the lease is lost (the record's lease was
// cleared), Handle's context ends with cause ErrLeaseLost.
func TestRunnerLeaseLost(t *testing.T) {
	t.Parallel()
	st, q := jobs(t, 1)
	cause := make(chan error, 1)
	cfg := config(q, func(ctx context.Context, owner string, rec *driver.Record) bool {
		cleared := *rec
		cleared.LeaseOwner, cleared.LeaseUntil, cleared.Deleted = "", time.Time{}, true
		if err := st.Update(ctx, &cleared); err != nil {
			t.Error(err)
		}
		select {
		case <-ctx.Done():
			cause <- context.Cause(ctx)
		case <-time.After(10 * time.Second):
			cause <- errors.New("the context did not end")
		}
		return true
	})
	cfg.Workers, cfg.Lease = 1, 30*time.Millisecond
	r := queue.NewRunner(cfg)
	r.Start()
	defer func() { r.Stop(); r.Wait(context.Background()) }()
	if err := <-cause; !errors.Is(err, queue.ErrLeaseLost) {
		t.Fatalf("cause = %v, want ErrLeaseLost", err)
	}
}

// TestRunnerStop: Stop ends Handle's context and the background tasks;
// Wait returns once they returned; Start after Stop does nothing; a
// worker whose Handle returns false stops.
func TestRunnerStop(t *testing.T) {
	t.Parallel()
	_, q := jobs(t, 2)
	var handled, background atomic.Int32
	var bgDone atomic.Bool
	cfg := config(q, func(ctx context.Context, owner string, rec *driver.Record) bool {
		handled.Add(1)
		<-ctx.Done()
		return false // this worker stops
	})
	cfg.Workers = 2
	cfg.Background = []func(context.Context){func(ctx context.Context) {
		queue.Every(ctx, time.Hour, func(context.Context) { background.Add(1) })
		bgDone.Store(true)
	}}
	r := queue.NewRunner(cfg)
	if err := r.Wait(t.Context()); err != nil {
		t.Fatalf("Wait before Start: %v", err)
	}
	r.Start()
	r.Start()
	waitFor(t, "both items and the background task", func() bool { return handled.Load() == 2 && background.Load() == 1 })
	short, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := r.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait before Stop = %v, want the context's error", err)
	}
	r.Stop()
	if err := r.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !bgDone.Load() {
		t.Error("Wait returned before the background task ended")
	}
	r.Start() // does nothing after Stop
	time.Sleep(20 * time.Millisecond)
	if n := background.Load(); n != 1 {
		t.Errorf("Start after Stop ran the background task again (%d runs)", n)
	}
}

// TestDrain: Drain hands every due item to handle and counts them; a
// claim error stops it.
func TestDrain(t *testing.T) {
	t.Parallel()
	_, q := jobs(t, 5)
	claim := func() queue.Claim { return queue.Claim{Owner: "d", Now: time.Now(), Lease: time.Minute} }
	n, err := queue.Drain(t.Context(), q, claim, func(ctx context.Context, r *driver.Record) {
		if err := complete(ctx, q, "d", r); err != nil {
			t.Error(err)
		}
	})
	if n != 5 || err != nil {
		t.Fatalf("Drain = %d, %v; want 5, nil", n, err)
	}
	bad := func() queue.Claim { return queue.Claim{Now: time.Now()} } // no owner
	if _, err := queue.Drain(t.Context(), q, bad, func(context.Context, *driver.Record) {}); err == nil {
		t.Fatal("Drain with a failing claim returned nil")
	}
}
