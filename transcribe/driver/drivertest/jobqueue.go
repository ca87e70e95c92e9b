package drivertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/queue/queuetest"
)

// JobQueue is the job queue of the stores newStore returns
// (transcribe.JobQueue), for queuetest.Run: the lease rules of a
// driver.Store. Each item is a queued transcript; the suite closes
// the store when its subtest ends.
func JobQueue(newStore func(t *testing.T) driver.Store) queuetest.Kind {
	return queuetest.For("jobs", func(t *testing.T) queuetest.Harness[*driver.Record] {
		s := newStore(t)
		if s == nil {
			t.Fatal("newStore returned nil")
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		n := 0
		return queuetest.Harness[*driver.Record]{
			Queue: transcribe.JobQueue(s),
			Add: func(ctx context.Context, id string) error {
				n++
				return s.Create(ctx, rec(id, "p", n))
			},
			ID:     func(r *driver.Record) string { return r.ID },
			Lease:  func(r *driver.Record) (string, time.Time) { return r.LeaseOwner, r.LeaseUntil },
			Finish: func(r *driver.Record) { r.Status = transcribe.StatusCompleted },
			// A leased job is processing, its data as it was created.
			Stored: func(ctx context.Context, id string) (string, time.Time, error) {
				r, err := s.Get(ctx, id)
				if err != nil {
					return "", time.Time{}, err
				}
				if r.Status != transcribe.StatusProcessing || string(r.Data) != "sealed:"+id {
					return "", time.Time{}, fmt.Errorf("stored job %s: status %s, data %q; want processing, %q", id, r.Status, clip(r.Data), "sealed:"+id)
				}
				return r.LeaseOwner, r.LeaseUntil, nil
			},
		}
	})
}
