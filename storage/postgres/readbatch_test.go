package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe"
)

// TestBatcherFreshness: a read that joins a batch is answered by a
// statement that started after it was asked for, never by one already
// running; a read alone runs at once.
func TestBatcherFreshness(t *testing.T) {
	var (
		b       batcher[int64, int64]
		clock   atomic.Int64 // ticks: asks and statement starts
		mu      sync.Mutex
		batches [][]int64
	)
	run := func(ctx context.Context, asks []int64) ([]int64, error) {
		start := clock.Add(1)
		mu.Lock()
		batches = append(batches, asks)
		mu.Unlock()
		time.Sleep(2 * time.Millisecond) // a round trip
		out := make([]int64, len(asks))
		for i := range out {
			out[i] = start
		}
		return out, nil
	}
	var wg sync.WaitGroup
	var stale atomic.Int64
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				ask := clock.Add(1)
				start, err := b.do(t.Context(), ask, run)
				if err != nil {
					t.Error(err)
					return
				}
				if start <= ask {
					stale.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := stale.Load(); n > 0 {
		t.Errorf("%d reads were answered by a statement that started before they were asked for", n)
	}
	joined := 0
	for _, bt := range batches {
		if len(bt) > 1 {
			joined += len(bt)
		}
	}
	t.Logf("%d statements for %d reads; %d reads in batches", len(batches), 16*50, joined)
	if joined == 0 {
		t.Error("16 readers of a 2 ms store never shared a statement")
	}
	// The last batch's runner ends just after its reads are answered.
	for deadline := time.Now().Add(5 * time.Second); b.inFlightNow() != 0 || b.waiting() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the reads: %d in flight, %d waiting", b.inFlightNow(), b.waiting())
		}
	}
}

// TestBatcherContext: a read waiting for its batch stops at its own
// context's end; a batch's error reaches each of its reads; a statement
// that hangs holds up the reads after it no longer than maxWait; and a
// batch's statement ends once no read waits for it.
func TestBatcherContext(t *testing.T) {
	var b batcher[int, int]
	release := make(chan struct{})
	boom := errors.New("boom")
	abandoned := make(chan error, 1)
	run := func(ctx context.Context, qs []int) ([]int, error) {
		switch qs[0] {
		case 0: // a statement that hangs until released
			<-release
			return qs, nil
		case -1: // one that runs until its context ends
			<-ctx.Done()
			abandoned <- ctx.Err()
			return nil, ctx.Err()
		}
		return nil, boom
	}
	var wg sync.WaitGroup
	for range maxInFlight { // hold every slot
		wg.Add(1)
		go func() { defer wg.Done(); b.do(t.Context(), 0, run) }()
	}
	for b.inFlightNow() < maxInFlight {
		time.Sleep(time.Millisecond)
	}
	// Reads after the hung statement are answered (with the batch's
	// error) all the same.
	t0 := time.Now()
	errs := make(chan error, 3)
	for i := range 3 {
		go func() { _, err := b.do(t.Context(), i+1, run); errs <- err }()
	}
	for range 3 {
		if err := <-errs; !errors.Is(err, boom) {
			t.Errorf("a read of a failed batch: %v", err)
		}
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("reads behind a hung statement took %v", d)
	}
	// A read whose context ends stops waiting, and its batch's
	// statement, which no one waits for any more, ends.
	ctx, cancel := context.WithCancel(t.Context())
	go func() { _, err := b.do(ctx, -1, run); errs <- err }()
	time.Sleep(5 * maxWait)
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled read: %v", err)
	}
	select {
	case err := <-abandoned:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the abandoned statement ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("a statement no read waits for went on running")
	}
	close(release)
	wg.Wait()
}

func (b *batcher[Q, R]) inFlightNow() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.inFlight
}

func (b *batcher[Q, R]) waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next == nil {
		return 0
	}
	return len(b.next.qs)
}

// TestBatchedReads: GetUnlessSummary from many goroutines at once (so in
// batches) answers each read as a read alone would: the record's fields,
// Data left out exactly when the summary given is the stored one, not
// found for an absent id; and a read asked after an Update returned sees
// it.
func TestBatchedReads(t *testing.T) {
	t.Parallel()
	s := openTest(t, testservices.Postgres(t), "batched")
	const n = 8
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("batched-%d", i)
		r := queued(ids[i], fmt.Sprintf("p%d", i%3), i)
		r.Summary = []byte(fmt.Sprintf("summary %d/0", i))
		r.Data = bytes.Repeat([]byte{byte(i)}, 100+i*5000)
		mustCreate(t, s, r)
	}
	// version[i] is the last version of ids[i] whose Update returned.
	var version [n]atomic.Int64
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Add(1)
	go func() { // rewrites ids[0] while the reads run
		defer writer.Done()
		for v := int64(1); ; v++ {
			select {
			case <-stop:
				return
			default:
			}
			r := queued(ids[0], "p0", 0)
			r.Summary, r.Data = []byte(fmt.Sprintf("summary 0/%d", v)), []byte(fmt.Sprintf("data 0/%d", v))
			if err := s.Update(context.Background(), r); err != nil {
				t.Error(err)
				return
			}
			version[0].Store(v)
			time.Sleep(time.Millisecond)
		}
	}()
	batched := batchStatements.Load()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 150 {
				i := (g + k) % (n + 1)
				if i == n { // absent
					if _, err := s.GetUnlessSummary(t.Context(), "batched-absent", nil); !errors.Is(err, transcribe.ErrNotFound) {
						t.Errorf("absent id: %v", err)
					}
					continue
				}
				atLeast := version[i].Load()
				var have []byte
				if k%2 == 0 {
					have = []byte(fmt.Sprintf("summary %d/%d", i, atLeast))
				}
				r, err := s.GetUnlessSummary(t.Context(), ids[i], have)
				if err != nil {
					t.Error(err)
					return
				}
				var got int64
				if _, err := fmt.Sscanf(string(r.Summary), fmt.Sprintf("summary %d/%%d", i), &got); err != nil || got < atLeast {
					t.Errorf("%s: summary %q; an Update to version %d had returned before the read", ids[i], r.Summary, atLeast)
				}
				if r.ID != ids[i] || r.ProjectID != fmt.Sprintf("p%d", i%3) || r.Status != transcribe.StatusQueued {
					t.Errorf("%s: got record %s of %s, %s", ids[i], r.ID, r.ProjectID, r.Status)
				}
				switch {
				case have != nil && bytes.Equal(have, r.Summary):
					if r.Data != nil {
						t.Errorf("%s: data sent with the summary the reader holds", ids[i])
					}
				case i == 0:
					if want := fmt.Sprintf("data 0/%d", got); string(r.Data) != want && got > 0 {
						t.Errorf("%s: data %q with summary %q", ids[i], r.Data, r.Summary)
					}
				default:
					if len(r.Data) != 100+i*5000 || r.Data[0] != byte(i) {
						t.Errorf("%s: data of %d bytes", ids[i], len(r.Data))
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	if batchStatements.Load() == batched {
		t.Error("16 readers at once never shared a statement: the batch path went untested")
	}
}
