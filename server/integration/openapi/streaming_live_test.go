package openapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/earshot-dev/earshot/realtime/universal"
)

// TestStreamingCloseCodesMatchUniversal checks the documented close codes
// of /v3/ws against what package universal sends: same codes, same reasons.
func TestStreamingCloseCodesMatchUniversal(t *testing.T) {
	t.Parallel()
	doc := loadSpec(t).closeCodes(t, "/v3/ws")
	for _, c := range universal.CloseCodes() {
		if d, ok := doc[c]; !ok || d.Reason != universal.Reason(c) {
			t.Errorf("close %d %q: documented as %+v", c, universal.Reason(c), d)
		}
	}
	if len(doc) != len(universal.CloseCodes()) {
		t.Errorf("%d close codes documented, universal sends %d", len(doc), len(universal.CloseCodes()))
	}
}

// v3Conn reads a /v3/ws connection, validating every message against the
// document's Streaming schemas.
type v3Conn struct {
	t    *testing.T
	s    *spec
	c    *websocket.Conn
	ctx  context.Context
	seen []string // message types in order
}

func (w *v3Conn) read() (string, map[string]any, *websocket.CloseError) {
	w.t.Helper()
	b, m, ce := readObject(w.t, w.ctx, w.c)
	if ce != nil {
		return "", nil, ce
	}
	mt, _ := m["type"].(string)
	w.s.schemaCheck(w.t, "Streaming"+mt, b)
	w.seen = append(w.seen, mt)
	return mt, m, nil
}

// send writes a client message after checking it against schema.
func (w *v3Conn) send(schema string, v any) {
	w.t.Helper()
	b, _ := json.Marshal(v)
	w.s.schemaCheck(w.t, schema, b)
	w.raw(websocket.MessageText, b)
}

func (w *v3Conn) raw(typ websocket.MessageType, b []byte) {
	w.t.Helper()
	if err := w.c.Write(w.ctx, typ, b); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

// expectClose reads until the close, checks it against the document and
// that an Error with the same code came first (but for 1000).
func (w *v3Conn) expectClose(code int) {
	w.t.Helper()
	var last map[string]any
	for {
		_, m, ce := w.read()
		if ce == nil {
			last = m
			continue
		}
		d, ok := w.s.closeCodes(w.t, "/v3/ws")[int(ce.Code)]
		if !ok || d.Reason != ce.Reason {
			w.t.Errorf("close %d %q is not documented (documented: %+v)", ce.Code, ce.Reason, d)
		}
		if int(ce.Code) != code {
			w.t.Errorf("close %d, want %d (messages %v)", ce.Code, code, w.seen)
		}
		if code != 1000 && (last == nil || last["type"] != "Error" || last["error_code"] != float64(code)) {
			w.t.Errorf("close %d not preceded by its Error message: %v", ce.Code, w.seen)
		}
		return
	}
}

func (c *checker) dialV3(ctx context.Context, target, key string, docRejects bool) *v3Conn {
	w := c.dial(ctx, target, key, docRejects)
	return &v3Conn{t: c.t, s: c.spec, c: w.c, ctx: ctx}
}

// TestStreamingResponsesMatchDocument drives GET /v3/token and GET /v3/ws
// through success and every error, validating each exchange and message
// against the document, and checks that every documented /v3 response was
// seen.
func TestStreamingResponsesMatchDocument(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	srv := newServer(t, serverOptions{})
	c := newChecker(t, srv.url, seen)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Tokens.
	tok := c.do(req{method: "GET", target: "/v3/token?expires_in_seconds=60&max_session_duration_seconds=600", key: key1, status: 200}).str(t, "token")
	c.do(req{method: "GET", target: "/v3/token?expires_in_seconds=1", key: key1, status: 200})
	for _, q := range []req{
		{target: "/v3/token", docRejects: true},
		{target: "/v3/token?expires_in_seconds=0", docRejects: true},
		{target: "/v3/token?expires_in_seconds=601", docRejects: true},
		{target: "/v3/token?expires_in_seconds=soon", docRejects: true},
		{target: "/v3/token?expires_in_seconds=60&max_session_duration_seconds=59", docRejects: true},
		{target: "/v3/token?expires_in_seconds=60&max_session_duration_seconds=10801", docRejects: true},
		{target: "/v3/token?expires_in_seconds=60&expires_in_seconds=60"},
		{target: "/v3/token?expires_in=60&expires_in_seconds=60"},
	} {
		q.method, q.key, q.status = "GET", key1, 400
		c.do(q)
	}
	c.do(req{method: "GET", target: "/v3/token?expires_in_seconds=60", status: 401, docRejects: true})
	c.do(req{method: "GET", target: "/v3/token?expires_in_seconds=60", key: "nope", status: 401})

	// A whole session with the token: Begin, turns, every client message,
	// Termination, close 1000.
	w := c.dialV3(ctx, "/v3/ws?sample_rate=16000&format_turns=true&language_detection=true&keyterms_prompt="+
		`%5B%22hello%22%5D&speech_model=u3-rt-pro&token=`+tok, "", false)
	if mt, m, _ := w.read(); mt != "Begin" || m["id"] == "" {
		t.Fatalf("first message %s %v", mt, m)
	}
	if mt, _, _ := w.read(); mt != "Warning" {
		t.Fatalf("second message %s", mt)
	}
	w.send("StreamingUpdateConfiguration", map[string]any{"type": "UpdateConfiguration", "min_turn_silence": 100, "end_of_turn_confidence_threshold": 0.5})
	w.send("StreamingKeepAlive", map[string]any{"type": "KeepAlive"})
	for range 8 {
		w.raw(websocket.MessageBinary, tone(100))
	}
	w.send("StreamingForceEndpoint", map[string]any{"type": "ForceEndpoint"})
	w.send("StreamingTerminate", map[string]any{"type": "Terminate"})
	w.expectClose(1000)
	for _, want := range []string{"SpeechStarted", "Turn", "Termination"} {
		if !slices.Contains(w.seen, want) {
			t.Errorf("session messages %v lack %s", w.seen, want)
		}
	}
	c.dialV3(ctx, "/v3/ws?sample_rate=16000&token="+tok, "", false).expectClose(1008) // used

	// Refused at the start.
	c.dialV3(ctx, "/v3/ws?sample_rate=16000", "", true).expectClose(1008)
	c.dialV3(ctx, "/v3/ws?sample_rate=16000", "nope", false).expectClose(1008)
	c.dialV3(ctx, "/v3/ws?sample_rate=16000&token="+strings.Repeat("ab", 32)+".0", "", false).expectClose(1008)
	c.dialV3(ctx, "/v3/ws", key1, true).expectClose(3006)
	c.dialV3(ctx, "/v3/ws?sample_rate=100", key1, true).expectClose(3006)
	c.dialV3(ctx, "/v3/ws?sample_rate=16000&encoding=opus", key1, true).expectClose(3006)
	c.dialV3(ctx, "/v3/ws?sample_rate=16000&format_turns=maybe", key1, true).expectClose(3006)
	c.dialV3(ctx, "/v3/ws?sample_rate=16000&keyterms_prompt=hello", key1, true).expectClose(3006)

	// Ended by a bad message.
	for _, e := range []struct {
		typ  websocket.MessageType
		msg  []byte
		code int
	}{
		{websocket.MessageText, []byte("not json"), 3006},
		{websocket.MessageText, []byte(`{"type":"Dance"}`), 3006},
		{websocket.MessageText, []byte(`{"type":"UpdateConfiguration","max_turn_silence":20000}`), 3006},
		{websocket.MessageBinary, tone(1100), 3007},
	} {
		w := c.dialV3(ctx, "/v3/ws?sample_rate=16000", key1, false)
		w.read()
		w.raw(e.typ, e.msg)
		w.expectClose(e.code)
	}

	// Handshakes the WebSocket library refuses over HTTP (text/plain).
	upgrade := func(version string) http.Header {
		return http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {version},
			"Sec-Websocket-Key": {base64.StdEncoding.EncodeToString([]byte("0123456789abcdef"))}}
	}
	c.do(req{method: "GET", target: "/v3/ws?sample_rate=16000", key: key1, status: 426, docRejects: true})
	c.do(req{method: "GET", target: "/v3/ws?sample_rate=16000", key: key1, header: upgrade("12"), status: 400, docRejects: true})
	h := upgrade("13")
	h.Set("Origin", "https://elsewhere.earshot.invalid")
	c.do(req{method: "GET", target: "/v3/ws?sample_rate=16000", key: key1, header: h, status: 403})

	// Rate limited: 429 with Retry-After.
	limited := newServer(t, serverOptions{rateLimit: 0.001, rateBurst: 1, authFailures: 0.001})
	lc := newChecker(t, limited.url, seen)
	lc.do(req{method: "GET", target: "/v3/token?expires_in_seconds=60", key: key1, status: 200}) // spends the burst
	r := lc.do(req{method: "GET", target: "/v3/token?expires_in_seconds=60", key: key1, status: 429})
	if n, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("429 Retry-After %q", r.header.Get("Retry-After"))
	}

	exempt := map[string]string{"GET /v3/token 500": "only when the system's random source fails or the session store is down"}
	for path, item := range c.spec.model.Paths.PathItems.FromOldest() {
		if !strings.HasPrefix(path, "/v3/") {
			continue
		}
		for method, op := range item.GetOperations().FromOldest() {
			for code := range op.Responses.Codes.KeysFromOldest() {
				k := strings.ToUpper(method) + " " + path + " " + code
				if !seen[k] && exempt[k] == "" {
					t.Errorf("documented but never seen: %s", k)
				}
			}
		}
	}
}
