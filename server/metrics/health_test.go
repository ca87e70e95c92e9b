package metrics_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/server/metrics"
	"github.com/earshot-dev/earshot/storage/localfs"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

type healthAnswer struct {
	code   int
	Status string
	Checks map[string]string
}

func get(t *testing.T, h *metrics.Health, path string) healthAnswer {
	t.Helper()
	rec := httptest.NewRecorder()
	handler := h.Ready()
	if path == "/healthz" {
		handler = h.Live()
	}
	handler.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	var a healthAnswer
	if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
		t.Fatalf("%s: body is not JSON: %q", path, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	a.code = rec.Code
	return a
}

func TestReadyz(t *testing.T) {
	t.Parallel()
	fail := errors.New("disk on fire")
	var logs syncBuffer
	broken := false
	h := metrics.NewHealth(metrics.HealthConfig{
		Timeout: 200 * time.Millisecond,
		Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
		Checks: []metrics.Check{
			{Name: "fine", Func: func(context.Context) error { return nil }},
			{Name: "flaky", Func: func(context.Context) error {
				if broken {
					return fail
				}
				return nil
			}},
		},
	})
	if a := get(t, h, "/readyz"); a.code != 200 || a.Status != "ready" || a.Checks["fine"] != "ok" || a.Checks["flaky"] != "ok" {
		t.Fatalf("all passing: %+v", a)
	}
	broken = true
	if a := get(t, h, "/readyz"); a.code != 503 || a.Status != "not ready" || a.Checks["flaky"] != "disk on fire" || a.Checks["fine"] != "ok" {
		t.Fatalf("one failing: %+v", a)
	}
	get(t, h, "/readyz") // still failing: logged once
	broken = false
	get(t, h, "/readyz")
	l := logs.String()
	if strings.Count(l, "not ready") != 1 || !strings.Contains(l, "disk on fire") || strings.Count(l, "ready again") != 1 {
		t.Errorf("state changes not logged once each:\n%s", l)
	}
	if a := get(t, h, "/healthz"); a.code != 200 || a.Status != "ok" {
		t.Errorf("/healthz: %+v", a)
	}
}

func TestReadyzHungAndPanickingChecks(t *testing.T) {
	t.Parallel()
	h := metrics.NewHealth(metrics.HealthConfig{
		Timeout: 100 * time.Millisecond,
		Logger:  slog.New(slog.DiscardHandler),
		Checks: []metrics.Check{
			{Name: "hung", Func: func(ctx context.Context) error { time.Sleep(time.Hour); return nil }},
			{Name: "panics", Func: func(context.Context) error { panic("boom") }},
		},
	})
	start := time.Now()
	a := get(t, h, "/readyz")
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("a hung check held /readyz for %v", el)
	}
	if a.code != 503 || a.Checks["hung"] != "no answer within 100ms" || !strings.Contains(a.Checks["panics"], "boom") {
		t.Fatalf("%+v", a)
	}
	// /healthz runs no checks: the process is alive.
	if a := get(t, h, "/healthz"); a.code != 200 {
		t.Errorf("/healthz with failing checks: %+v", a)
	}
}

// TestStoreCheck: a real SQLite store is reachable until it is closed.
func TestStoreCheck(t *testing.T) {
	t.Parallel()
	store, err := sqlite.Open(sqlite.Config{Path: filepath.Join(t.TempDir(), "earshot.db")})
	if err != nil {
		t.Fatal(err)
	}
	c := metrics.StoreCheck("store", store)
	if err := c.Func(context.Background()); err != nil {
		t.Fatalf("open store: %v", err)
	}
	store.Close()
	if err := c.Func(context.Background()); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("closed store: %v", err)
	}
	m := memory.New()
	if err := metrics.StoreCheck("memory", m).Func(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if err := metrics.StoreCheck("memory", m).Func(context.Background()); !errors.Is(err, memory.ErrClosed) {
		t.Fatalf("closed memory store: %v", err)
	}
	if err := metrics.StoreCheck("pinged", pingStore{m, errors.New("connection refused")}).Func(context.Background()); err == nil || err.Error() != "connection refused" {
		t.Fatalf("a store's own Ping is not used: %v", err)
	}
}

type pingStore struct {
	driver.Store
	err error
}

func (p pingStore) Ping(context.Context) error { return p.err }

// TestBlobCheck: a localfs directory that is gone, replaced by a file or
// unreadable makes the blob store unready, though its Open would call a
// missing key not found in each case.
func TestBlobCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "blobs")
	blobs, err := localfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := metrics.BlobCheck("blobs", blobs)
	if err := c.Func(ctx); err != nil {
		t.Fatalf("fresh directory: %v", err)
	}
	if _, err := blobs.Put(ctx, "uploads/x", strings.NewReader("data")); err != nil {
		t.Fatal(err)
	}
	if err := c.Func(ctx); err != nil {
		t.Fatalf("directory with blobs: %v", err)
	}
	if os.Geteuid() != 0 { // root reads any directory
		os.Chmod(dir, 0)
		err := c.Func(ctx)
		os.Chmod(dir, 0o700)
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("unreadable directory: %v", err)
		}
	}
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	if err := c.Func(ctx); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing directory: %v", err)
	}
	if err := os.WriteFile(dir, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Func(ctx); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("directory replaced by a file: %v", err)
	}
	os.Remove(dir)
	os.Rename(dir+".away", dir)
	if err := c.Func(ctx); err != nil {
		t.Errorf("directory back: %v", err)
	}
	mb := memory.NewBlobStore()
	if err := metrics.BlobCheck("memory", mb).Func(ctx); err != nil {
		t.Fatal(err)
	}
	mb.Close()
	if err := metrics.BlobCheck("memory", mb).Func(ctx); err == nil {
		t.Error("closed memory blob store is ready")
	}
}

// TestEngineCheck: the real pocketsphinx recognizer is ready once a
// decoder loads, stays ready while every decoder is busy, and is not
// ready once closed.
func TestEngineCheck(t *testing.T) {
	t.Parallel()
	rec, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		t.Fatalf("pocketsphinx (libpocketsphinx3 and pocketsphinx-en-us are needed): %v", err)
	}
	// Through InstrumentPool's wrapper, which has no Warm of its own.
	c := metrics.EngineCheck("engine pocketsphinx", metrics.New(metrics.Config{}).InstrumentPool("batch", 1, rec))
	if err := c.Func(context.Background()); err != nil {
		t.Fatalf("loaded engine: %v", err)
	}
	// Hold the only decoder with an open stream: busy, still ready.
	st, err := rec.NewStream(context.Background(), transcribe.StreamOptions{SampleRate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	err = c.Func(ctx)
	cancel()
	if err != nil {
		t.Errorf("every decoder busy: %v", err)
	}
	// A fresh check that never saw a decoder load is not ready then.
	ctx, cancel = context.WithTimeout(context.Background(), 400*time.Millisecond)
	err = metrics.EngineCheck("fresh", rec).Func(ctx)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "still loading") {
		t.Errorf("busy before any success: %v", err)
	}
	st.Close()
	rec.Close()
	if err := c.Func(context.Background()); !errors.Is(err, pocketsphinx.ErrClosed) {
		t.Errorf("closed engine: %v", err)
	}
	if err := metrics.EngineCheck("remote", &stubRecognizer{}).Func(context.Background()); err != nil {
		t.Errorf("engine without Warm: %v", err)
	}
	if err := metrics.EngineCheck("broken", &zeroRate{}).Func(context.Background()); err == nil {
		t.Error("an engine with no sample rate is ready")
	}
}

type zeroRate struct{ stubRecognizer }

func (*zeroRate) Features() transcribe.RecognizerFeatures { return transcribe.RecognizerFeatures{} }

// slowWarm takes d to warm, whatever its context says (a worker process
// loading its model).
type slowWarm struct {
	stubRecognizer
	d     time.Duration
	calls atomic.Int32
}

func (s *slowWarm) Warm(ctx context.Context, n int) error {
	s.calls.Add(1)
	time.Sleep(s.d)
	return nil
}

// TestEngineCheckSlowLoad: a model that takes longer to load than a probe
// waits is "still loading", goes on loading after the probe answered, and
// is ready for a later probe; one Warm runs at a time.
func TestEngineCheckSlowLoad(t *testing.T) {
	t.Parallel()
	rec := &slowWarm{d: 300 * time.Millisecond}
	c := metrics.EngineCheck("slow", rec)
	probe := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		return c.Func(ctx)
	}
	for range 2 {
		if err := probe(); err == nil || !strings.Contains(err.Error(), "still loading") {
			t.Fatalf("while loading: %v", err)
		}
	}
	if n := rec.calls.Load(); n != 1 {
		t.Errorf("%d Warms started while one was loading", n)
	}
	time.Sleep(400 * time.Millisecond)
	if err := probe(); err != nil {
		t.Fatalf("after the load finished: %v", err)
	}
}
