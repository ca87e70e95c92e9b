package transcribe_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

func TestList(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { c.Workers = -1; c.Retention = 48 * time.Hour })
	ctx := context.Background()
	var ids []string
	for i := 0; i < 5; i++ {
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: fmt.Sprintf("https://media.test/%d.wav", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
		e.now.Add(time.Hour)
	}
	page, err := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 2 || page.Entries[0].ID != ids[4] || page.Entries[1].ID != ids[3] {
		t.Fatalf("first page %+v", page.Entries)
	}
	if page.Limit != 2 || page.Older != ids[3] || page.Newer != ids[4] {
		t.Fatalf("cursors %+v", page)
	}
	if it := page.Entries[0]; it.AudioURL != "https://media.test/4.wav" || !it.Completed.IsZero() || it.Status != transcribe.StatusQueued || it.Error != nil {
		t.Errorf("entry %+v", it)
	}
	older, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, BeforeID: ids[3]})
	if len(older.Entries) != 2 || older.Entries[0].ID != ids[2] || older.Older != ids[1] {
		t.Fatalf("older page %+v", older)
	}
	oldest, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, BeforeID: ids[1]})
	if len(oldest.Entries) != 1 || oldest.Older != "" {
		t.Fatalf("oldest page %+v", oldest)
	}
	newer, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 2, AfterID: ids[0]})
	if len(newer.Entries) != 2 || newer.Entries[0].ID != ids[2] || newer.Entries[1].ID != ids[1] || newer.Older != ids[1] {
		t.Fatalf("newer page %+v", newer.Entries)
	}
	// Retention: 48 h; the clock is now 5 h after the first. Move 45 h on.
	e.now.Add(45 * time.Hour)
	kept, _ := e.svc.List(ctx, "p", transcribe.ListOptions{Limit: 10})
	if len(kept.Entries) != 3 {
		t.Fatalf("retention kept %d, want 3", len(kept.Entries))
	}
	for _, bad := range []transcribe.ListOptions{{Limit: 201}, {Limit: -1}, {Status: "done"}, {BeforeID: "nope"},
		{AfterID: "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d"}, {BeforeID: ids[4], AfterID: "6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d"}} {
		var pe *transcribe.ParamError
		if _, err := e.svc.List(ctx, "p", bad); !errors.As(err, &pe) {
			t.Errorf("%+v: want ParamError, got %v", bad, err)
		}
	}
	// Another project's transcript is not a cursor.
	if _, err := e.svc.List(ctx, "other", transcribe.ListOptions{BeforeID: ids[4]}); err == nil {
		t.Error("another project's id was accepted as a cursor")
	}
	today := e.now.Now().UTC()
	byDay, err := e.svc.List(ctx, "p", transcribe.ListOptions{CreatedOn: today})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range byDay.Entries {
		if it.Created.UTC().Format("2006-01-02") != today.Format("2006-01-02") {
			t.Errorf("created_on %s returned %s", today, it.Created)
		}
	}
	thr, _ := e.svc.List(ctx, "p", transcribe.ListOptions{ThrottledOnly: true})
	if len(thr.Entries) != 0 || thr.Entries == nil {
		t.Errorf("throttled_only returned %v", thr.Entries)
	}
}

// TestListReadsNoTranscripts: a page never unseals a transcript's content
// (only its small list entry), so its cost does not grow with what the
// transcripts hold. The store counts Gets; List must make none.
func TestListReadsNoTranscripts(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { c.Workers = -1 })
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: "https://media.test/a.wav"}); err != nil {
			t.Fatal(err)
		}
	}
	counting := &countingStore{Store: e.store}
	svc, err := transcribe.NewService(transcribe.Config{Store: counting, Uploads: e.store, Blobs: e.blobs, Recognizer: e.rec,
		Decoder: rawDecoder{}, Key: e.key, Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	page, err := svc.List(ctx, "p", transcribe.ListOptions{})
	if err != nil || len(page.Entries) != 3 || page.Entries[0].AudioURL != "https://media.test/a.wav" {
		t.Fatalf("List = %+v, %v", page, err)
	}
	if counting.gets != 0 {
		t.Errorf("List made %d Store.Get calls, want 0", counting.gets)
	}
}

type countingStore struct {
	driver.Store
	gets int
}

func (c *countingStore) Get(ctx context.Context, id string) (*driver.Record, error) {
	c.gets++
	return c.Store.Get(ctx, id)
}
