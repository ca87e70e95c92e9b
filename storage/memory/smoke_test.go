package memory

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	s := New()
	now := time.Now()
	for _, id := range []string{"a", "b"} {
		if err := s.Create(ctx, &transcribe.Record{ID: id, ProjectID: "p", Status: transcribe.StatusQueued, Created: now}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.ClaimJob(ctx, "w", now, time.Minute)
	if err != nil || r.ID != "a" || r.Status != transcribe.StatusProcessing {
		t.Fatalf("claim: %+v %v", r, err)
	}
	recs, err := s.List(ctx, transcribe.ListQuery{ProjectID: "p"})
	if err != nil || len(recs) != 2 || recs[0].ID != "b" {
		t.Fatalf("list: %v %v", recs, err)
	}
	if _, err := s.Get(ctx, "zz"); !errors.Is(err, transcribe.ErrNotFound) {
		t.Fatal(err)
	}
}
