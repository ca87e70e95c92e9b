package metrics_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/earshot-dev/earshot/server/metrics"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// remoteEngine is a recognizer with a health check of its own, as the
// whisper.cpp and OpenAI-compatible adapters have.
type remoteEngine struct {
	stubRecognizer
	down  atomic.Bool
	calls atomic.Int32
}

func (r *remoteEngine) Health(context.Context) error {
	r.calls.Add(1)
	if r.down.Load() {
		return errors.New("whisper.cpp: GET http://127.0.0.1:8080/health: speech engine unreachable: connect: connection refused")
	}
	return nil
}

// TestEngineHealth (issue 21.4): /readyz calls a remote engine's health
// check and names the failing engine with its reason; the answer is
// cached for a few seconds; earshot_engine_up follows it.
func TestEngineHealth(t *testing.T) {
	t.Parallel()
	eng := &remoteEngine{}
	check := metrics.EngineCheck("engine whispercpp", eng)
	h := metrics.NewHealth(metrics.HealthConfig{Checks: []metrics.Check{check}, Logger: quiet})
	m := metrics.New(metrics.Config{Logger: quiet})
	m.WatchEngine("whispercpp", check)
	up := func() string {
		var b strings.Builder
		if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(""), "earshot_engine_up"); err != nil {
			b.WriteString(err.Error())
		}
		return b.String()
	}
	if a := get(t, h, "/readyz"); a.code != 200 || a.Checks["engine whispercpp"] != "ok" {
		t.Fatalf("engine up: %+v", a)
	}
	if !strings.Contains(up(), `earshot_engine_up{engine="whispercpp"} 1`) {
		t.Errorf("gauge while up:\n%s", up())
	}
	if n := eng.calls.Load(); n != 1 {
		t.Errorf("%d health calls for a probe and a scrape within the cache time, want 1", n)
	}
	// Down: a fresh check (no cached answer) reports it.
	eng.down.Store(true)
	check = metrics.EngineCheck("engine whispercpp", eng)
	h = metrics.NewHealth(metrics.HealthConfig{Checks: []metrics.Check{check}, Logger: quiet})
	a := get(t, h, "/readyz")
	if a.code != 503 || !strings.Contains(a.Checks["engine whispercpp"], "connection refused") {
		t.Fatalf("engine down: %+v", a)
	}
	m2 := metrics.New(metrics.Config{Logger: quiet})
	m2.WatchEngine("whispercpp", check)
	if err := testutil.GatherAndCompare(m2.Registry(), strings.NewReader(""), "earshot_engine_up"); err == nil || !strings.Contains(err.Error(), `earshot_engine_up{engine="whispercpp"} 0`) {
		t.Errorf("gauge while down: %v", err)
	}
}
