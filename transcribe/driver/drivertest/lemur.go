package drivertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// RunLeMURStoreTests checks the driver.LeMURStore contract on stores
// made by newStore (a fresh, empty store per call).
func RunLeMURStoreTests(t *testing.T, newStore func(t *testing.T) driver.LeMURStore) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	rec := func(project string, data string, created time.Time) *driver.LeMURRecord {
		return &driver.LeMURRecord{ProjectID: project, RequestID: uuid.NewString(), Data: []byte(data), Created: created}
	}
	same := func(t *testing.T, got, want *driver.LeMURRecord) {
		t.Helper()
		if got == nil || got.ProjectID != want.ProjectID || got.RequestID != want.RequestID ||
			!bytes.Equal(got.Data, want.Data) || !got.Created.Equal(want.Created) {
			t.Fatalf("record %+v, want %+v", got, want)
		}
	}
	t.Run("PutGet", func(t *testing.T) {
		s := newStore(t)
		r := rec("p", "\x00sealed\xff bytes", now)
		if err := s.PutLeMUR(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetLeMUR(ctx, "p", r.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, r)
		// The caller's slice is not the store's.
		got.Data[0] = 'x'
		if again, _ := s.GetLeMUR(ctx, "p", r.RequestID); again == nil || again.Data[0] != 0 {
			t.Fatalf("changing a returned record changed the stored one: %+v", again)
		}
		// Another project's id is not found, nor is an unknown one.
		for _, q := range [][2]string{{"q", r.RequestID}, {"p", uuid.NewString()}, {"p", "not-a-uuid"}} {
			if _, err := s.GetLeMUR(ctx, q[0], q[1]); !errors.Is(err, transcribe.ErrNotFound) {
				t.Fatalf("GetLeMUR(%q, %q): %v, want ErrNotFound", q[0], q[1], err)
			}
		}
	})
	t.Run("SameIDRefused", func(t *testing.T) {
		s := newStore(t)
		r := rec("p", "first", now)
		if err := s.PutLeMUR(ctx, r); err != nil {
			t.Fatal(err)
		}
		dup := *r
		dup.Data, dup.ProjectID = []byte("second"), "q"
		if err := s.PutLeMUR(ctx, &dup); !errors.Is(err, transcribe.ErrExists) {
			t.Fatalf("second PutLeMUR of one id: %v, want ErrExists", err)
		}
		got, err := s.GetLeMUR(ctx, "p", r.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, r)
	})
	t.Run("Delete", func(t *testing.T) {
		s := newStore(t)
		r := rec("p", "answer", now)
		if err := s.PutLeMUR(ctx, r); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.DeleteLeMUR(ctx, "q", r.RequestID); err != nil || ok {
			t.Fatalf("another project's delete: %v, %v; want false, nil", ok, err)
		}
		if _, err := s.GetLeMUR(ctx, "p", r.RequestID); err != nil {
			t.Fatalf("another project's delete removed the record: %v", err)
		}
		if ok, err := s.DeleteLeMUR(ctx, "p", r.RequestID); err != nil || !ok {
			t.Fatalf("delete: %v, %v; want true, nil", ok, err)
		}
		if _, err := s.GetLeMUR(ctx, "p", r.RequestID); !errors.Is(err, transcribe.ErrNotFound) {
			t.Fatalf("after delete: %v, want ErrNotFound", err)
		}
		if ok, err := s.DeleteLeMUR(ctx, "p", r.RequestID); err != nil || ok {
			t.Fatalf("second delete: %v, %v; want false, nil", ok, err)
		}
	})
	t.Run("Sweep", func(t *testing.T) {
		s := newStore(t)
		old1, old2, fresh := rec("p", "a", now.Add(-48*time.Hour)), rec("q", "b", now.Add(-25*time.Hour)), rec("p", "c", now)
		for _, r := range []*driver.LeMURRecord{old1, old2, fresh} {
			if err := s.PutLeMUR(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		n, err := s.SweepLeMUR(ctx, now.Add(-24*time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("sweep: %d, %v; want 2", n, err)
		}
		for _, r := range []*driver.LeMURRecord{old1, old2} {
			if _, err := s.GetLeMUR(ctx, r.ProjectID, r.RequestID); !errors.Is(err, transcribe.ErrNotFound) {
				t.Fatalf("swept record: %v", err)
			}
		}
		got, err := s.GetLeMUR(ctx, "p", fresh.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, fresh)
	})
	t.Run("Concurrent", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Go(func() {
				r := rec(fmt.Sprint("p", i%3), fmt.Sprint("answer ", i), now)
				if err := s.PutLeMUR(ctx, r); err != nil {
					errs <- err
					return
				}
				got, err := s.GetLeMUR(ctx, r.ProjectID, r.RequestID)
				if err != nil {
					errs <- err
					return
				}
				if string(got.Data) != string(r.Data) {
					errs <- fmt.Errorf("read %q, wrote %q", got.Data, r.Data)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}
