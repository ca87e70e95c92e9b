package memory

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

func TestCountJobs(t *testing.T) {
	ctx := context.Background()
	s := New()
	for i, st := range []transcribe.Status{transcribe.StatusQueued, transcribe.StatusQueued, transcribe.StatusProcessing, transcribe.StatusCompleted, transcribe.StatusError} {
		if err := s.Create(ctx, &driver.Record{ID: fmt.Sprint("r", i), ProjectID: fmt.Sprint("p", i), Status: st}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Create(ctx, &driver.Record{ID: "deleted", ProjectID: "p", Status: transcribe.StatusQueued, Deleted: true}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.CountJobs(ctx, transcribe.StatusQueued); n != 2 || err != nil {
		t.Errorf("queued: %d %v", n, err)
	}
	if n, err := s.CountJobs(ctx, transcribe.StatusProcessing); n != 1 || err != nil {
		t.Errorf("processing: %d %v", n, err)
	}
	if _, err := s.CountJobs(ctx, transcribe.StatusError); err == nil {
		t.Error("CountJobs(error) accepted")
	}
	s.Close()
	if _, err := s.CountJobs(ctx, transcribe.StatusQueued); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
