package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fakeLocalEngines is openLocalEngines with a fake in pocketsphinx's place.
func fakeLocalEngines(context.Context, *Config, *slog.Logger) (*localEngines, error) {
	return newFakeLocal(), nil
}

// startRun runs run with a fake pocketsphinx in the background and
// returns once it is ready, with a function that stops it and returns
// its error.
func startRun(t *testing.T, cfg *Config) (stop func() error) {
	t.Helper()
	prev := slog.Default() // setUp replaces it
	t.Cleanup(func() { slog.SetDefault(prev) })
	ready := make(chan string, 1)
	cfg.Ready = func(addr string) { ready <- addr }
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, fakeLocalEngines) }()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("run: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("not ready after 30s")
	}
	return func() error {
		cancel()
		return <-done
	}
}

// The assembled server, a fake in pocketsphinx's place: the main listener
// serves the web console at /console/ (and / redirects there), OpenAI's
// audio API under /v1/, the AssemblyAI API with realtime v2 and v3; the EU
// listener the EU endpoint set, with the same keys; the operations
// listener the metrics and health (not the API listener); cancelling the
// context shuts it down and frees the data directory.
func TestRunAssembly(t *testing.T) {
	cfg, err := parseWith(t, map[string]string{"EARSHOT_API_KEYS": testAPI})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Data, cfg.LogLevel, cfg.Quiet = t.TempDir(), "error", true
	cfg.Addr, cfg.EUAddr, cfg.MetricsAddr = freePort(t), freePort(t), freePort(t)
	stop := startRun(t, cfg)
	main, eu, ops := "http://"+cfg.Addr, "http://"+cfg.EUAddr, "http://"+cfg.MetricsAddr
	const key = "key-of-at-least-16-chars"
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		method, url, auth, body string
		want                    int
	}{
		{"GET", main + "/", "", "", http.StatusFound},
		{"GET", main + "/console/", "", "", http.StatusOK},
		{"GET", main + "/v2/transcript", "", "", http.StatusUnauthorized},
		{"GET", main + "/v2/transcript", key, "", http.StatusOK},
		{"GET", main + "/v1/models", "Bearer " + key, "", http.StatusOK},
		{"POST", main + "/v2/realtime/token", key, `{"expires_in":60}`, http.StatusOK},
		{"GET", main + "/v3/token?expires_in_seconds=60", key, "", http.StatusOK},
		{"GET", eu + "/v2/transcript", key, "", http.StatusOK},
		{"GET", eu + "/v2/transcript", "", "", http.StatusUnauthorized},
		{"GET", eu + "/v1/models", "Bearer " + key, "", http.StatusNotFound},
		{"GET", ops + "/metrics", "", "", http.StatusOK},
		{"GET", ops + "/healthz", "", "", http.StatusOK},
		{"GET", main + "/metrics", key, "", http.StatusNotFound},
	} {
		req, err := http.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		if tc.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d %s, want %d", tc.method, tc.url, resp.StatusCode, b, tc.want)
		}
	}
	if err := CheckDataDir(cfg.Data); !errors.Is(err, ErrDataDirInUse) {
		t.Errorf("the running server's data directory: %v, want in use", err)
	}
	if err := stop(); err != nil {
		t.Fatalf("run after cancel: %v", err)
	}
	if err := CheckDataDir(cfg.Data); err != nil {
		t.Errorf("the data directory after the shutdown: %v", err)
	}
	if _, err := http.Get(main + "/v2/transcript"); err == nil {
		t.Error("the main listener still answers after the shutdown")
	}
}

// A step that fails undoes the steps before it: the data directory is
// unlocked and the listeners bound before it are free again.
func TestRunStepFails(t *testing.T) {
	prev := slog.Default() // setUp replaces it
	t.Cleanup(func() { slog.SetDefault(prev) })
	cfg, err := parseWith(t, map[string]string{"EARSHOT_API_KEYS": testAPI})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Data, cfg.LogLevel, cfg.Quiet = t.TempDir(), "error", true
	cfg.Addr = freePort(t)
	cfg.TrustedProxies = "proxy.internal" // newAccess fails, after the listeners
	if err := run(t.Context(), cfg, fakeLocalEngines); err == nil || !strings.HasPrefix(err.Error(), "EARSHOT_TRUSTED_PROXIES: ") {
		t.Fatalf("run: %v, want the EARSHOT_TRUSTED_PROXIES error", err)
	}
	if err := CheckDataDir(cfg.Data); err != nil {
		t.Errorf("the data directory after the failed start: %v", err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		t.Fatalf("%s still bound after the failed start: %v", cfg.Addr, err)
	}
	ln.Close()
}
