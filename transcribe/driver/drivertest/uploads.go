package drivertest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// RunUploadStoreTests checks every clause of the driver.UploadStore
// contract. newStore must return a fresh, empty store each time; the suite
// does not close it (close it in a t.Cleanup if it needs closing).
func RunUploadStoreTests(t *testing.T, newStore func(t *testing.T) driver.UploadStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s driver.UploadStore)
	}{
		{"Uploads", testUploads},
		{"AttachUpload", testAttachUpload},
		{"ListUploads", testListUploads},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if s == nil {
				t.Fatal("newStore returned nil")
			}
			tc.fn(t, s)
		})
	}
}

func testUploads(t *testing.T, s driver.UploadStore) {
	ctx := t.Context()
	if _, err := s.GetUpload(ctx, "u1"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("GetUpload on empty store: err = %v, want ErrNotFound", err)
	}
	u1 := &driver.Upload{ID: "u1", ProjectID: "p1", Size: 5 << 30, Created: base}
	u2 := &driver.Upload{ID: "u2", ProjectID: "p2", Size: 1, Created: base.Add(time.Second)}
	for _, u := range []*driver.Upload{u1, u2} {
		if err := s.CreateUpload(ctx, u); err != nil {
			t.Fatalf("CreateUpload(%s): %v", u.ID, err)
		}
	}
	for _, want := range []*driver.Upload{u1, u2} {
		got, err := s.GetUpload(ctx, want.ID)
		if err != nil {
			t.Fatalf("GetUpload(%s): %v", want.ID, err)
		}
		if got.ID != want.ID || got.ProjectID != want.ProjectID || got.Size != want.Size || !got.Created.Equal(want.Created) {
			t.Errorf("GetUpload(%s) = %+v, want %+v", want.ID, got, want)
		}
	}
	if err := s.CreateUpload(ctx, &driver.Upload{ID: "u1", ProjectID: "p2", Size: 9, Created: base}); !errors.Is(err, transcribe.ErrExists) {
		t.Errorf("CreateUpload of a taken id: err = %v, want ErrExists", err)
	}
	if got, err := s.GetUpload(ctx, "u1"); err != nil || got.ProjectID != "p1" || got.Size != 5<<30 {
		t.Errorf("failed CreateUpload changed the upload: %+v %v", got, err)
	}
	if err := s.DeleteUpload(ctx, "u1"); err != nil {
		t.Fatalf("DeleteUpload: %v", err)
	}
	if _, err := s.GetUpload(ctx, "u1"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("GetUpload after DeleteUpload: err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetUpload(ctx, "u2"); err != nil {
		t.Errorf("DeleteUpload(u1) removed u2: %v", err)
	}
	for _, id := range []string{"u1", "never"} {
		if err := s.DeleteUpload(ctx, id); err != nil {
			t.Errorf("DeleteUpload of absent %s: %v, want nil", id, err)
		}
	}
	// An id may be reused after deletion.
	if err := s.CreateUpload(ctx, &driver.Upload{ID: "u1", ProjectID: "p3", Size: 2, Created: base}); err != nil {
		t.Errorf("CreateUpload of a deleted id: %v", err)
	}
}

func mustCreateUpload(t *testing.T, s driver.UploadStore, us ...*driver.Upload) {
	t.Helper()
	for _, u := range us {
		if err := s.CreateUpload(t.Context(), u); err != nil {
			t.Fatalf("CreateUpload(%s): %v", u.ID, err)
		}
	}
}

func testAttachUpload(t *testing.T, s driver.UploadStore) {
	ctx := t.Context()
	if err := s.AttachUpload(ctx, "missing", "t1"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("AttachUpload of an absent upload: err = %v, want ErrNotFound", err)
	}
	mustCreateUpload(t, s,
		&driver.Upload{ID: "u1", ProjectID: "p1", Size: 3, Created: base},
		&driver.Upload{ID: "u2", ProjectID: "p1", Size: 4, Created: base, TranscriptID: "t0"})
	if got, err := s.GetUpload(ctx, "u2"); err != nil || got.TranscriptID != "t0" {
		t.Errorf("CreateUpload with TranscriptID t0: GetUpload = %+v, %v", got, err)
	}
	if got, err := s.GetUpload(ctx, "u1"); err != nil || got.TranscriptID != "" {
		t.Fatalf("new upload: GetUpload = %+v, %v; want empty TranscriptID", got, err)
	}
	if err := s.AttachUpload(ctx, "u1", "t1"); err != nil {
		t.Fatalf("AttachUpload: %v", err)
	}
	got, err := s.GetUpload(ctx, "u1")
	if err != nil || got.TranscriptID != "t1" || got.ProjectID != "p1" || got.Size != 3 || !got.Created.Equal(base) {
		t.Errorf("after AttachUpload(u1, t1): GetUpload = %+v, %v", got, err)
	}
	// Attaching again to the same transcript is fine; to another one is
	// refused (an upload is transcribed once).
	if err := s.AttachUpload(ctx, "u1", "t1"); err != nil {
		t.Fatalf("AttachUpload to the same transcript again: %v", err)
	}
	if err := s.AttachUpload(ctx, "u1", "t2"); !errors.Is(err, transcribe.ErrExists) {
		t.Fatalf("AttachUpload of an upload another transcript uses: err = %v, want ErrExists", err)
	}
	if got, err := s.GetUpload(ctx, "u1"); err != nil || got.TranscriptID != "t1" {
		t.Errorf("refused AttachUpload changed the upload: %+v, %v; want TranscriptID t1", got, err)
	}
	// Detaching always works; then another transcript may take it.
	if err := s.AttachUpload(ctx, "u1", ""); err != nil {
		t.Fatalf("detaching: %v", err)
	}
	if got, err := s.GetUpload(ctx, "u1"); err != nil || got.TranscriptID != "" {
		t.Errorf("after detaching: %+v, %v", got, err)
	}
	if err := s.AttachUpload(ctx, "u1", "t2"); err != nil {
		t.Fatalf("AttachUpload after detaching: %v", err)
	}
	if got, err := s.GetUpload(ctx, "u1"); err != nil || got.TranscriptID != "t2" {
		t.Errorf("after AttachUpload(u1, t2): GetUpload = %+v, %v; want TranscriptID t2", got, err)
	}
	if got, err := s.GetUpload(ctx, "u2"); err != nil || got.TranscriptID != "t0" {
		t.Errorf("AttachUpload(u1) changed u2: %+v, %v", got, err)
	}
	if err := s.DeleteUpload(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if err := s.AttachUpload(ctx, "u1", "t3"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Errorf("AttachUpload of a deleted upload: err = %v, want ErrNotFound", err)
	}
}

func testListUploads(t *testing.T, s driver.UploadStore) {
	ctx := t.Context()
	expired := func(before time.Time, limit int) []string {
		t.Helper()
		us, err := s.ListUploads(ctx, driver.UploadQuery{CreatedBefore: before, Unattached: true, Limit: limit})
		if err != nil {
			t.Fatalf("ListUploads(%v, %d): %v", before, limit, err)
		}
		out := []string{}
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	want := func(before time.Time, limit int, ids ...string) {
		t.Helper()
		if ids == nil {
			ids = []string{}
		}
		if got := expired(before, limit); !slices.Equal(got, ids) {
			t.Errorf("ListUploads(base%+v, %d) = %v, want %v", before.Sub(base), limit, got, ids)
		}
	}
	want(base.Add(time.Hour), 0)
	// Created out of id order; "b" and "c" tie on Created (smaller id first).
	mustCreateUpload(t, s,
		&driver.Upload{ID: "d", ProjectID: "p2", Size: 1, Created: base.Add(3 * time.Second)},
		&driver.Upload{ID: "c", ProjectID: "p1", Size: 2, Created: base.Add(time.Second)},
		&driver.Upload{ID: "a", ProjectID: "p1", Size: 3, Created: base.Add(2 * time.Second)},
		&driver.Upload{ID: "b", ProjectID: "p2", Size: 4, Created: base.Add(time.Second)},
		&driver.Upload{ID: "e", ProjectID: "p1", Size: 5, Created: base},
		&driver.Upload{ID: "used", ProjectID: "p1", Size: 6, Created: base.Add(-time.Hour), TranscriptID: "t9"},
		&driver.Upload{ID: "late", ProjectID: "p1", Size: 7, Created: base.Add(time.Hour)},
	)
	want(base.Add(4*time.Second), 0, "e", "b", "c", "a", "d")
	want(base.Add(4*time.Second), -1, "e", "b", "c", "a", "d")
	// The cutoff is strict, to the microsecond.
	want(base.Add(3*time.Second), 0, "e", "b", "c", "a")
	want(base.Add(3*time.Second+time.Microsecond), 0, "e", "b", "c", "a", "d")
	want(base.Add(time.Second), 0, "e")
	want(base, 0)
	// Limit keeps the oldest.
	want(base.Add(4*time.Second), 2, "e", "b")
	want(base.Add(4*time.Second), 5, "e", "b", "c", "a", "d")
	want(base.Add(4*time.Second), 9, "e", "b", "c", "a", "d")
	want(base.Add(2*time.Hour), 0, "e", "b", "c", "a", "d", "late")
	// The returned uploads are complete.
	if us, err := s.ListUploads(ctx, driver.UploadQuery{CreatedBefore: base.Add(2 * time.Second), Unattached: true, Limit: 1}); err != nil || len(us) != 1 {
		t.Fatalf("ListUploads limit 1 = %v, %v", us, err)
	} else if u := us[0]; u.ID != "e" || u.ProjectID != "p1" || u.Size != 5 || !u.Created.Equal(base) || u.TranscriptID != "" {
		t.Errorf("ListUploads returned %+v, want upload e as created", u)
	}
	// Deleted and attached uploads are not returned.
	if err := s.DeleteUpload(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.AttachUpload(ctx, "a", "t1"); err != nil {
		t.Fatal(err)
	}
	want(base.Add(4*time.Second), 0, "e", "c", "d")
	want(base.Add(4*time.Second), 2, "e", "c")
	// Changing a returned upload does not change the stored one.
	us, err := s.ListUploads(ctx, driver.UploadQuery{CreatedBefore: base.Add(time.Second), Unattached: true})
	if err != nil || len(us) != 1 {
		t.Fatalf("ListUploads = %v, %v", us, err)
	}
	us[0].TranscriptID, us[0].Size = "x", 99
	if got, err := s.GetUpload(ctx, "e"); err != nil || got.TranscriptID != "" || got.Size != 5 {
		t.Errorf("changing a returned upload changed the store: %+v, %v", got, err)
	}
	// Without Unattached, attached uploads are listed too; without
	// CreatedBefore, every upload.
	all := func(q driver.UploadQuery) []string {
		t.Helper()
		us, err := s.ListUploads(ctx, q)
		if err != nil {
			t.Fatalf("ListUploads(%+v): %v", q, err)
		}
		out := []string{}
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	if got := all(driver.UploadQuery{}); !slices.Equal(got, []string{"used", "e", "c", "a", "d", "late"}) {
		t.Errorf("ListUploads(all) = %v", got)
	}
	if got := all(driver.UploadQuery{CreatedBefore: base.Add(4 * time.Second)}); !slices.Equal(got, []string{"used", "e", "c", "a", "d"}) {
		t.Errorf("ListUploads(before +4s) = %v", got)
	}
	// The cursor pages on (Created, ID), strictly after it.
	var paged []string
	q := driver.UploadQuery{Limit: 2}
	for i := 0; i < 10; i++ {
		us, err := s.ListUploads(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			paged = append(paged, u.ID)
		}
		if len(us) < q.Limit {
			break
		}
		q.AfterCreated, q.AfterID = us[len(us)-1].Created, us[len(us)-1].ID
	}
	if !slices.Equal(paged, []string{"used", "e", "c", "a", "d", "late"}) {
		t.Errorf("paging ListUploads by 2 = %v", paged)
	}
	// Ties on Created break on ID.
	mustCreateUpload(t, s, &driver.Upload{ID: "cc", ProjectID: "p1", Size: 1, Created: base.Add(time.Second)})
	if got := all(driver.UploadQuery{AfterCreated: base.Add(time.Second), AfterID: "c", Limit: 2}); !slices.Equal(got, []string{"cc", "a"}) {
		t.Errorf("ListUploads after (+1s, c) = %v, want [cc a]", got)
	}
}
