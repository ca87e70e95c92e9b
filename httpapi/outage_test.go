package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Fault modes of faultyStore.
const (
	healthy = iota
	cutOff  // every call fails as a cut database connection does (io.ErrUnexpectedEOF)
	stalled // every call waits until its context ends
	lostAck // Create commits, then fails as if the answer was lost
)

// faultyStore is a memory.Store whose request-path calls (Get, Create,
// CreateUpload, GetUpload, List) fail the way a database outage makes them
// fail, switched by mode. The worker's calls (ClaimJob, Update, ...) are
// left alone.
type faultyStore struct {
	*memory.Store
	mode  atomic.Int32
	calls atomic.Int32
}

func (s *faultyStore) fault(ctx context.Context) error {
	s.calls.Add(1)
	switch s.mode.Load() {
	case cutOff:
		return io.ErrUnexpectedEOF
	case stalled:
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (s *faultyStore) Get(ctx context.Context, id string) (*driver.Record, error) {
	if err := s.fault(ctx); err != nil {
		return nil, err
	}
	return s.Store.Get(ctx, id)
}

func (s *faultyStore) List(ctx context.Context, q driver.ListQuery) ([]*driver.Record, error) {
	if err := s.fault(ctx); err != nil {
		return nil, err
	}
	return s.Store.List(ctx, q)
}

func (s *faultyStore) Create(ctx context.Context, r *driver.Record) error {
	if s.mode.Load() == lostAck {
		if err := s.Store.Create(ctx, r); err != nil {
			return err
		}
		return io.ErrUnexpectedEOF
	}
	if err := s.fault(ctx); err != nil {
		return err
	}
	return s.Store.Create(ctx, r)
}

func (s *faultyStore) CreateUpload(ctx context.Context, u *driver.Upload) error {
	if err := s.fault(ctx); err != nil {
		return err
	}
	return s.Store.CreateUpload(ctx, u)
}

func faultyFixture(t *testing.T, mutate ...func(*httpapi.Config)) (*fixture, *faultyStore, *syncBuffer) {
	t.Helper()
	store := &faultyStore{Store: memory.New()}
	logs := &syncBuffer{}
	mutate = append([]func(*httpapi.Config){func(c *httpapi.Config) { c.Logger = slog.New(slog.NewTextHandler(logs, nil)) }}, mutate...)
	f := newFixtureWith(t, func(c *transcribe.Config) { c.Store = store }, mutate...)
	return f, store, logs
}

func expectOutage(t *testing.T, r resp, contains string) {
	t.Helper()
	expectError(t, r, http.StatusServiceUnavailable, contains)
	if r.header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}
}

// TestStoreFailuresAre503: a cut database connection (io.ErrUnexpectedEOF
// from the driver) is 503 with a reason and Retry-After on GETs, creates
// and uploads alike, with its cause in the log; the same error type from
// a truncated request body is still the client's 400.
func TestStoreFailuresAre503(t *testing.T) {
	t.Parallel()
	f, store, logs := faultyFixture(t)
	up := f.do(t, "POST", "/v2/upload", "k1", bytes.NewReader(f.wav))
	if up.status != 200 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	sub := f.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{"audio_url":"`+up.json(t)["upload_url"].(string)+`"}`))
	if sub.status != 200 {
		t.Fatalf("submit: %d %s", sub.status, sub.body)
	}
	id := sub.json(t)["id"].(string)

	store.mode.Store(cutOff)
	expectOutage(t, f.do(t, "GET", "/v2/transcript/"+id, "k1", nil), "storage is not answering")
	expectOutage(t, f.do(t, "GET", "/v2/transcript?limit=2", "k1", nil), "storage is not answering")
	expectOutage(t, f.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{"audio_url":"https://example.com/a.wav"}`)), "storage is not answering")
	expectOutage(t, f.do(t, "POST", "/v2/upload", "k1", bytes.NewReader(f.wav)), "storage is not answering")
	if !strings.Contains(logs.String(), "unexpected EOF") || !strings.Contains(logs.String(), "status=503") {
		t.Errorf("the cause is not logged:\n%s", logs.String())
	}
	// A truncated body is the request's fault, outage or not.
	expectError(t, f.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{"audio_url":`)), 400, "truncated JSON")
	store.mode.Store(healthy)
	if r := f.do(t, "GET", "/v2/transcript/"+id, "k1", nil); r.status != 200 {
		t.Fatalf("after the outage: %d %s", r.status, r.body)
	}
}

// TestStoreTimeout: a stalled store makes requests answer 503 within
// StoreTimeout, not wait for the stall; an upload that streams for longer
// than StoreTimeout is not cut off (the clock stops while a body is read).
func TestStoreTimeout(t *testing.T) {
	t.Parallel()
	const bound = 300 * time.Millisecond
	f, store, _ := faultyFixture(t, func(c *httpapi.Config) { c.StoreTimeout = bound })
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < 4; i++ {
			time.Sleep(bound / 2)
			pw.Write(f.wav[i*len(f.wav)/4 : (i+1)*len(f.wav)/4])
		}
		pw.Close()
	}()
	start := time.Now()
	if up := f.do(t, "POST", "/v2/upload", "k1", pr); up.status != 200 {
		t.Fatalf("a slow upload (%s): %d %s", time.Since(start), up.status, up.body)
	}
	if took := time.Since(start); took < 2*bound {
		t.Fatalf("the upload took %s; the test needs longer than 2×%s", took, bound)
	}
	store.mode.Store(stalled)
	for _, req := range []struct{ method, path, body string }{
		{"GET", "/v2/transcript/0b8f5d1e-3c5e-4b47-9d8e-4c1f3f0a2b11", ""},
		{"POST", "/v2/transcript", `{"audio_url":"https://example.com/a.wav"}`},
		{"POST", "/v2/upload", "RIFF"},
	} {
		var body io.Reader
		if req.body != "" {
			body = strings.NewReader(req.body)
		}
		start := time.Now()
		r := f.do(t, req.method, req.path, "k1", body)
		took := time.Since(start)
		expectOutage(t, r, "did not answer within 300ms")
		if took > bound+time.Second {
			t.Errorf("%s %s took %s with a %s bound", req.method, req.path, took, bound)
		}
	}
}
