package httpapi_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/storage/postgres"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// The Service keeps the transcripts it served decrypted in memory
// (transcribe's read cache) and serves them again once the store has
// confirmed, in the read itself, that the record is unchanged. These
// tests run two servers, as two processes would, on one database with
// one key, and check that neither serves what it kept once the other has
// written, and that no project is ever served another's transcript.

// sharedDB returns a function opening a new store ("process") on one
// database of kind: "sqlite" (one file) or "postgres" (one database;
// skipped without one).
func sharedDB(t *testing.T, kind string) func() driver.Store {
	var open func() (driver.Store, error)
	switch kind {
	case "sqlite":
		path := filepath.Join(t.TempDir(), "earshot.db")
		open = func() (driver.Store, error) { return sqlite.Open(sqlite.Config{Path: path}) }
	case "postgres":
		url := testservices.Postgres(t)
		open = func() (driver.Store, error) {
			return postgres.Open(context.Background(), postgres.Config{URL: url})
		}
	default:
		t.Fatalf("unknown store %q", kind)
	}
	return func() driver.Store {
		s, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// processes returns a function starting a fixture ("process") on one
// database of kind, all with one key and one blob store (so any of them
// can run the jobs another accepted), with workers workers (-1: none).
func processes(t *testing.T, kind string) func(workers int) *fixture {
	open := sharedDB(t, kind)
	key, blobs := transcribe.NewKey(), memory.NewBlobStore()
	return func(workers int) *fixture {
		return newFixtureWith(t, func(c *transcribe.Config) {
			c.Store, c.Key, c.Blobs, c.Workers = open(), key, blobs, workers
			if us, ok := c.Store.(driver.UploadStore); ok {
				c.Uploads = us
			}
			c.Recognizer.(*transcribetest.FakeRecognizer).Script = small
		})
	}
}

var stores = []string{"sqlite", "postgres"}

// TestGetSeesOtherProcessCompletion: a server that served a queued
// transcript (again from its cache from the second GET on) serves the
// completed transcript, words and all, as soon as another server's worker
// has stored it: never the queued form it kept with the new status
// spliced in.
func TestGetSeesOtherProcessCompletion(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			start := processes(t, kind)
			a := start(-1)
			u, err := a.svc.Upload(t.Context(), "p1", bytes.NewReader(a.wav))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := a.svc.Submit(t.Context(), "p1", transcribe.SubmitRequest{UploadID: u.ID,
				Params: transcribe.TranscriptParams{AudioURL: "https://example.com/a.wav"}})
			if err != nil {
				t.Fatal(err)
			}
			path := "/v2/transcript/" + tr.ID
			queued := a.do(t, "GET", path, "k1", nil)
			for range 3 {
				if again := a.do(t, "GET", path, "k1", nil); again.status != 200 || !bytes.Equal(again.body, queued.body) {
					t.Fatalf("GET again: %d %s", again.status, again.body)
				}
			}
			if m := queued.json(t); m["status"] != "queued" || m["words"] != nil {
				t.Fatalf("not the queued form: %s", queued.body)
			}
			// Another process, with workers, runs the job.
			start(2)
			deadline := time.Now().Add(30 * time.Second)
			for {
				got := a.do(t, "GET", path, "k1", nil)
				m := got.json(t)
				if m["status"] == "completed" {
					if words, _ := m["words"].([]any); len(words) != 155 {
						t.Fatalf("completed with %d words (a stale plaintext with the new status?): %.300s", len(words), got.body)
					}
					break
				}
				if m["status"] == "error" || time.Now().After(deadline) {
					t.Fatalf("the other process did not complete the job: %.300s", got.body)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// completed submits n transcripts of project through f and waits until
// they are completed (by any process's workers); it returns their ids.
func completed(t *testing.T, f *fixture, project string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		u, err := f.svc.Upload(t.Context(), project, bytes.NewReader(f.wav))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := f.svc.Submit(t.Context(), project, transcribe.SubmitRequest{UploadID: u.ID,
			Params: transcribe.TranscriptParams{AudioURL: "https://example.com/" + project + ".wav"}})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = tr.ID
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range ids {
		for {
			tr, err := f.svc.Get(t.Context(), project, id)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Status == transcribe.StatusCompleted {
				break
			}
			if tr.Status.Final() || time.Now().After(deadline) {
				t.Fatalf("transcript %s: %s", id, tr.Status)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return ids
}

// TestGetCacheKeepsProjectsApart: a transcript one project's key read
// (and so left in the server's cache) is a 404 to another project's key,
// on the server that holds it and on another; each project reads its
// own transcripts alone, however the reads interleave.
func TestGetCacheKeepsProjectsApart(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			start := processes(t, kind)
			a, b := start(2), start(-1)
			p1 := completed(t, a, "p1", 2)
			p2 := completed(t, a, "p2", 1)
			own := map[string][]byte{}   // id: body
			owner := map[string]string{} // id: key
			for range 3 {
				for _, c := range []struct {
					key string
					ids []string
				}{{"k1", p1}, {"k2", p2}} {
					for _, id := range c.ids {
						got := a.do(t, "GET", "/v2/transcript/"+id, c.key, nil)
						if got.status != 200 {
							t.Fatalf("%s reading its own %s: %d %s", c.key, id, got.status, got.body)
						}
						if own[id] != nil && !bytes.Equal(own[id], got.body) {
							t.Fatalf("%s: the body changed between reads", id)
						}
						own[id], owner[id] = got.body, c.key
					}
				}
			}
			for _, f := range []*fixture{a, b} {
				for _, c := range []struct {
					key string
					ids []string
				}{{"k2", p1}, {"k1", p2}, {"nokey", p1}} {
					for _, id := range c.ids {
						got := f.do(t, "GET", "/v2/transcript/"+id, c.key, nil)
						if got.status == 200 || bytes.Contains(got.body, []byte(`"words"`)) || bytes.Contains(got.body, []byte(id)) {
							t.Errorf("%s read another project's transcript %s: %d %.200s", c.key, id, got.status, got.body)
						}
					}
				}
			}
			// The owner still reads its own, unchanged.
			for id, want := range own {
				if got := a.do(t, "GET", "/v2/transcript/"+id, owner[id], nil); !bytes.Equal(got.body, want) {
					t.Errorf("%s after the refused reads: %d %.200s", id, got.status, got.body)
				}
			}
		})
	}
}
