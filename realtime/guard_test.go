package realtime

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/internal/httpguard"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

func newGuard(t *testing.T, cfg httpguard.Config) *httpguard.Guard {
	t.Helper()
	g, err := httpguard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGuardCountsFailedAuth: wrong keys and tokens on the token endpoint
// and the WebSocket spend one failed-auth budget per address; over it
// the token endpoint answers 429 with Retry-After and the WebSocket
// closes with 1013 before the credential is looked at, while a key that
// authenticated from the address before keeps working.
func TestGuardCountsFailedAuth(t *testing.T) {
	t.Parallel()
	g := newGuard(t, httpguard.Config{AuthFailureRate: 0.001, AuthFailureBurst: 3, RateLimit: -1})
	s := newTestServer(t, func(c *Config) { c.Guard = g })
	// key-a is used (and so known good) before the attack.
	s.token("key-a", 60)
	if code, body := s.post("wrong-key", `{"expires_in":60}`); code != http.StatusUnauthorized {
		t.Fatalf("wrong key: %d %s", code, body)
	}
	expectClose(t, s.dial("/v2/realtime/ws", nil, "wrong-key"), CloseNotAuthorized)
	expectClose(t, s.dial("/v2/realtime/ws", url.Values{"token": {"not-a-token"}}, ""), CloseNotAuthorized)
	// The budget of 3 is spent across both endpoints.
	req, _ := http.NewRequest("POST", s.ts.URL+"/v2/realtime/token", strings.NewReader(`{"expires_in":60}`))
	req.Header.Set("Authorization", "wrong-key-2")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("token endpoint over the limit: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if text := expectClose(t, s.dial("/v2/realtime/ws", nil, "wrong-key"), CloseTryAgainLater); !strings.Contains(text, "failed authentications") {
		t.Errorf("WebSocket over the limit: %q", text)
	}
	// A key not seen from this address waits like the wrong ones (no
	// oracle), the known one works on both endpoints.
	expectClose(t, s.dial("/v2/realtime/ws", nil, "key-b"), CloseTryAgainLater)
	if code, body := s.post("key-b", `{"expires_in":60}`); code != http.StatusTooManyRequests {
		t.Errorf("unknown good key during the lockout: %d %s", code, body)
	}
	s.token("key-a", 60)
	c, _ := begin(t, s, "key-a", nil)
	send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
	expectCloseAfterMessages(t, c)
}

// TestGuardProjectRate: each WebSocket connection spends a request of
// its project's budget (the one the other front ends spend too); over
// it, 1013 with the reason.
func TestGuardProjectRate(t *testing.T) {
	t.Parallel()
	g := newGuard(t, httpguard.Config{RateLimit: 0.001, RateBurst: 2})
	s := newTestServer(t, func(c *Config) { c.Guard = g })
	for i := 0; i < 2; i++ {
		c, _ := begin(t, s, "key-a", nil)
		send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
		expectCloseAfterMessages(t, c)
	}
	if text := expectClose(t, s.dial("/v2/realtime/ws", nil, "key-a"), CloseTryAgainLater); !strings.Contains(text, "rate limit of this project") {
		t.Errorf("over the project's budget: %q", text)
	}
	// Another project has its own budget.
	c, _ := begin(t, s, "key-b", nil)
	send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
	expectCloseAfterMessages(t, c)
}

// TestProjectShare: with ProjectShare 0.5 of a capacity of 4, one project
// holds at most 2 sessions (4102 with the reason beyond), which leaves
// the other 2 to another project; a project alone is capped the same.
func TestProjectShare(t *testing.T) {
	t.Parallel()
	a := newTestAdmission(t, newFakeClock(), LoadAdmissionConfig{Cores: 64, MaxSessions: 4})
	s := newTestServer(t, func(c *Config) { c.Admission = a; c.ProjectShare = 0.5 })
	var conns []*websocket.Conn
	for i := 0; i < 2; i++ {
		c, _ := begin(t, s, "key-a", nil)
		conns = append(conns, c)
	}
	if text := expectClose(t, s.dial("/v2/realtime/ws", nil, "key-a2"), CloseTooManyStreams); !strings.Contains(text, "share") {
		t.Errorf("third session of project a: %q", text)
	}
	for i := 0; i < 2; i++ {
		c, _ := begin(t, s, "key-b", nil)
		conns = append(conns, c)
	}
	// The server is full now: admission refuses anyone.
	expectClose(t, s.dial("/v2/realtime/ws", nil, "key-b"), CloseTooManyStreams)
	for _, c := range conns {
		send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
		expectCloseAfterMessages(t, c)
	}
	if _, err := NewHandler(Config{Recognizer: &streamtest.FakeRecognizer{}, Authenticate: authKeys, ProjectShare: 1.5}); err == nil || !strings.Contains(err.Error(), "ProjectShare") {
		t.Errorf("ProjectShare 1.5: %v", err)
	}
}
