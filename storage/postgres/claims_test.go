package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

func claimEverything(t *testing.T, stores []*Store, claimers int, now time.Time, lease time.Duration) map[string][]string {
	t.Helper()
	var (
		mu      sync.Mutex
		claimed = map[string][]string{}
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	for i, s := range stores {
		for g := range claimers {
			owner := fmt.Sprintf("store%d/g%d", i, g)
			wg.Go(func() {
				<-start
				for {
					r, err := s.ClaimJob(context.Background(), driver.Claim{Owner: owner, Now: now, Lease: lease})
					if errors.Is(err, transcribe.ErrNoJob) {
						return
					}
					if err != nil {
						t.Errorf("%s: ClaimJob: %v", owner, err)
						return
					}
					mu.Lock()
					claimed[r.ID] = append(claimed[r.ID], owner)
					mu.Unlock()
				}
			})
		}
	}
	close(start)
	wg.Wait()
	return claimed
}

// Many Stores (as many processes would have) with many claimers each on
// one database: every job is claimed exactly once, and once the leases
// run out, taken over exactly once. The same for deliveries.
func TestClaimContention(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	ctx := context.Background()
	const nStores, claimers, jobs = 4, 4, 240
	stores := make([]*Store, nStores)
	for i := range stores {
		s, err := Open(ctx, Config{URL: url, MaxConns: claimers})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	for i := range jobs {
		mustCreate(t, stores[i%nStores], queued(fmt.Sprintf("j%04d", i), fmt.Sprint("p", i%5), i))
	}
	check := func(round string, claimed map[string][]string, wantClaims int) {
		t.Helper()
		if len(claimed) != jobs {
			t.Errorf("%s: %d of %d jobs claimed", round, len(claimed), jobs)
		}
		perStore := map[string]int{}
		for id, owners := range claimed {
			if len(owners) != 1 {
				t.Errorf("%s: job %s claimed %d times: %v", round, id, len(owners), owners)
				continue
			}
			perStore[owners[0][:6]]++
			r, err := stores[0].Get(ctx, id)
			if err != nil || r.LeaseOwner != owners[0] || r.Claims != wantClaims || r.Status != transcribe.StatusProcessing {
				t.Errorf("%s: job %s stored as %+v, %v; claimed by %s", round, id, r, err, owners[0])
			}
		}
		t.Logf("%s: claims per store %v", round, perStore)
	}
	check("first claims", claimEverything(t, stores, claimers, t0, time.Minute), 1)
	for _, s := range stores {
		if r, err := s.ClaimJob(ctx, driver.Claim{Owner: "late", Now: t0.Add(59 * time.Second), Lease: time.Minute}); !errors.Is(err, transcribe.ErrNoJob) {
			t.Fatalf("claim while every lease holds: %+v, %v", r, err)
		}
	}
	check("takeover after the leases ran out", claimEverything(t, stores, claimers, t0.Add(2*time.Minute), time.Minute), 2)

	// Deliveries, the same way.
	for i := range jobs {
		d := &webhook.Delivery{ID: fmt.Sprintf("d%04d", i), TranscriptID: "t", NextAttempt: t0.Add(-time.Duration(i) * time.Millisecond)}
		if err := stores[i%nStores].AddDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu      sync.Mutex
		got     = map[string]int{}
		wg      sync.WaitGroup
		started = make(chan struct{})
	)
	for i, s := range stores {
		for g := range claimers {
			wg.Go(func() {
				<-started
				for {
					d, err := s.ClaimDelivery(ctx, webhook.Claim{Owner: fmt.Sprintf("s%d/g%d", i, g), Now: t0, Lease: time.Minute})
					if errors.Is(err, webhook.ErrNoDelivery) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					got[d.ID]++
					mu.Unlock()
				}
			})
		}
	}
	close(started)
	wg.Wait()
	if len(got) != jobs {
		t.Errorf("%d of %d deliveries claimed", len(got), jobs)
	}
	for id, n := range got {
		if n != 1 {
			t.Errorf("delivery %s claimed %d times", id, n)
		}
	}
}

// A Store that dies mid-lease (closed with the job still leased to it)
// loses the job to another Store once the lease has run out, and can no
// longer write it.
func TestClosedStoreLosesLease(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	ctx := context.Background()
	a, b := openTest(t, url, ""), openTest(t, url, "")
	mustCreate(t, a, queued("job", "p", 0))
	mine, err := a.ClaimJob(ctx, driver.Claim{Owner: "worker-a", Now: t0, Lease: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AddDelivery(ctx, &webhook.Delivery{ID: "d", TranscriptID: "job", NextAttempt: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ClaimDelivery(ctx, webhook.Claim{Owner: "worker-a", Now: t0, Lease: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	a.Close()

	if _, err := b.ClaimJob(ctx, driver.Claim{Owner: "worker-b", Now: t0.Add(30 * time.Second), Lease: time.Minute}); !errors.Is(err, transcribe.ErrNoJob) {
		t.Fatalf("claim while the dead store's lease holds: %v, want ErrNoJob", err)
	}
	took, err := b.ClaimJob(ctx, driver.Claim{Owner: "worker-b", Now: t0.Add(30*time.Second + time.Millisecond), Lease: time.Minute})
	if err != nil {
		t.Fatalf("claim after the lease ran out: %v", err)
	}
	if took.ID != "job" || took.Claims != 2 || took.LeaseOwner != "worker-b" || string(took.Data) != "sealed:job" {
		t.Errorf("taken over as %+v", took)
	}
	if d, err := b.ClaimDelivery(ctx, webhook.Claim{Owner: "worker-b", Now: t0.Add(31 * time.Second), Lease: time.Minute}); err != nil || d.ID != "d" {
		t.Errorf("delivery after the lease ran out: %+v, %v", d, err)
	}
	// The dead store cannot write; had it come back, its lease is gone.
	mine.Status = transcribe.StatusCompleted
	if err := a.Update(ctx, mine); !errors.Is(err, transcribe.ErrClosed) {
		t.Errorf("Update on a closed store: %v, want ErrClosed", err)
	}
	if err := b.Update(ctx, mine); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("Update with the old owner: %v, want ErrLeaseLost", err)
	}
}

// Every method after Close returns an error wrapping transcribe.ErrClosed.
