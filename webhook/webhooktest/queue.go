// Package webhooktest holds the conformance suite of webhook.Queue, which
// every queue adapter runs from its TestConformance (storage/memory,
// storage/sqlite, storage/postgres): RunQueueTests, and DeliveryQueue for
// queuetest.Run.
package webhooktest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/queue/queuetest"
	"github.com/earshot-dev/earshot/webhook"
)

// base is the suite's reference time: microsecond precision in a zone
// other than UTC (adapters may return UTC).
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.FixedZone("UTC+1", 3600))

// RunQueueTests checks every clause of the webhook.Queue contract but the
// lease rules that every leased queue shares, which DeliveryQueue's
// queuetest.Run checks (ExtendDelivery, expiry and takeover, concurrent
// claims). newQueue
// must return a fresh, empty queue each time; the suite does not close it.
// Beyond the contract's letter it expects times to round-trip to the
// microsecond and deliveries to be copies.
func RunQueueTests(t *testing.T, newQueue func(t *testing.T) webhook.Queue) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s webhook.Queue)
	}{
		{"Deliveries", testDeliveries},
		{"ClaimOrder", testDeliveryClaimOrder},
		{"Lease", testDeliveryLease},
		{"Purge", testPurge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue(t)
			if q == nil {
				t.Fatal("newQueue returned nil")
			}
			tc.fn(t, q)
		})
	}
}

func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

func delivery(id, transcript string, next time.Time) *webhook.Delivery {
	return &webhook.Delivery{ID: id, TranscriptID: transcript, NextAttempt: next, Data: []byte("sealed:" + id)}
}

func diffDelivery(got, want *webhook.Delivery) string {
	var d []string
	add := func(field string, g, w any) { d = append(d, fmt.Sprintf("%s = %v, want %v", field, g, w)) }
	if got.ID != want.ID {
		add("ID", got.ID, want.ID)
	}
	if got.TranscriptID != want.TranscriptID {
		add("TranscriptID", got.TranscriptID, want.TranscriptID)
	}
	if got.Attempts != want.Attempts {
		add("Attempts", got.Attempts, want.Attempts)
	}
	if !got.NextAttempt.Equal(want.NextAttempt) {
		add("NextAttempt", got.NextAttempt, want.NextAttempt)
	}
	if got.Done != want.Done {
		add("Done", got.Done, want.Done)
	}
	if got.LeaseOwner != want.LeaseOwner {
		add("LeaseOwner", got.LeaseOwner, want.LeaseOwner)
	}
	if !got.LeaseUntil.Equal(want.LeaseUntil) {
		add("LeaseUntil", got.LeaseUntil, want.LeaseUntil)
	}
	if !bytes.Equal(got.Data, want.Data) {
		add("Data", fmt.Sprintf("%q", clip(got.Data)), fmt.Sprintf("%q", clip(want.Data)))
	}
	if len(d) == 0 {
		return ""
	}
	return fmt.Sprint(d)
}

func mustAddDelivery(t *testing.T, s webhook.Queue, ds ...*webhook.Delivery) {
	t.Helper()
	for _, d := range ds {
		if err := s.AddDelivery(t.Context(), d); err != nil {
			t.Fatalf("AddDelivery(%s): %v", d.ID, err)
		}
	}
}

func mustClaimDelivery(t *testing.T, s webhook.Queue, owner string, now time.Time, lease time.Duration) *webhook.Delivery {
	t.Helper()
	d, err := s.ClaimDelivery(t.Context(), webhook.Claim{Owner: owner, Now: now, Lease: lease})
	if err != nil {
		t.Fatalf("ClaimDelivery(%s, %v): %v", owner, now, err)
	}
	if d == nil {
		t.Fatal("ClaimDelivery returned nil, nil")
	}
	return d
}

func wantNoDelivery(t *testing.T, s webhook.Queue, owner string, now time.Time) {
	t.Helper()
	d, err := s.ClaimDelivery(t.Context(), webhook.Claim{Owner: owner, Now: now, Lease: time.Minute})
	if !errors.Is(err, webhook.ErrNoDelivery) {
		id := ""
		if d != nil {
			id = d.ID
		}
		t.Fatalf("ClaimDelivery(%s, %v) = %q, %v; want ErrNoDelivery", owner, now, id, err)
	}
}

func testDeliveries(t *testing.T, s webhook.Queue) {
	ctx := t.Context()
	wantNoDelivery(t, s, "w", base)
	d := delivery("d1", "t1", base)
	d.Attempts = 2
	mustAddDelivery(t, s, d)
	dup := delivery("d1", "t9", base.Add(-time.Hour))
	if err := s.AddDelivery(ctx, dup); !errors.Is(err, transcribe.ErrExists) {
		t.Fatalf("AddDelivery of a taken id: err = %v, want ErrExists", err)
	}
	got := mustClaimDelivery(t, s, "w1", base.Add(time.Second), 30*time.Second)
	want := *d
	want.LeaseOwner, want.LeaseUntil = "w1", base.Add(31*time.Second)
	if diff := diffDelivery(got, &want); diff != "" {
		t.Fatalf("claimed delivery: %s", diff)
	}
	// Update by another owner fails and changes nothing.
	other := *got
	other.LeaseOwner, other.Done = "w2", true
	if err := s.UpdateDelivery(ctx, &other); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Fatalf("UpdateDelivery by non-owner: err = %v, want ErrLeaseLost", err)
	}
	// The owner records a failed attempt and releases the lease.
	got.Attempts, got.NextAttempt, got.Data = 3, base.Add(time.Hour), []byte("retry")
	mustUpdate := func(d *webhook.Delivery) {
		t.Helper()
		if err := s.UpdateDelivery(ctx, d); err != nil {
			t.Fatalf("UpdateDelivery(%s): %v", d.ID, err)
		}
	}
	got.LeaseUntil = base // released: the lease ends before NextAttempt
	mustUpdate(got)
	wantNoDelivery(t, s, "w2", base.Add(time.Minute))
	// The former owner may still update it while nobody else claimed it.
	mustUpdate(got)
	again := mustClaimDelivery(t, s, "w2", base.Add(time.Hour), time.Minute)
	want = *got
	want.LeaseOwner, want.LeaseUntil = "w2", base.Add(time.Hour+time.Minute)
	if diff := diffDelivery(again, &want); diff != "" {
		t.Fatalf("delivery claimed after update: %s", diff)
	}
	// Done deliveries are never claimed.
	again.Done = true
	mustUpdate(again)
	wantNoDelivery(t, s, "w3", base.Add(1000*time.Hour))
	// Absent.
	if err := s.UpdateDelivery(ctx, delivery("ghost", "t", base)); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("UpdateDelivery of an absent delivery: err = %v, want ErrNotFound", err)
	}
	// UpdateDelivery never changes TranscriptID.
	moved := *again
	moved.TranscriptID = "t-other"
	mustUpdate(&moved)
	mustAddDelivery(t, s, delivery("d2", "t2", base))
	d2 := mustClaimDelivery(t, s, "w4", base, time.Minute)
	if d2.ID != "d2" || d2.TranscriptID != "t2" {
		t.Fatalf("claimed %+v, want d2 of t2", d2)
	}
}

func testDeliveryClaimOrder(t *testing.T, s webhook.Queue) {
	now := base.Add(time.Hour)
	mustAddDelivery(t, s,
		delivery("later", "t1", now.Add(10*time.Second)),
		delivery("mid", "t2", now.Add(-5*time.Second)),
		delivery("first", "t3", now.Add(-10*time.Second)),
		delivery("exact", "t4", now),
	)
	done := delivery("done", "t5", now.Add(-time.Hour))
	done.Done = true
	mustAddDelivery(t, s, done)
	for _, id := range []string{"first", "mid", "exact"} {
		if got := mustClaimDelivery(t, s, "w", now, time.Minute); got.ID != id {
			t.Fatalf("ClaimDelivery returned %s, want %s (earliest NextAttempt first)", got.ID, id)
		}
	}
	wantNoDelivery(t, s, "w", now)                                      // "later" is not due, the rest are leased
	wantNoDelivery(t, s, "w", now.Add(10*time.Second-time.Millisecond)) // still not due
	if got := mustClaimDelivery(t, s, "w", now.Add(10*time.Second), time.Minute); got.ID != "later" {
		t.Fatalf("ClaimDelivery at its NextAttempt returned %s, want later", got.ID)
	}
}

func testDeliveryLease(t *testing.T, s webhook.Queue) {
	ctx := t.Context()
	live := delivery("live", "t1", base.Add(-time.Hour))
	live.LeaseOwner, live.LeaseUntil = "w0", base.Add(time.Minute)
	free := delivery("free", "t2", base)
	mustAddDelivery(t, s, live, free)
	if got := mustClaimDelivery(t, s, "w1", base, time.Minute); got.ID != "free" {
		t.Fatalf("ClaimDelivery returned %s, want free (live is leased)", got.ID)
	}
	wantNoDelivery(t, s, "w1", base.Add(30*time.Second))
	wantNoDelivery(t, s, "w1", base.Add(time.Minute)) // LeaseUntil not before now
	// Both leases have run out: the earliest NextAttempt wins.
	got := mustClaimDelivery(t, s, "w2", base.Add(time.Minute+time.Millisecond), time.Minute)
	if got.ID != "live" || got.LeaseOwner != "w2" {
		t.Fatalf("ClaimDelivery after leases expired: %+v, want live leased to w2", got)
	}
	got = mustClaimDelivery(t, s, "w2", base.Add(2*time.Minute), time.Minute)
	if got.ID != "free" {
		t.Fatalf("ClaimDelivery after leases expired: %s, want free", got.ID)
	}
	// w1 lost "free" to w2.
	stale := delivery("free", "t2", base)
	stale.LeaseOwner, stale.Done = "w1", true
	if err := s.UpdateDelivery(ctx, stale); !errors.Is(err, transcribe.ErrLeaseLost) {
		t.Errorf("UpdateDelivery by the owner whose lease was taken: err = %v, want ErrLeaseLost", err)
	}
	got.Done = true
	if err := s.UpdateDelivery(ctx, got); err != nil {
		t.Errorf("UpdateDelivery by the current owner: %v", err)
	}
}

// testPurge: PurgeDeliveries deletes done deliveries whose NextAttempt is
// before the cutoff, at most limit of them, and nothing else.
func testPurge(t *testing.T, s webhook.Queue) {
	ctx := t.Context()
	mk := func(id string, next time.Time, done bool) {
		d := delivery(id, "t", next)
		d.Done = done
		mustAddDelivery(t, s, d)
	}
	mk("old-done-1", base.Add(-3*time.Hour), true)
	mk("old-done-2", base.Add(-2*time.Hour), true)
	mk("old-pending", base.Add(-2*time.Hour), false)
	mk("new-done", base.Add(time.Hour), true)
	if n, err := s.PurgeDeliveries(ctx, base, 1); err != nil || n != 1 {
		t.Fatalf("PurgeDeliveries(limit 1) = %d, %v; want 1", n, err)
	}
	if n, err := s.PurgeDeliveries(ctx, base, 0); err != nil || n != 1 {
		t.Fatalf("PurgeDeliveries(no limit) = %d, %v; want the other old done one", n, err)
	}
	if n, err := s.PurgeDeliveries(ctx, base, 0); err != nil || n != 0 {
		t.Fatalf("PurgeDeliveries again = %d, %v; want 0", n, err)
	}
	// The pending one is still claimable; the new done one is kept.
	if got := mustClaimDelivery(t, s, "w", base, time.Minute); got.ID != "old-pending" {
		t.Fatalf("claimed %s, want old-pending", got.ID)
	}
	if n, err := s.PurgeDeliveries(ctx, base.Add(2*time.Hour), 0); err != nil || n != 1 {
		t.Fatalf("PurgeDeliveries(+2h) = %d, %v; want new-done", n, err)
	}
	// Purged ids may be added again.
	mk("old-done-1", base, false)
}

// DeliveryQueue is the delivery queue of the queues newQueue returns
// (webhook.DeliveryQueue, its clock fixed at the suite's reference time),
// for queuetest.Run: the lease rules of a webhook.Queue. Each item is a
// delivery due an hour before the suite's times, the later added the
// later due.
func DeliveryQueue(newQueue func(t *testing.T) webhook.Queue) queuetest.Kind {
	return queuetest.For("deliveries", func(t *testing.T) queuetest.Harness[*webhook.Delivery] {
		q := newQueue(t)
		if q == nil {
			t.Fatal("newQueue returned nil")
		}
		n := 0
		return queuetest.Harness[*webhook.Delivery]{
			Queue: webhook.DeliveryQueue(q, func() time.Time { return base }),
			Add: func(ctx context.Context, id string) error {
				n++
				return q.AddDelivery(ctx, delivery(id, "t", base.Add(-time.Hour+time.Duration(n)*time.Millisecond)))
			},
			ID:    func(d *webhook.Delivery) string { return d.ID },
			Lease: func(d *webhook.Delivery) (string, time.Time) { return d.LeaseOwner, d.LeaseUntil },
		}
	})
}
