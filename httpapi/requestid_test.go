package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/transcribe"
)

// requests records Config.OnRequest calls.
type requests struct {
	mu   sync.Mutex
	seen []httpapi.RequestInfo
}

func (r *requests) on(i httpapi.RequestInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, i)
}

// last waits for the request with id (OnRequest runs after the handler
// returns, which may be just after the client read the response).
func (r *requests) last(t *testing.T, id string) httpapi.RequestInfo {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		for _, i := range r.seen {
			if i.RequestID == id {
				r.mu.Unlock()
				return i
			}
		}
		r.mu.Unlock()
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no OnRequest call for request %s", id)
	return httpapi.RequestInfo{}
}

func TestRequestIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, c := range []struct {
		name, sent string
		kept       bool
	}{
		{"none", "", false},
		{"uuid", "3f2b8c1e-5d4a-4b7e-9c2d-1a2b3c4d5e6f", true},
		{"trace id", "Root=1-67891233-abcdef012345678912345678:span/7+x_y.z", true},
		{"longest", strings.Repeat("a", httpapi.MaxRequestIDLength), true},
		{"too long", strings.Repeat("a", httpapi.MaxRequestIDLength+1), false},
		{"space", "a b", false},
		{"quote", `a"b`, false},
		{"log injection", "a\tlevel=ERROR", false},
		{"non-ASCII", "idé", false},
	} {
		req, _ := http.NewRequest("GET", f.srv.URL+"/v2/transcript", nil)
		req.Header.Set("Authorization", "k1")
		if c.sent != "" {
			req.Header.Set(httpapi.RequestIDHeader, c.sent)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := res.Header.Get(httpapi.RequestIDHeader)
		if c.kept && got != c.sent {
			t.Errorf("%s: response id %q, want the request's %q", c.name, got, c.sent)
		}
		if !c.kept && (got == c.sent || uuid.Validate(got) != nil) {
			t.Errorf("%s: response id %q, want a new UUID", c.name, got)
		}
	}
	// Errors (401 before the body is read) carry an id too, and two
	// requests never share one.
	a, b := f.do(t, "GET", "/v2/transcript", "", nil), f.do(t, "GET", "/v2/transcript", "", nil)
	ida, idb := a.header.Get(httpapi.RequestIDHeader), b.header.Get(httpapi.RequestIDHeader)
	if a.status != 401 || ida == "" || ida == idb {
		t.Errorf("401 responses: status %d ids %q %q", a.status, ida, idb)
	}
}

// TestWithRequestIDOnce: a mux wrapped in WithRequestID gives handlers
// beside the API ids, and the API keeps the id it was given.
func TestWithRequestIDOnce(t *testing.T) {
	t.Parallel()
	var seen requests
	f := newFixture(t, func(c *httpapi.Config) { c.OnRequest = seen.on })
	mux := http.NewServeMux()
	var beside string
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { beside = httpapi.RequestID(r.Context()) })
	mux.Handle("/", f.api)
	srv := httptest.NewServer(httpapi.WithRequestID(mux))
	defer srv.Close()
	for _, path := range []string{"/health", "/v2/transcript"} {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "k1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		id := res.Header.Values(httpapi.RequestIDHeader)
		if len(id) != 1 || uuid.Validate(id[0]) != nil {
			t.Fatalf("%s: X-Request-Id %q, want one UUID", path, id)
		}
		if path == "/health" && beside != id[0] {
			t.Errorf("handler beside the API saw id %q, response has %q", beside, id[0])
		}
		if path != "/health" {
			if got := seen.last(t, id[0]); got.Route != "/v2/transcript" {
				t.Errorf("OnRequest %+v", got)
			}
		}
	}
}

// TestOnRequest: every request is reported once with its mux route (never
// the raw path), status, body size and id.
func TestOnRequest(t *testing.T) {
	t.Parallel()
	var seen requests
	f := newFixture(t, func(c *httpapi.Config) {
		c.OnRequest = seen.on
		c.Realtime = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			c.Close(websocket.StatusNormalClosure, "")
		})
	})
	id := f.completed(t, "k1")
	missing := uuid.NewString()
	for _, c := range []struct {
		method, path, key string
		route             string
		status            int
	}{
		{"GET", "/v2/transcript/" + id, "k1", "/v2/transcript/{id}", 200},
		{"GET", "/v2/transcript/" + missing, "k1", "/v2/transcript/{id}", 404},
		{"GET", "/v2/transcript/" + id + "/srt", "k1", "/v2/transcript/{id}/{format}", 200},
		{"GET", "/v2/transcript/" + id + "/sentences", "k1", "/v2/transcript/{id}/sentences", 200},
		{"GET", "/v2/transcript?limit=2", "k1", "/v2/transcript", 200},
		{"DELETE", "/v2/transcript/" + id, "", "/v2/transcript/{id}", 401},
		{"PUT", "/v2/transcript", "k1", "/v2/transcript", 405},
		{"GET", "/v2/no/such/" + missing, "k1", "/", 404},
		{"GET", "/v2/redacted-audio/" + id + "/bad-signature", "", "/v2/redacted-audio/{id}/{sig}", 404},
	} {
		r := f.do(t, c.method, c.path, c.key, nil)
		rid := r.header.Get(httpapi.RequestIDHeader)
		got := seen.last(t, rid)
		if got.Method != c.method || got.Route != c.route || got.Path != strings.Split(c.path, "?")[0] || got.Status != c.status || r.status != c.status ||
			got.Written != int64(len(r.body)) || got.Duration <= 0 {
			t.Errorf("%s %s: OnRequest %+v (response %d, %d bytes); want route %q status %d", c.method, c.path, got, r.status, len(r.body), c.route, c.status)
		}
	}
	// A WebSocket upgrade goes through the recording writer (hijacked
	// through Unwrap) and is reported as 101 on its route.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(f.srv.URL, "http")+"/v2/realtime/ws", nil)
	if err != nil {
		t.Fatalf("WebSocket through OnRequest's writer: %v", err)
	}
	conn.CloseNow()
	if got := seen.last(t, res.Header.Get(httpapi.RequestIDHeader)); got.Route != "/v2/realtime/ws" || got.Status != http.StatusSwitchingProtocols {
		t.Errorf("upgrade: %+v", got)
	}
	// Every request was reported exactly once.
	seen.mu.Lock()
	defer seen.mu.Unlock()
	ids := map[string]int{}
	for _, i := range seen.seen {
		ids[i.RequestID]++
		if ids[i.RequestID] > 1 {
			t.Errorf("request %s reported twice", i.RequestID)
		}
	}
}

// TestOnRequestKeepsReadDeadlines: the recording writer lets the upload's
// idle read deadline through (http.ResponseController via Unwrap), so a
// stalled upload is still cut off.
func TestOnRequestKeepsReadDeadlines(t *testing.T) {
	t.Parallel()
	var seen requests
	f := newFixture(t, func(c *httpapi.Config) { c.OnRequest = seen.on; c.BodyIdleTimeout = 300 * time.Millisecond })
	conn, err := net.Dial("tcp", f.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v2/upload HTTP/1.1\r\nHost: x\r\nAuthorization: k1\r\nX-Request-Id: stalled-1\r\nContent-Length: 100000\r\n\r\nRIFF")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled upload: %v", err)
	}
	res.Body.Close()
	if got := seen.last(t, "stalled-1"); res.StatusCode != 422 || got.Status != 422 || got.Route != "/v2/upload" {
		t.Errorf("stalled upload: response %d, OnRequest %+v", res.StatusCode, got)
	}
}

// TestLogHandlerRequestID: the Service's log line for a submitted job
// carries the id of the request that submitted it (LogHandler reads it
// from the context the API hands the Service), which ties the request's
// id to the job's.
func TestLogHandlerRequestID(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	log := slog.New(httpapi.LogHandler(slog.NewJSONHandler(&buf, nil)))
	f := newFixtureWith(t, func(c *transcribe.Config) { c.Logger = log }, func(c *httpapi.Config) { c.Logger = log })
	up := f.do(t, "POST", "/v2/upload", "k1", bytes.NewReader(f.wav))
	u := up.json(t)["upload_url"].(string)
	req, _ := http.NewRequest("POST", f.srv.URL+"/v2/transcript", strings.NewReader(`{"audio_url":"`+u+`"}`))
	req.Header.Set("Authorization", "k1")
	req.Header.Set(httpapi.RequestIDHeader, "submit-request-42")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct{ ID string }
	json.NewDecoder(res.Body).Decode(&tr)
	res.Body.Close()
	if tr.ID == "" || res.Header.Get(httpapi.RequestIDHeader) != "submit-request-42" {
		t.Fatalf("submit: %d, id %q, request id %q", res.StatusCode, tr.ID, res.Header.Get(httpapi.RequestIDHeader))
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["msg"] == "transcript queued" {
			found = true
			if rec["id"] != tr.ID || rec["request_id"] != "submit-request-42" {
				t.Errorf("queued line %v: want id %s and request_id submit-request-42", rec, tr.ID)
			}
		}
	}
	if !found {
		t.Fatalf("no 'transcript queued' line in:\n%s", buf.String())
	}
	// Records logged without a request context get no request_id, and
	// attributes and groups added later keep the wrapper.
	buf.Reset()
	log.With("a", 1).WithGroup("g").InfoContext(httpapi.ContextWithRequestID(context.Background(), "r-1"), "grouped", "b", 2)
	log.Info("plain")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"request_id":"r-1"`) || strings.Contains(lines[1], "request_id") {
		t.Errorf("log lines:\n%s", buf.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// FuzzValidRequestID: an accepted id is printable ASCII without spaces or
// quotes, of bounded length, and so is safe to echo in a header and log.
func FuzzValidRequestID(f *testing.F) {
	for _, s := range []string{"", "abc", "a b", "3f2b8c1e-5d4a-4b7e-9c2d-1a2b3c4d5e6f", "x\r\nSet-Cookie: a=b", strings.Repeat("z", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !httpapi.ValidRequestID(s) {
			return
		}
		if len(s) == 0 || len(s) > httpapi.MaxRequestIDLength {
			t.Fatalf("accepted length %d", len(s))
		}
		for _, c := range []byte(s) {
			if c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == ',' || c == ';' {
				t.Fatalf("accepted %q with byte %q", s, c)
			}
		}
	})
}
