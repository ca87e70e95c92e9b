package openaiapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/transcribe"
)

// gate is a Recognizer that holds every call until it is opened, then
// lets the real recognizer do the work.
type gate struct {
	transcribe.Recognizer
	entered chan struct{} // receives once per call, when it is held
	open    chan struct{}
}

func newGate(r transcribe.Recognizer) *gate {
	return &gate{Recognizer: r, entered: make(chan struct{}, 8), open: make(chan struct{})}
}

func (g *gate) Recognize(ctx context.Context, audio []int16, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	g.entered <- struct{}{}
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Recognizer.Recognize(ctx, audio, opts)
}

// Close does not close the shared recognizer.
func (g *gate) Close() error { return nil }

// waitListed returns the id of the /v1 request's one transcript once it
// exists, and checks that the project's own (/v2) list and reads never
// see it.
func waitListed(t *testing.T, f *fixture) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		list, err := f.svc.List(context.Background(), jobs1, transcribe.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Entries) == 1 {
			id := list.Entries[0].ID
			own, err := f.svc.List(context.Background(), project1, transcribe.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(own.Entries) != 0 {
				t.Errorf("the /v1 transcript is in the project's /v2 list: %+v", own.Entries)
			}
			if _, err := f.svc.Get(context.Background(), project1, id); !errors.Is(err, transcribe.ErrNotFound) {
				t.Errorf("the /v1 transcript is readable through the project's /v2: %v", err)
			}
			return id
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no transcript was submitted")
	return ""
}

// waitGet polls transcript id until ok says it is as wanted.
func waitGet(t *testing.T, f *fixture, id string, ok func(*transcribe.Transcript) bool) *transcribe.Transcript {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		tr, err := f.svc.Get(context.Background(), jobs1, id)
		if err != nil {
			t.Fatal(err)
		}
		if ok(tr) {
			return tr
		}
		if time.Now().After(deadline) {
			t.Fatalf("transcript %s stays %s (deleted %v)", id, tr.Status, tr.IsDeleted)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClientGoesAway: a client that disconnects while its file is being
// recognized cancels nothing. The job completes (its status is completed,
// not the error a deletion of a running job gives), and its transcript is
// deleted then, with its upload.
func TestClientGoesAway(t *testing.T) {
	t.Parallel()
	g := newGate(recognizer(t))
	serverGone := make(chan struct{}, 1)
	f := newFixture(t, fixtureOptions{
		engines: []transcribe.Engine{{Name: "pocketsphinx", Recognizer: g}},
		wrap: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				go func() { <-r.Context().Done(); serverGone <- struct{}{} }()
				h.ServeHTTP(w, r)
			})
		},
	})
	body, ct := form(t, field{"model", "whisper-1"}, field{"file", string(sentence(t))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", f.srv.URL+"/v1/audio/transcriptions", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key1)
		req.Header.Set("Content-Type", ct)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			err = errors.New("got an answer: " + res.Status)
		}
		done <- err
	}()
	<-g.entered // the job is being recognized
	id := waitListed(t, f)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
	<-serverGone // the handler's request context has ended: it stops waiting
	close(g.open)
	tr := waitGet(t, f, id, func(tr *transcribe.Transcript) bool { return tr.IsDeleted })
	if tr.Status != transcribe.StatusCompleted {
		t.Errorf("status %s, error %v: the job was stopped", tr.Status, deref(tr.Error))
	}
	f.expectNothingKept(t)
}

// TestTimeout: past Config.Timeout the client gets 504; the transcript of
// a job that never ran (no workers) is deleted by Close.
func TestTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{workers: -1, handler: func(c *openaiapi.Config) { c.Timeout = 100 * time.Millisecond }})
	r := f.transcribe(t, field{"model", "whisper-1"}, field{"file", string(sentence(t))})
	expectError(t, r, 504, "server_error", "", "timeout", "did not finish")
	id := waitListed(t, f)
	if tr, _ := f.svc.Get(context.Background(), jobs1, id); tr.IsDeleted {
		t.Fatal("deleted before its job ended")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	tr := waitGet(t, f, id, func(tr *transcribe.Transcript) bool { return tr.IsDeleted })
	if tr.Status != transcribe.StatusError {
		t.Errorf("status %s", tr.Status)
	}
	f.expectNothingKept(t)
}

// TestClose: Close answers a waiting request with 503 and deletes its
// transcript; later requests get 503 at once.
func TestClose(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{workers: -1})
	wav := string(sentence(t))
	got := make(chan response, 1)
	go func() { got <- f.transcribe(t, field{"model", "whisper-1"}, field{"file", wav}) }()
	id := waitListed(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	expectError(t, <-got, 503, "server_error", "", "", "shutting down")
	if tr, _ := f.svc.Get(context.Background(), jobs1, id); !tr.IsDeleted {
		t.Error("the transcript of the waiting request is kept")
	}
	expectError(t, f.transcribe(t, field{"model", "whisper-1"}, field{"file", wav}), 503, "server_error", "", "", "shutting down")
	f.expectNothingKept(t)
}
