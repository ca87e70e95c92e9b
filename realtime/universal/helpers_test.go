package universal

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

// The fake recognizer, clock and PCM builders of these tests are
// realtime/realtimetest/streamtest's, shared with the v2 realtime package.

func newFakeClock() *streamtest.Clock {
	return streamtest.NewClock(time.Date(2026, 11, 4, 14, 14, 36, 0, time.UTC))
}

// authKeys accepts "key-a" (project a) and "key-b" (project b).
func authKeys(r *http.Request) (string, bool) {
	switch headerKey(r) {
	case "key-a":
		return "a", true
	case "key-b":
		return "b", true
	}
	return "", false
}

// testServer serves /v3/ws and /v3/token over h.
func testServer(t *testing.T, cfg Config) (*Handler, *httptest.Server) {
	t.Helper()
	if cfg.Authenticate == nil {
		cfg.Authenticate = authKeys
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h, err := NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/v3/ws", h)
	mux.Handle("/v3/token", h.TokenHandler())
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return h, ts
}

// client is a raw WebSocket client of /v3/ws.
type client struct {
	t *testing.T
	c *websocket.Conn
}

func dial(t *testing.T, ts *httptest.Server, query, key string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", key)
	}
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/v3/ws?" + query
	c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &client{t: t, c: c}
}

// msg is any server message.
type msg map[string]any

func (m msg) typ() string { s, _ := m["type"].(string); return s }

// read returns the next message, or nil and the close error.
func (c *client) read() (msg, error) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := c.c.Read(ctx)
	if err != nil {
		return nil, err
	}
	var m msg
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("server sent %q: %v", b, err)
	}
	return m, nil
}

// until reads messages until one of type typ, failing on a close.
func (c *client) until(typ string) (msg, []msg) {
	c.t.Helper()
	var seen []msg
	for {
		m, err := c.read()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v (after %v)", typ, err, seen)
		}
		seen = append(seen, m)
		if m.typ() == typ {
			return m, seen
		}
	}
}

// closed reads until the close and returns its code, the messages before
// it and the close reason.
func (c *client) closed() (int, []msg, string) {
	c.t.Helper()
	var seen []msg
	for {
		m, err := c.read()
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) {
				c.t.Fatalf("read: %v (after %v)", err, seen)
			}
			return int(ce.Code), seen, ce.Reason
		}
		seen = append(seen, m)
	}
}

func (c *client) send(b []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.c.Write(ctx, websocket.MessageBinary, b); err != nil {
		c.t.Fatalf("write audio: %v", err)
	}
}

func (c *client) text(s string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.c.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		c.t.Fatalf("write text: %v", err)
	}
}
