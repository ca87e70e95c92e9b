package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
)

type testServer struct {
	t     *testing.T
	h     *Handler
	ts    *httptest.Server
	clock *streamtest.Clock
	rec   *streamtest.FakeRecognizer
}

func authKeys(r *http.Request) (string, bool) {
	switch r.Header.Get("Authorization") {
	case "key-a":
		return "proj-a", true
	case "key-a2":
		return "proj-a", true
	case "key-b":
		return "proj-b", true
	}
	return "", false
}

func newTestServer(t *testing.T, tweak ...func(*Config)) *testServer {
	t.Helper()
	s := &testServer{t: t, clock: newFakeClock(), rec: &streamtest.FakeRecognizer{}}
	cfg := Config{Recognizer: s.rec, Authenticate: authKeys, Now: s.clock.Now, TickInterval: 5 * time.Millisecond}
	for _, f := range tweak {
		f(&cfg)
	}
	h, err := NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	mux := http.NewServeMux()
	mux.Handle("GET /v2/realtime/ws", h)
	mux.Handle("GET /v2/realtime/ws/{session_id}", h)
	mux.Handle("/v2/realtime/token", h.TokenHandler())
	s.ts = httptest.NewServer(mux)
	t.Cleanup(func() {
		s.ts.Close()
		h.Close()
		if n := s.rec.OpenStreams(); n != 0 {
			t.Errorf("%d recognizer streams left open", n)
		}
	})
	return s
}

func (s *testServer) wsURL(path string, q url.Values) string {
	u := "ws" + strings.TrimPrefix(s.ts.URL, "http") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func (s *testServer) dial(path string, q url.Values, key string) *websocket.Conn {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hdr := http.Header{}
	if key != "" {
		hdr.Set("Authorization", key)
	}
	c, _, err := websocket.Dial(ctx, s.wsURL(path, q), &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		s.t.Fatalf("dial %s: %v", path, err)
	}
	s.t.Cleanup(func() { c.CloseNow() })
	return c
}

func (s *testServer) token(key string, expiresIn int) string {
	s.t.Helper()
	code, body := s.post(key, fmt.Sprintf(`{"expires_in":%d}`, expiresIn))
	if code != 200 {
		s.t.Fatalf("token: %d %s", code, body)
	}
	var r struct{ Token string }
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Token == "" {
		s.t.Fatalf("token body %q: %v", body, err)
	}
	return r.Token
}

func (s *testServer) post(key, body string) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.ts.URL+"/v2/realtime/token", strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("Content-Type %q", ct)
	}
	return resp.StatusCode, string(b)
}

// read returns the next server message as a map.
func read(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("binary message from server")
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("bad JSON %q: %v", b, err)
	}
	return m
}

// expectClose reads until the connection closes and checks the code. It
// returns the {"error": ...} text sent before the close.
func expectClose(t *testing.T, c *websocket.Conn, code CloseCode) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errText string
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			if got := websocket.CloseStatus(err); got != websocket.StatusCode(code) {
				t.Fatalf("closed with %v (%v), want %d", got, err, code)
			}
			var ce websocket.CloseError
			if errors.As(err, &ce) && code != CloseNormal && ce.Reason == "" {
				t.Errorf("close %d has no reason", code)
			}
			if code != CloseNormal && errText == "" {
				t.Errorf("no error message before close %d", code)
			}
			return errText
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("bad JSON %q", b)
		}
		if e, ok := m["error"].(string); ok {
			errText = e
		}
	}
}

func send(t *testing.T, c *websocket.Conn, typ websocket.MessageType, b []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, typ, b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func begin(t *testing.T, s *testServer, key string, q url.Values) (*websocket.Conn, string) {
	t.Helper()
	c := s.dial("/v2/realtime/ws", q, key)
	m := read(t, c)
	if m["message_type"] != "SessionBegins" {
		t.Fatalf("first message %v", m)
	}
	return c, m["session_id"].(string)
}

// drop closes the client side abruptly and waits until the server has
// noticed.
func drop(t *testing.T, s *testServer, c *websocket.Conn, id string) {
	t.Helper()
	c.CloseNow()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s.h.mu.Lock()
		att := s.h.sessions[id].attached
		s.h.mu.Unlock()
		if !att {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("server never noticed the dropped connection")
}

func TestHandlerHappyPathWithAPIKey(t *testing.T) {
	s := newTestServer(t)
	c, id := begin(t, s, "key-a", nil)
	if sess := s.h.Session(id); sess.Options().SampleRate != 16000 {
		t.Fatalf("default sample rate %d", sess.Options().SampleRate)
	}
	send(t, c, websocket.MessageText, []byte(`{"end_utterance_silence_threshold":300}`+"\n"))
	for _, ch := range streamtest.Chunks(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(400, 16000)), 100, 16000) {
		s.clock.Advance(100 * time.Millisecond)
		send(t, c, websocket.MessageBinary, ch)
	}
	var types []string
	var final map[string]any
	for final == nil {
		m := read(t, c)
		types = append(types, m["message_type"].(string))
		if m["message_type"] == "FinalTranscript" {
			final = m
		}
	}
	if types[0] != "PartialTranscript" {
		t.Errorf("message types %v", types)
	}
	if final["text"] != "One." || final["punctuated"] != true || final["text_formatted"] != true || final["session_id"] != id {
		t.Fatalf("final %v", final)
	}
	// audio_start/audio_end and word times are integer milliseconds.
	end, ok := final["audio_end"].(float64)
	if !ok || end != float64(int64(end)) || end < 450 || end > 550 || final["audio_start"] != 0.0 {
		t.Errorf("final times %v-%v", final["audio_start"], final["audio_end"])
	}
	for _, w := range final["words"].([]any) {
		st := w.(map[string]any)["start"].(float64)
		if st != float64(int64(st)) {
			t.Errorf("word start %v", st)
		}
	}
	send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
	info := read(t, c)
	if info["message_type"] != "SessionInformation" || info["audio_duration_seconds"] != 0.9 {
		t.Fatalf("info %v", info)
	}
	if m := read(t, c); m["message_type"] != "SessionTerminated" {
		t.Fatalf("terminated %v", m)
	}
	expectClose(t, c, CloseNormal)
	if st := s.h.Session(id).State(); st != StateTerminated {
		t.Fatalf("state %s", st)
	}
}

func TestHandlerQueryOptions(t *testing.T) {
	s := newTestServer(t)
	q := url.Values{"sample_rate": {"8000"}, "encoding": {"pcm_mulaw"}, "word_boost": {`["foo","bar baz"]`},
		"disable_partial_transcripts": {"true"}, "enable_extra_session_information": {"true"}}
	_, id := begin(t, s, "key-a", q)
	o := s.h.Session(id).Options()
	if o.SampleRate != 8000 || o.Encoding != EncodingPCMMulaw || len(o.WordBoost) != 2 || o.WordBoost[1] != "bar baz" ||
		!o.DisablePartialTranscripts || !o.EnableExtraSessionInformation || o.ProjectID != "proj-a" {
		t.Fatalf("options %+v", o)
	}
	so := s.rec.Streams()[0].Options()
	if so.SampleRate != 16000 || len(so.WordBoost) != 2 {
		t.Fatalf("stream options %+v", so)
	}
}

func TestTokenEndpoint(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.MaxTokenExpiresIn = time.Hour })
	for _, tc := range []struct {
		key, body string
		code      int
		errPart   string
	}{
		{"", `{"expires_in":60}`, 401, "Authentication"},
		{"nope", `{"expires_in":60}`, 401, "Authentication"},
		{"key-a", `{"expires_in":59}`, 400, "at least 60"},
		{"key-a", `{"expires_in":"60"}`, 400, "expires_in"},
		{"key-a", `{"expires_in":60.5}`, 400, "integer"},
		{"key-a", `{}`, 400, "required"},
		{"key-a", `not json`, 400, "JSON"},
		{"key-a", `{"expires_in":60}`, 200, ""},
		{"key-a", `{"expires_in":99999999}`, 200, ""},
	} {
		code, body := s.post(tc.key, tc.body)
		if code != tc.code || !strings.Contains(body, tc.errPart) {
			t.Errorf("%s %s: %d %s", tc.key, tc.body, code, body)
		}
		if code != 200 && !strings.HasPrefix(body, `{"error":`) {
			t.Errorf("error body %s", body)
		}
	}
	// Clamped to MaxTokenExpiresIn: a token is dead after an hour.
	tok := s.token("key-a", 99999999)
	s.clock.Advance(time.Hour + time.Second)
	c := s.dial("/v2/realtime/ws", url.Values{"token": {tok}}, "")
	if e := expectClose(t, c, CloseNotAuthorized); !strings.Contains(e, "Not Authorized") {
		t.Fatalf("error %q", e)
	}
	req, _ := http.NewRequest("GET", s.ts.URL+"/v2/realtime/token", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET token: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestTokenIsSingleSessionAndProjectBound(t *testing.T) {
	s := newTestServer(t)
	tok := s.token("key-a", 60)
	c, id := begin(t, s, "", url.Values{"token": {tok}})
	if got := s.h.Session(id).Options().ProjectID; got != "proj-a" {
		t.Fatalf("project %q", got)
	}
	// A second session with the same token is refused.
	c2 := s.dial("/v2/realtime/ws", url.Values{"token": {tok}}, "")
	expectClose(t, c2, CloseNotAuthorized)
	// The token resumes its own session.
	drop(t, s, c, id)
	c3 := s.dial("/v2/realtime/ws/"+id, url.Values{"token": {tok}}, "")
	if m := read(t, c3); m["message_type"] != "SessionResumed" || m["session_id"] != id || m["expires_at"] == "" {
		t.Fatalf("resume %v", m)
	}
	// Another project's key cannot see the session.
	drop(t, s, c3, id)
	c4 := s.dial("/v2/realtime/ws/"+id, nil, "key-b")
	expectClose(t, c4, CloseSessionNotFound)
	// Another token of the same project cannot resume it.
	other := s.token("key-a", 60)
	c5 := s.dial("/v2/realtime/ws/"+id, url.Values{"token": {other}}, "")
	expectClose(t, c5, CloseNotAuthorized)
	// The same project's API key can.
	c6 := s.dial("/v2/realtime/ws/"+id, nil, "key-a2")
	if m := read(t, c6); m["message_type"] != "SessionResumed" {
		t.Fatalf("resume %v", m)
	}
}

func TestResumeContinuesTheSession(t *testing.T) {
	s := newTestServer(t)
	c, id := begin(t, s, "key-a", url.Values{"disable_partial_transcripts": {"true"}})
	for _, ch := range streamtest.Chunks(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(200, 16000)), 100, 16000) {
		s.clock.Advance(100 * time.Millisecond)
		send(t, c, websocket.MessageBinary, ch)
	}
	// Wait until the server has consumed the audio.
	deadline := time.Now().Add(5 * time.Second)
	for s.h.Session(id).AudioDuration() < 700*time.Millisecond && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	drop(t, s, c, id)
	s.clock.Advance(10 * time.Second)
	c2 := s.dial("/v2/realtime/ws/"+id, nil, "key-a")
	if m := read(t, c2); m["message_type"] != "SessionResumed" {
		t.Fatalf("resume %v", m)
	}
	for _, ch := range streamtest.Chunks(streamtest.Cat(streamtest.Tone(500, 16000), streamtest.Silence(800, 16000)), 100, 16000) {
		s.clock.Advance(100 * time.Millisecond)
		send(t, c2, websocket.MessageBinary, ch)
	}
	m := read(t, c2)
	// The utterance spans both connections; times continue.
	if m["message_type"] != "FinalTranscript" || m["text"] != "One two." {
		t.Fatalf("final %v", m)
	}
	words := m["words"].([]any)
	if start := words[1].(map[string]any)["start"].(float64); start != 700 {
		t.Fatalf("second word starts at %v, want 700", start)
	}
	send(t, c2, websocket.MessageText, []byte(`{"terminate_session":true}`))
	if m := read(t, c2); m["audio_duration_seconds"] != 2.0 {
		t.Fatalf("info %v", m)
	}
	read(t, c2)
	expectClose(t, c2, CloseNormal)
}

func TestNewHandlerValidates(t *testing.T) {
	if _, err := NewHandler(Config{Recognizer: &streamtest.FakeRecognizer{}}); err == nil || !strings.Contains(err.Error(), "Authenticate") {
		t.Fatalf("err %v", err)
	}
	if _, err := NewHandler(Config{Recognizer: &streamtest.FakeRecognizer{}, Authenticate: authKeys, MaxTokenExpiresIn: time.Second}); err == nil {
		t.Fatal("MaxTokenExpiresIn below 60 s accepted")
	}
}

func TestCloseErrorsHaveShortDistinctReasons(t *testing.T) {
	seen := map[CloseCode]bool{}
	for _, e := range closeErrors() {
		if seen[e.Code] {
			t.Errorf("code %d twice", e.Code)
		}
		seen[e.Code] = true
		if len(e.Reason) == 0 || len(e.Reason) > 123 {
			t.Errorf("%d reason %q", e.Code, e.Reason)
		}
		if !errors.Is(e.with("x"), e) {
			t.Errorf("%d: errors.Is fails", e.Code)
		}
	}
}

func TestEndedSessionsAreForgotten(t *testing.T) {
	s := newTestServer(t)
	c, id := begin(t, s, "key-a", nil)
	tok := s.token("key-a", 60)
	send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
	expectCloseAfterMessages(t, c)
	waitFor(t, func() bool { s.h.mu.Lock(); defer s.h.mu.Unlock(); return !s.h.sessions[id].endSeen.IsZero() })
	s.clock.Advance(endedRetention)
	waitFor(t, func() bool { return s.h.Session(id) == nil })
	expectClose(t, s.dial("/v2/realtime/ws/"+id, nil, "key-a"), CloseSessionNotFound)
	// Unused tokens go when they expire.
	waitFor(t, func() bool {
		_, err := s.h.st.Token(context.Background(), TokenHash(tok))
		return errors.Is(err, ErrStateNotFound)
	})
}

func TestHandlerCloseEndsConnections(t *testing.T) {
	s := newTestServer(t)
	c, id := begin(t, s, "key-a", nil)
	s.h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := c.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("err %v", err)
	}
	if st := s.h.Session(id).State(); st != StateTerminated {
		t.Fatalf("state %s", st)
	}
	expectClose(t, s.dial("/v2/realtime/ws", nil, "key-a"), CloseTryAgainLater)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestUnansweredPingDetaches(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.PingInterval = 150 * time.Millisecond })
	// A client that keeps reading answers pings and stays attached.
	c, id := begin(t, s, "key-a", nil)
	readCtx, stop := context.WithCancel(context.Background())
	go func() {
		for {
			if _, _, err := c.Read(readCtx); err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second)
	s.h.mu.Lock()
	att := s.h.sessions[id].attached
	s.h.mu.Unlock()
	if !att {
		t.Fatal("a responsive client was detached")
	}
	stop()
	// A client that sends audio without reading is alive too.
	cw, idw := begin(t, s, "key-a", url.Values{"disable_partial_transcripts": {"true"}})
	for i := 0; i < 10; i++ {
		send(t, cw, websocket.MessageBinary, streamtest.Silence(100, 16000))
		time.Sleep(100 * time.Millisecond)
	}
	s.h.mu.Lock()
	att = s.h.sessions[idw].attached
	s.h.mu.Unlock()
	if !att {
		t.Fatal("a sending client was detached")
	}
	// A client that stops reading and sending cannot answer: the server
	// lets go of the session, and a new connection can resume it.
	c2, id2 := begin(t, s, "key-a", nil)
	_ = c2
	waitFor(t, func() bool { s.h.mu.Lock(); defer s.h.mu.Unlock(); return !s.h.sessions[id2].attached })
	c3 := s.dial("/v2/realtime/ws/"+id2, nil, "key-a")
	if m := read(t, c3); m["message_type"] != "SessionResumed" {
		t.Fatalf("resume %v", m)
	}
}

func TestUnusedTokensAreCapped(t *testing.T) {
	s := newTestServer(t)
	for i := 0; i < MaxUnusedTokens; i++ {
		if _, err := s.h.NewToken("proj-a", time.Minute); err != nil {
			t.Fatalf("token %d: %v", i, err)
		}
	}
	if code, body := s.post("key-a", `{"expires_in":60}`); code != http.StatusTooManyRequests || !strings.Contains(body, "unused") {
		t.Fatalf("%d %s", code, body)
	}
	// Other projects are not affected; expiry frees the quota.
	s.token("key-b", 60)
	s.clock.Advance(2 * time.Minute)
	waitFor(t, func() bool { return s.h.st.(*MemoryState).unused("proj-a", s.clock.Now()) == 0 })
	tok := s.token("key-a", 60)
	begin(t, s, "", url.Values{"token": {tok}})
	if n := s.h.st.(*MemoryState).unused("proj-a", s.clock.Now()); n != 0 {
		t.Fatalf("%d unused after use", n)
	}
}

// A token of another protocol in the shared store (Universal-Streaming's
// "<hex>.<seconds>", which carries its own session limit) does not open a
// v2 session.
func TestForeignTokenRefused(t *testing.T) {
	st := NewMemoryState()
	s := newTestServer(t, func(c *Config) { c.State = st })
	v3 := strings.Repeat("ab", 32) + ".60"
	now := s.clock.Now()
	if err := st.AddToken(context.Background(), TokenRecord{Hash: TokenHash(v3), Project: "proj-a", Expires: now.Add(time.Minute)}, now, MaxUnusedTokens); err != nil {
		t.Fatal(err)
	}
	c := s.dial("/v2/realtime/ws", url.Values{"token": {v3}}, "")
	expectClose(t, c, CloseNotAuthorized)
	// A v2 token still works.
	begin(t, s, "", url.Values{"token": {s.token("key-a", 60)}})
}
