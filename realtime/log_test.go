package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// logBuf collects what a Config.Logger writes.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// captureLog makes cfg log into the returned buffer.
func captureLog(cfg *Config) *logBuf {
	lb := &logBuf{}
	cfg.Logger = slog.New(slog.NewTextHandler(lb, nil))
	return lb
}

// failingTokens is a StateStore whose AddToken fails with a message
// no client may see.
type failingTokens struct{ StateStore }

func (failingTokens) AddToken(context.Context, TokenRecord, time.Time, int) error {
	return errors.New("dial tcp 10.1.2.3:5432: secret-host refused")
}

// TestTokenStoreFailure: a session store failure while minting a token is
// a 500 with a generic message; its text goes to the log, not the client.
func TestTokenStoreFailure(t *testing.T) {
	t.Parallel()
	var logs *logBuf
	s := newTestServer(t, func(c *Config) {
		logs = captureLog(c)
		c.State = failingTokens{NewMemoryState()}
	})
	req, _ := http.NewRequest(http.MethodPost, s.ts.URL+"/v2/realtime/token", strings.NewReader(`{"expires_in": 600}`))
	req.Header.Set("Authorization", "key-a")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e ErrorMessage
	if resp.StatusCode != http.StatusInternalServerError || json.Unmarshal(body, &e) != nil || e.Error == "" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if strings.Contains(string(body), "secret-host") || strings.Contains(string(body), "10.1.2.3") {
		t.Errorf("internal error text reached the client: %s", body)
	}
	if l := logs.String(); !strings.Contains(l, "secret-host refused") || !strings.Contains(l, "level=ERROR") {
		t.Errorf("log does not have the store's error:\n%s", l)
	}
}
