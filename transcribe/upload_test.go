package transcribe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

func TestUploadErrors(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) { c.MaxUploadBytes = 100 })
	ctx := context.Background()
	if _, err := e.svc.Upload(ctx, "p", bytes.NewReader(nil)); !errors.Is(err, transcribe.ErrEmptyUpload) {
		t.Errorf("empty: %v", err)
	}
	if _, err := e.svc.Upload(ctx, "p", bytes.NewReader(make([]byte, 101))); !errors.Is(err, transcribe.ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
	if _, err := e.svc.Upload(ctx, "p", bytes.NewReader(make([]byte, 100))); err != nil {
		t.Errorf("at limit: %v", err)
	}
	if e.blobs.Len() != 1 {
		t.Errorf("failed uploads left blobs: %v", e.blobs.Keys())
	}
}

// stallReader yields head, then waits for release and fails with err: a
// client whose upload is in flight, then cut off.
type stallReader struct {
	head    []byte
	started chan struct{}
	release chan struct{}
	err     error
}

func (r *stallReader) Read(p []byte) (int, error) {
	if len(r.head) > 0 {
		n := copy(p, r.head)
		r.head = r.head[n:]
		return n, nil
	}
	close(r.started)
	<-r.release
	return 0, r.err
}

// TestUploadRecordedBeforeItsBytes: while an upload's bytes stream in, its
// record already exists (a process killed now leaves a record the janitor
// sweeps, never a blob nothing points to); a cut-off upload leaves neither.
func TestUploadRecordedBeforeItsBytes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r := &stallReader{head: make([]byte, 1000), started: make(chan struct{}), release: make(chan struct{}), err: io.ErrUnexpectedEOF}
	done := make(chan error, 1)
	go func() { _, err := e.svc.Upload(ctx, "p", r); done <- err }()
	<-r.started
	us, err := e.store.ListUploads(ctx, driver.UploadQuery{})
	if err != nil || len(us) != 1 || us[0].ProjectID != "p" || us[0].TranscriptID != "" {
		t.Fatalf("no record while the bytes stream in: %+v, %v", us, err)
	}
	close(r.release)
	var re *transcribe.ReadError
	if err := <-done; !errors.As(err, &re) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut-off upload: %v", err)
	}
	if us, err := e.store.ListUploads(ctx, driver.UploadQuery{}); err != nil || len(us) != 0 {
		t.Errorf("cut-off upload left records: %+v, %v", us, err)
	}
	if e.blobs.Len() != 0 {
		t.Errorf("cut-off upload left blobs: %v", e.blobs.Keys())
	}
}

// TestUploadExpiry: the janitor deletes an upload no transcript used
// within UploadTTL (blob and record), and keeps a young unused upload and
// the uploads of a processing and of a queued transcript however old.
func TestUploadExpiry(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) {
		c.Workers = 1
		c.UploadTTL = time.Hour
		c.UploadSweepInterval = 10 * time.Millisecond
	})
	block := make(chan struct{})
	defer close(block)
	e.rec.mu.Lock()
	e.rec.block = block
	e.rec.mu.Unlock()
	ctx := context.Background()
	id := func(u string) string { return strings.TrimPrefix(u, uploadRef) }
	unused := e.upload(t, "p", media(1, 1))
	processing := e.upload(t, "p", media(1, 1))
	queued := e.upload(t, "p", media(1, 1))
	var trs []string
	for _, u := range []string{processing, queued} {
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
		if err != nil {
			t.Fatal(err)
		}
		trs = append(trs, tr.ID)
		if up, err := e.store.GetUpload(ctx, id(u)); err != nil || up.TranscriptID != tr.ID {
			t.Fatalf("Submit did not attach the upload: %+v, %v", up, err)
		}
	}
	exists := func(u string) bool {
		t.Helper()
		_, err := e.store.GetUpload(ctx, id(u))
		_, berr := e.blobs.Open(ctx, "uploads/"+id(u))
		if (err == nil) != (berr == nil) {
			t.Fatalf("upload %s: record err %v but blob err %v", id(u), err, berr)
		}
		return err == nil
	}
	// Younger than the TTL: nothing expires.
	e.now.Add(59 * time.Minute)
	time.Sleep(50 * time.Millisecond)
	if !exists(unused) {
		t.Fatal("upload deleted before UploadTTL")
	}
	e.now.Add(2 * time.Minute)
	young := e.upload(t, "p", media(1, 1))
	deadline := time.Now().Add(5 * time.Second)
	for exists(unused) {
		if time.Now().After(deadline) {
			t.Fatal("unused upload older than UploadTTL was not deleted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // a few more sweeps
	for name, u := range map[string]string{"young": young, "processing": processing, "queued": queued} {
		if !exists(u) {
			t.Errorf("%s upload was deleted", name)
		}
	}
	// The test means something only while both transcripts are unfinished.
	for _, trID := range trs {
		if tr, err := e.svc.Get(ctx, "p", trID); err != nil || tr.Status.Final() {
			t.Fatalf("transcript %s: %v, %v; want unfinished", trID, tr.Status, err)
		}
	}
	if tr, _ := e.svc.Get(ctx, "p", trs[1]); tr.Status != transcribe.StatusQueued {
		t.Errorf("second transcript is %s, want queued", tr.Status)
	}
	if _, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: unused}); err == nil {
		t.Error("Submit with an expired upload succeeded")
	}
}

// TestUploadSubmittedTwice: an upload is transcribed once; a second
// submit is a 400 naming the reason, and the first transcript completes.
func TestUploadSubmittedTwice(t *testing.T) {
	block := make(chan struct{})
	e := newEnv(t, func(c *transcribe.Config) { c.Recognizer = &fakeRecognizer{block: block} })
	defer close(block)
	ctx := context.Background()
	u := e.upload(t, "p", media(1, 1))
	first, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u})
	if err != nil {
		t.Fatal(err)
	}
	var pe *transcribe.ParamError
	if _, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: u}); !errors.As(err, &pe) || pe.Field != "audio_url" || !strings.Contains(pe.Reason, "already used") {
		t.Fatalf("second submit: %v", err)
	}
	if tr, err := e.svc.Get(ctx, "p", first.ID); err != nil || tr.Status.Final() {
		t.Fatalf("first transcript: %v %v", tr.Status, err)
	}
}

// TestJanitorRemovesOrphanedUploads: an upload whose transcript finished
// or was deleted (its removal was cut off by a crash) is deleted by the
// janitor; the upload of a running job is kept.
func TestJanitorRemovesOrphanedUploads(t *testing.T) {
	e := newEnv(t, func(c *transcribe.Config) {
		c.Workers = -1
		c.UploadTTL = time.Hour
		c.UploadSweepInterval = 10 * time.Millisecond
	})
	ctx := context.Background()
	finished := &driver.Record{ID: "00000000-0000-4000-8000-000000000001", ProjectID: "p", Status: transcribe.StatusCompleted, Created: time.Now()}
	deleted := &driver.Record{ID: "00000000-0000-4000-8000-000000000002", ProjectID: "p", Status: transcribe.StatusQueued, Deleted: true, Created: time.Now()}
	running := &driver.Record{ID: "00000000-0000-4000-8000-000000000003", ProjectID: "p", Status: transcribe.StatusProcessing, Created: time.Now()}
	for _, r := range []*driver.Record{finished, deleted, running} {
		if err := e.store.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(id, tr string) { // as Service.Upload does: the bytes first, then the record
		e.blobs.Put(ctx, "uploads/"+id, strings.NewReader("x"))
		if err := e.store.CreateUpload(ctx, &driver.Upload{ID: id, ProjectID: "p", Size: 1, Created: e.now.Now().Add(-10 * time.Minute), TranscriptID: tr}); err != nil {
			t.Fatal(err)
		}
	}
	mk("u-finished", finished.ID)
	mk("u-deleted", deleted.ID)
	mk("u-running", running.ID)
	mk("u-ghost", "00000000-0000-4000-8000-00000000dead")
	deadline := time.Now().Add(5 * time.Second)
	for e.blobs.Len() > 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if keys := e.blobs.Keys(); len(keys) != 1 || keys[0] != "uploads/u-running" {
		t.Fatalf("blobs left: %v", keys)
	}
	for _, id := range []string{"u-finished", "u-deleted", "u-ghost"} {
		if _, err := e.store.GetUpload(ctx, id); !errors.Is(err, transcribe.ErrNotFound) {
			t.Errorf("upload record %s kept: %v", id, err)
		}
	}
}
