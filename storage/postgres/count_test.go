package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// TestCountJobs: CountJobs counts the unfinished, undeleted records of every
// project, sees a second Store's (process's) writes, and fails once closed;
// Ping answers until Close.
func TestCountJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testservices.Postgres(t)
	s, other := openTest(t, url, "counts"), openTest(t, url, "counts")
	add := func(st *Store, id, project string, status transcribe.Status, deleted bool) {
		t.Helper()
		if err := st.Create(ctx, &driver.Record{ID: id, ProjectID: project, Status: status, Deleted: deleted, Created: t0, Data: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		add(s, fmt.Sprint("q", i), fmt.Sprint("p", i), transcribe.StatusQueued, false)
	}
	add(other, "q-deleted", "p0", transcribe.StatusQueued, true)
	add(other, "proc", "p1", transcribe.StatusProcessing, false)
	add(other, "done", "p0", transcribe.StatusCompleted, false)
	for _, c := range []struct {
		status transcribe.Status
		want   int
	}{{transcribe.StatusQueued, 3}, {transcribe.StatusProcessing, 1}} {
		if n, err := s.CountJobs(ctx, c.status); err != nil || n != c.want {
			t.Errorf("CountJobs(%s) = %d, %v; want %d", c.status, n, err, c.want)
		}
	}
	if _, err := s.CountJobs(ctx, transcribe.StatusError); err == nil {
		t.Error("CountJobs(error) accepted")
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := s.CountJobs(ctx, transcribe.StatusQueued); err == nil {
		t.Error("CountJobs after Close succeeded")
	}
	if err := s.Ping(ctx); err == nil {
		t.Error("Ping after Close succeeded")
	}
}
