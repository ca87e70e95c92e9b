package drivertest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// RunReadStoreTests checks a driver.ReadStore: GetUnlessSummary is
// Get (the fields of a read), with Data left out exactly when the stored
// Summary is the one given, across updates of any kind and from another Store on the same
// storage (a second process: newStores returns two Stores sharing it).
func RunReadStoreTests(t *testing.T, newStores func(t *testing.T) (driver.Store, driver.Store)) {
	t.Helper()
	a, b := newStores(t)
	ra, ok := a.(driver.ReadStore)
	if !ok {
		t.Fatalf("%T is not a driver.ReadStore", a)
	}
	ctx := t.Context()
	big := bytes.Repeat([]byte("0123456789abcdef"), 16<<10) // 256 KiB: out of line in any store
	r := rec("read-1", "p1", 0)
	r.Data = big
	mustCreate(t, a, r)
	if _, err := ra.GetUnlessSummary(ctx, "absent", nil); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("absent id: %v, want ErrNotFound", err)
	}
	same := func(got *driver.Record, wantData []byte, what string) {
		t.Helper()
		want, err := a.Get(ctx, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The fields of a read alone.
		want = &driver.Record{ID: want.ID, ProjectID: want.ProjectID, Status: want.Status, Deleted: want.Deleted,
			Created: want.Created, Completed: want.Completed, WebhookStatus: want.WebhookStatus, Summary: want.Summary, Data: wantData}
		got = &driver.Record{ID: got.ID, ProjectID: got.ProjectID, Status: got.Status, Deleted: got.Deleted,
			Created: got.Created, Completed: got.Completed, WebhookStatus: got.WebhookStatus, Summary: got.Summary, Data: got.Data}
		if d := diffRecord(got, want); d != "" {
			t.Errorf("%s: %s", what, d)
		}
	}
	for _, summary := range [][]byte{nil, {}, []byte("another summary")} {
		got, err := ra.GetUnlessSummary(ctx, r.ID, summary)
		if err != nil {
			t.Fatal(err)
		}
		same(got, big, "a summary other than the stored one")
	}
	got, err := ra.GetUnlessSummary(ctx, r.ID, r.Summary)
	if err != nil {
		t.Fatal(err)
	}
	if got.Data != nil {
		t.Errorf("the stored summary: got %d bytes of Data, want none", len(got.Data))
	}
	same(got, nil, "the stored summary")

	// A metadata change keeps the summary: still no Data.
	if err := a.SetWebhookStatus(ctx, r.ID, 204); err != nil {
		t.Fatal(err)
	}
	if got, err = ra.GetUnlessSummary(ctx, r.ID, r.Summary); err != nil || got.Data != nil || got.WebhookStatus != 204 {
		t.Fatalf("after a webhook status: %v, %d bytes of Data, webhook status %d", err, len(got.Data), got.WebhookStatus)
	}

	// Another Store (process) writes new content and summary: the old
	// summary no longer matches, and the new Data comes back.
	upd, err := b.Get(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	upd.Summary, upd.Data = []byte("summary 2"), []byte("data 2")
	if err := b.Update(ctx, upd); err != nil {
		t.Fatal(err)
	}
	if got, err = ra.GetUnlessSummary(ctx, r.ID, r.Summary); err != nil {
		t.Fatal(err)
	}
	same(got, []byte("data 2"), "after another store's update")
	if got, err = ra.GetUnlessSummary(ctx, r.ID, []byte("summary 2")); err != nil || got.Data != nil {
		t.Fatalf("the new summary: %v, %d bytes of Data", err, len(got.Data))
	}

	// Empty Data is returned as empty, not left out.
	upd.Summary, upd.Data = []byte("summary 3"), nil
	if err := b.Update(ctx, upd); err != nil {
		t.Fatal(err)
	}
	if got, err = ra.GetUnlessSummary(ctx, r.ID, []byte("summary 2")); err != nil || got.Data == nil || len(got.Data) != 0 {
		t.Fatalf("empty Data: %v, %v", err, got.Data)
	}
}
