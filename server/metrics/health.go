package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/internal/wire"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Check is one readiness check: Func returns nil when its part of the
// server is ready, or an error whose message is the reason it is not.
type Check struct {
	Name string
	Func func(ctx context.Context) error
}

// HealthConfig configures a Health. Zero values mean the documented
// default.
type HealthConfig struct {
	// Checks run on every /readyz request, concurrently. Default: none
	// (always ready).
	Checks []Check
	// Timeout bounds each /readyz request's checks; a check still running
	// then fails with "no answer within <Timeout>". Default 5s.
	Timeout time.Duration
	// Logger receives a line when a check starts or stops failing.
	// Default slog.Default().
	Logger *slog.Logger
}

// Health serves /healthz (liveness) and /readyz (readiness). Safe for
// concurrent use.
type Health struct {
	cfg HealthConfig

	mu     sync.Mutex
	failed map[string]string // check name -> last reason, while failing
}

// NewHealth returns a Health running cfg's checks.
func NewHealth(cfg HealthConfig) *Health {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Health{cfg: cfg, failed: map[string]string{}}
}

// healthBody is the JSON answer of both endpoints.
type healthBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks,omitempty"`
}

// Live serves /healthz: 200 {"status":"ok"} whenever the process can
// answer HTTP at all. It runs no checks: a dependency that is down makes
// the server unready, not dead, and restarting it would not help.
func (h *Health) Live() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		wire.WriteJSON(w, http.StatusOK, healthBody{Status: "ok"})
	})
}

// Ready serves /readyz: every check runs (concurrently, within Timeout);
// 200 {"status":"ready","checks":{name:"ok",...}} when all pass, else 503
// {"status":"not ready","checks":{name: reason or "ok",...}}.
func (h *Health) Ready() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		errs := h.Check(r.Context())
		body := healthBody{Status: "ready", Checks: map[string]string{}}
		code := http.StatusOK
		for _, c := range h.cfg.Checks {
			if err := errs[c.Name]; err != nil {
				body.Status, code = "not ready", http.StatusServiceUnavailable
				body.Checks[c.Name] = err.Error()
			} else {
				body.Checks[c.Name] = "ok"
			}
		}
		w.Header().Set("Cache-Control", "no-store")
		wire.WriteJSON(w, code, body)
	})
}

// Check runs every check concurrently within Timeout and returns the
// failures by check name (empty when ready).
func (h *Health) Check(ctx context.Context) map[string]error {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	type result struct {
		name string
		err  error
	}
	results := make(chan result, len(h.cfg.Checks))
	for _, c := range h.cfg.Checks {
		go func() {
			defer func() {
				if v := recover(); v != nil {
					results <- result{c.Name, fmt.Errorf("check panicked: %v", v)}
				}
			}()
			results <- result{c.Name, c.Func(ctx)}
		}()
	}
	out := map[string]error{}
	pending := map[string]bool{}
	for _, c := range h.cfg.Checks {
		pending[c.Name] = true
	}
	for len(pending) > 0 {
		select {
		case r := <-results:
			delete(pending, r.name)
			if r.err != nil {
				out[r.name] = r.err
			}
		case <-ctx.Done():
			for name := range pending {
				out[name] = fmt.Errorf("no answer within %v", h.cfg.Timeout)
			}
			pending = nil
		}
	}
	h.logChanges(out)
	return out
}

// logChanges logs checks that started or stopped failing.
func (h *Health) logChanges(failed map[string]error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	names := make([]string, 0, len(h.cfg.Checks))
	for _, c := range h.cfg.Checks {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	for _, name := range names {
		err, was := failed[name], h.failed[name]
		switch {
		case err != nil && was != err.Error():
			h.cfg.Logger.Warn("not ready", "check", name, "reason", err.Error())
			h.failed[name] = err.Error()
		case err == nil && was != "":
			h.cfg.Logger.Info("ready again", "check", name)
			delete(h.failed, name)
		}
	}
}

// pinger is a store with a cheap reachability check of its own.
type pinger interface {
	Ping(ctx context.Context) error
}

// StoreCheck checks that store answers: its Ping when it has one,
// otherwise a Get of an id no record has, which a reachable store answers
// with ErrNotFound (a closed store, a lost connection or an unreadable
// database file give their error).
func StoreCheck(name string, store driver.Store) Check {
	return Check{Name: name, Func: func(ctx context.Context) error {
		if p, ok := store.(pinger); ok {
			return p.Ping(ctx)
		}
		_, err := store.Get(ctx, "readyz-"+uuid.NewString())
		if err == nil || errors.Is(err, transcribe.ErrNotFound) {
			return nil
		}
		return err
	}}
}

// dirBlobStore is a blob store that keeps files under a directory
// (storage/localfs).
type dirBlobStore interface {
	Dir() string
}

// BlobCheck checks that blobs answers: an Open of a key no blob has must
// give ErrNotFound. For a store that keeps files under a directory
// (storage/localfs), whose Open reports a missing directory as a missing
// blob, the directory must also exist and be listable.
func BlobCheck(name string, blobs driver.BlobStore) Check {
	return Check{Name: name, Func: func(ctx context.Context) error {
		if d, ok := blobs.(dirBlobStore); ok {
			if err := listable(d.Dir()); err != nil {
				return err
			}
		}
		rc, err := blobs.Open(ctx, "readyz/"+uuid.NewString())
		if err == nil {
			rc.Close()
			return nil
		}
		if errors.Is(err, transcribe.ErrNotFound) {
			return nil
		}
		return err
	}}
}

// listable checks that dir is a directory this process can read.
func listable(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("blob directory: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("blob directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("blob directory %s is not a directory", dir)
	}
	if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("blob directory: %w", err)
	}
	return nil
}

// warmer is a recognizer that can load its model on demand
// (pocketsphinx's Warm makes a decoder unless one is idle).
type warmer interface {
	Warm(ctx context.Context, n int) error
}

// EngineCheck checks that the speech engine rec is loaded: it must report
// a sample rate (Features answers), and a recognizer with Warm
// (pocketsphinx, isolated engines) must get a decoder: an idle one, or a
// new one when the pool has room (an isolated engine starts a worker
// process, so regular checks keep one alive). The Warm runs in the
// background, one at a time, and outlives the check that started it (for
// up to WarmTimeout), so a model that takes longer to load than a probe
// waits still finishes loading and a later probe finds it ready. While it
// runs, the engine is "still loading" until a Warm has once succeeded;
// after that a Warm that is still waiting means every decoder is busy,
// which is loaded, not unready. A wrapper with Unwrap()
// transcribe.Recognizer (InstrumentPool's) is looked through. A remote
// engine with a health check of its own (Health(ctx) error: whispercpp's
// GET /health, openai's GET of its endpoint) must pass it; its answer is
// reused for EngineHealthTTL, so frequent probes and scrapes do not load
// the engine.
func EngineCheck(name string, rec transcribe.Recognizer) Check {
	for {
		u, ok := rec.(interface{ Unwrap() transcribe.Recognizer })
		if !ok {
			break
		}
		rec = u.Unwrap()
	}
	w := &warming{}
	var hc *cachedHealth
	if h, ok := rec.(healther); ok {
		hc = &cachedHealth{fn: h.Health}
	}
	return Check{Name: name, Func: func(ctx context.Context) error {
		if rec.Features().SampleRate <= 0 {
			return errors.New("the engine reports no sample rate")
		}
		if hc != nil {
			if err := hc.check(ctx); err != nil {
				return err
			}
		}
		wr, ok := rec.(warmer)
		if !ok {
			return nil
		}
		run := w.start(wr)
		// Answer within half the time left, so a busy or loading engine
		// gets its reason back before the probe's deadline.
		wait := ctx
		if dl, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			wait, cancel = context.WithTimeout(ctx, time.Until(dl)/2)
			defer cancel()
		}
		select {
		case <-run.done:
			return run.err
		case <-wait.Done():
			if w.loaded.Load() {
				return nil // every decoder is busy
			}
			return errors.New("the model is still loading")
		}
	}}
}

// WarmTimeout bounds a background Warm of EngineCheck.
const WarmTimeout = 2 * time.Minute

// warming runs one Warm at a time in the background.
type warming struct {
	mu     sync.Mutex
	run    *warmRun // the Warm in flight, nil when none
	loaded atomic.Bool
}

type warmRun struct {
	done chan struct{}
	err  error // set before done closes
}

// start returns the Warm in flight, starting one if none is.
func (w *warming) start(wr warmer) *warmRun {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.run != nil {
		return w.run
	}
	run := &warmRun{done: make(chan struct{})}
	w.run = run
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), WarmTimeout)
		defer cancel()
		err := wr.Warm(ctx, 1)
		if err == nil {
			w.loaded.Store(true)
		}
		w.mu.Lock()
		run.err, w.run = err, nil
		w.mu.Unlock()
		close(run.done)
	}()
	return run
}
