package transcribe_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// restartingStore is a database that goes down as a job's final result
// is written: the first failWrites writes of a final record fail without
// committing, and the failReads reads after the first failure fail too,
// as while PostgreSQL restarts.
type restartingStore struct {
	*memory.Store
	failWrites, failReads atomic.Int32
	down                  atomic.Bool
}

var errDown = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

func (s *restartingStore) Update(ctx context.Context, r *driver.Record) error {
	if r.Status.Final() && s.failWrites.Add(-1) >= 0 {
		s.down.Store(true)
		return errDown
	}
	return s.Store.Update(ctx, r)
}

func (s *restartingStore) Get(ctx context.Context, id string) (*driver.Record, error) {
	if s.down.Load() && s.failReads.Add(-1) >= 0 {
		return nil, errDown
	}
	return s.Store.Get(ctx, id)
}

// TestFinalWriteWaitsOutDatabaseOutage (issue 25): a database that fails
// the write of a job's final result (down, restarting) is waited out by
// the worker holding the job: the result is stored once the database
// answers, the job claimed once and its webhook queued. Before, the worker
// gave the job up after its read-back found the result missing (or after
// 20 s of failed reads), and the job was claimed and processed again once
// its lease ran out.
func TestFinalWriteWaitsOutDatabaseOutage(t *testing.T) {
	for _, c := range []struct {
		name          string
		writes, reads int32
	}{
		{"write lost, reads work", 1, 0},
		{"down for a while", 3, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var st *restartingStore
			e := newEnv(t, func(cfg *transcribe.Config) {
				st = &restartingStore{Store: cfg.Store.(*memory.Store)}
				st.failWrites.Store(c.writes)
				st.failReads.Store(c.reads)
				cfg.Store, cfg.Workers = st, 1
			})
			ctx := context.Background()
			tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1)), WebhookURL: transcribe.Ptr("https://hooks.earshot.test/done")})
			if err != nil {
				t.Fatal(err)
			}
			// The test's clock stands still: a job given up would wait
			// for its lease forever.
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				got, err := st.Store.Get(ctx, tr.ID) // the test's reads do not fail
				if err != nil {
					t.Fatal(err)
				}
				if got.Status.Final() {
					if got.Status != transcribe.StatusCompleted {
						t.Fatalf("status %s, want completed", got.Status)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the result was not stored after the database came back (status %s): the job was left to be claimed again", got.Status)
				}
			}
			rec, err := st.Store.Get(ctx, tr.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Claims != 1 {
				t.Errorf("claimed %d times, want once", rec.Claims)
			}
			if n := waitNote(t, e, tr.ID); n.Status != transcribe.StatusCompleted {
				t.Errorf("webhook status %s, want completed", n.Status)
			}
			if st.failWrites.Load() >= 0 || st.failReads.Load() > 0 {
				t.Errorf("the store did not fail as planned (%d writes, %d reads left to fail)", st.failWrites.Load(), st.failReads.Load())
			}
		})
	}
}
