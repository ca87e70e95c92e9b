package drivertest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// testNotifyPending checks the outbox clauses: Update stores NotifyPending
// with the rest of the record, ListNotifyPending finds the pending final
// records completed before a time (earliest first, Data included, deleted
// ones too, up to a limit), and ClearNotifyPending clears the flag alone.
func testNotifyPending(t *testing.T, s driver.Store) {
	ctx := t.Context()
	final := func(id string, i int, pending bool) *driver.Record {
		r := rec(id, "p1", i)
		mustCreate(t, s, r)
		r.Status, r.Completed, r.NotifyPending = transcribe.StatusCompleted, base.Add(time.Duration(i+1)*time.Minute), pending
		r.Data = []byte("result:" + id)
		mustUpdate(t, s, r)
		if got := mustGet(t, s, id); got.NotifyPending != pending || string(got.Data) != "result:"+id {
			t.Fatalf("Get(%s) after Update with NotifyPending %v: NotifyPending %v, Data %q", id, pending, got.NotifyPending, got.Data)
		}
		return r
	}
	// Completed: a 1m, b 2m, c 3m (pending), d 4m (not pending), e 5m
	// (pending, deleted).
	a, b, c := final("a", 0, true), final("b", 1, true), final("c", 2, true)
	final("d", 3, false)
	e := final("e", 4, true)
	e.Deleted = true
	mustUpdate(t, s, e)
	rs, err := s.ListNotifyPending(ctx, base.Add(3*time.Minute+time.Second), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(rs), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("ListNotifyPending(before 3m1s) = %v, want %v (pending, completed before, earliest first)", got, want)
	}
	for _, r := range rs {
		if string(r.Data) != "result:"+r.ID || !r.NotifyPending || r.Status != transcribe.StatusCompleted {
			t.Errorf("ListNotifyPending record %s: Data %q NotifyPending %v Status %s", r.ID, r.Data, r.NotifyPending, r.Status)
		}
	}
	if rs, err := s.ListNotifyPending(ctx, base.Add(time.Hour), 2); err != nil || !slices.Equal(ids(rs), []string{"a", "b"}) {
		t.Errorf("ListNotifyPending(limit 2) = %v, %v; want [a b]", ids(rs), err)
	}
	if rs, err := s.ListNotifyPending(ctx, base.Add(time.Hour), 0); err != nil || !slices.Equal(ids(rs), []string{"a", "b", "c", "e"}) {
		t.Errorf("ListNotifyPending(before 1h) = %v, %v; want [a b c e] (deleted records included)", ids(rs), err)
	}
	if rs, err := s.ListNotifyPending(ctx, base.Add(3*time.Minute), 0); err != nil || !slices.Equal(ids(rs), []string{"a", "b"}) {
		t.Errorf("ListNotifyPending(before 3m) = %v, %v; want [a b] (strictly before)", ids(rs), err)
	}
	if err := s.SetWebhookStatus(ctx, "b", 200); err != nil {
		t.Fatal(err)
	}
	if err := s.ClearNotifyPending(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	want := *b
	want.NotifyPending, want.WebhookStatus = false, 200
	if d := diffRecord(mustGet(t, s, "b"), &want); d != "" {
		t.Errorf("Get after ClearNotifyPending: %s (only NotifyPending may change)", d)
	}
	if rs, err := s.ListNotifyPending(ctx, base.Add(time.Hour), 0); err != nil || !slices.Equal(ids(rs), []string{"a", "c", "e"}) {
		t.Errorf("ListNotifyPending after clearing b = %v, %v; want [a c e]", ids(rs), err)
	}
	if err := s.ClearNotifyPending(ctx, "absent"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("ClearNotifyPending(absent) = %v, want ErrNotFound", err)
	}
	// An Update without the flag clears it too (Update replaces it).
	a.NotifyPending = false
	mustUpdate(t, s, a)
	c.NotifyPending = true
	mustUpdate(t, s, c)
	if rs, err := s.ListNotifyPending(ctx, base.Add(time.Hour), 0); err != nil || !slices.Equal(ids(rs), []string{"c", "e"}) {
		t.Errorf("ListNotifyPending after Updates = %v, %v; want [c e]", ids(rs), err)
	}
}
