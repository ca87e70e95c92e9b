package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// TestCountJobs: CountJobs counts unfinished, undeleted records of every
// project through the index of unfinished jobs, sees a second handle's
// (process's) writes, and fails once the store is closed.
func TestCountJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTemp(t, Config{Synchronous: "NORMAL"})
	other := openTemp(t, Config{Path: s.Path(), Synchronous: "NORMAL"})
	defer other.Close()
	add := func(st *Store, id, project string, status transcribe.Status, deleted bool) {
		t.Helper()
		r := &driver.Record{ID: id, ProjectID: project, Status: status, Deleted: deleted, Created: base, Data: []byte("x")}
		if err := st.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		add(s, fmt.Sprint("q", i), fmt.Sprint("p", i), transcribe.StatusQueued, false)
	}
	add(other, "q-deleted", "p0", transcribe.StatusQueued, true)
	add(other, "proc", "p1", transcribe.StatusProcessing, false)
	for i := range 5 {
		add(other, fmt.Sprint("done", i), "p0", transcribe.StatusCompleted, false)
	}
	add(s, "err", "p2", transcribe.StatusError, false)
	for _, c := range []struct {
		status transcribe.Status
		want   int
	}{{transcribe.StatusQueued, 3}, {transcribe.StatusProcessing, 1}} {
		if n, err := s.CountJobs(ctx, c.status); err != nil || n != c.want {
			t.Errorf("CountJobs(%s) = %d, %v; want %d", c.status, n, err, c.want)
		}
	}
	if _, err := s.CountJobs(ctx, transcribe.StatusCompleted); err == nil || !strings.Contains(err.Error(), "completed") {
		t.Errorf("CountJobs(completed) must be refused naming the status: %v", err)
	}
	plan := explain(t, s, countJobsSQL, "queued")
	if !strings.Contains(plan, "transcripts_active") {
		t.Errorf("CountJobs does not count over the index of unfinished jobs:\n%s", plan)
	}
	s.Close()
	if _, err := s.CountJobs(ctx, transcribe.StatusQueued); err == nil {
		t.Error("CountJobs on a closed store succeeded")
	}
}
