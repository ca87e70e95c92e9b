package openapi_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/earshot-dev/earshot/realtime"
)

// closeCode is one entry of x-earshot-websocket closeCodes.
type closeCode struct {
	Code   int    `json:"code"`
	Reason string `json:"reason"`
	When   string `json:"when"`
}

// closeCodes returns the x-earshot-websocket closeCodes documented for
// the WebSocket at path (/v2/realtime/ws, /v3/ws), by code.
func (s *spec) closeCodes(t testing.TB, path string) map[int]closeCode {
	t.Helper()
	ext := resolve(s.raw, "/paths/"+strings.ReplaceAll(path, "/", "~1")+"/get/x-earshot-websocket/closeCodes")
	b, _ := json.Marshal(ext)
	var list []closeCode
	if err := json.Unmarshal(b, &list); err != nil || len(list) == 0 {
		t.Fatalf("%s x-earshot-websocket closeCodes: %v %s", path, err, b)
	}
	out := map[int]closeCode{}
	for _, c := range list {
		out[c.Code] = c
	}
	return out
}

// TestCloseCodesMatchRealtime checks the documented close codes against the
// close errors package realtime sends: same codes, same reasons.
func TestCloseCodesMatchRealtime(t *testing.T) {
	t.Parallel()
	s := loadSpec(t)
	doc := s.closeCodes(t, "/v2/realtime/ws")
	errs := []*realtime.CloseError{realtime.ErrNotAuthorized, realtime.ErrBadSampleRate, realtime.ErrSessionNotFound,
		realtime.ErrSessionExpired, realtime.ErrSessionClosed, realtime.ErrRateLimited, realtime.ErrUniqueSession,
		realtime.ErrSessionIdle, realtime.ErrAudioTooShort, realtime.ErrAudioTooLong, realtime.ErrBadJSON,
		realtime.ErrBadSchema, realtime.ErrTooManyStreams, realtime.ErrBadWordBoost, realtime.ErrReconnectsExhausted,
		realtime.ErrRecognizer}
	for _, e := range errs {
		d, ok := doc[int(e.Code)]
		if !ok || d.Reason != e.Reason {
			t.Errorf("close %d %q: documented as %+v", e.Code, e.Reason, d)
		}
	}
	if _, ok := doc[int(realtime.CloseNormal)]; !ok {
		t.Error("close 1000 is not documented")
	}
	if len(doc) != len(errs)+1 {
		t.Errorf("%d close codes documented, realtime has %d and 1000", len(doc), len(errs))
	}
	// The resume endpoint shares the stream endpoint's description.
	ref := resolve(s.raw, "/paths/~1v2~1realtime~1ws~1{session_id}/get/x-earshot-websocket/$ref")
	if ref != "#/paths/~1v2~1realtime~1ws/get/x-earshot-websocket" {
		t.Errorf("resume x-earshot-websocket: %v", ref)
	}
}

// tone returns ms milliseconds of a loud 440 Hz tone as PCM16LE at 16 kHz.
func tone(ms int) []byte {
	n := 16 * ms
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(12000*math.Sin(2*math.Pi*440*float64(i)/16000))))
	}
	return b
}

// wsConn is a WebSocket connection whose every server message is validated
// against the document.
type wsConn struct {
	t    *testing.T
	s    *spec
	c    *websocket.Conn
	ctx  context.Context
	seen []string // message types (or "error") in order
}

// dial opens target (path?query) with key (or none) and validates the
// upgrade exchange against the document.
func (c *checker) dial(ctx context.Context, target, key string, docRejects bool) *wsConn {
	c.t.Helper()
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", key)
	}
	u := "ws" + strings.TrimPrefix(c.base, "http") + target
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		c.t.Fatalf("dial %s: %v", target, err)
	}
	q := req{method: "GET", target: target, key: key, status: 101, docRejects: docRejects, header: http.Header{}}
	for _, k := range []string{"Connection", "Upgrade", "Sec-Websocket-Version", "Sec-Websocket-Key"} {
		q.header[k] = resp.Request.Header[k]
	}
	c.check(q, resp, res{status: resp.StatusCode, header: resp.Header})
	conn.SetReadLimit(1 << 20)
	return &wsConn{t: c.t, s: c.spec, c: conn, ctx: ctx}
}

// send writes a client text message after validating it against the
// client message schema it claims to be.
func (w *wsConn) send(schema string, v any) {
	w.t.Helper()
	b, _ := json.Marshal(v)
	w.s.schemaCheck(w.t, schema, b)
	if err := w.c.Write(w.ctx, websocket.MessageText, b); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wsConn) raw(typ websocket.MessageType, b []byte) {
	w.t.Helper()
	if err := w.c.Write(w.ctx, typ, b); err != nil {
		w.t.Fatal(err)
	}
}

// readObject reads the next message of c, which must be a JSON object
// in a text message, or the close error that ended c.
func readObject(t testing.TB, ctx context.Context, c *websocket.Conn) ([]byte, map[string]any, *websocket.CloseError) {
	t.Helper()
	typ, b, err := c.Read(ctx)
	if err != nil {
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return nil, nil, &ce
		}
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("server sent a binary message")
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("server message is not a JSON object: %q", b)
	}
	return b, m, nil
}

// read returns the next message's type ("error" for an error message) and
// fields, validated against its schema; on a close it returns "" and the
// close error.
func (w *wsConn) read() (string, map[string]any, *websocket.CloseError) {
	w.t.Helper()
	b, m, ce := readObject(w.t, w.ctx, w.c)
	if ce != nil {
		return "", nil, ce
	}
	mt, _ := m["message_type"].(string)
	if _, isErr := m["error"]; isErr {
		mt = "error"
		w.s.schemaCheck(w.t, "RealtimeError", b)
	} else {
		w.s.schemaCheck(w.t, "Realtime"+mt, b)
	}
	w.seen = append(w.seen, mt)
	return mt, m, nil
}

// until reads messages until a close, checks the close against the
// document (code and reason), and returns the code.
func (w *wsConn) until() int {
	w.t.Helper()
	for {
		_, _, ce := w.read()
		if ce == nil {
			continue
		}
		doc := w.s.closeCodes(w.t, "/v2/realtime/ws")
		d, ok := doc[int(ce.Code)]
		if !ok || d.Reason != ce.Reason {
			w.t.Errorf("close %d %q is not documented (documented: %+v)", ce.Code, ce.Reason, d)
		}
		if ce.Code != websocket.StatusNormalClosure && (len(w.seen) == 0 || w.seen[len(w.seen)-1] != "error") {
			w.t.Errorf("close %d not preceded by an error message: %v", ce.Code, w.seen)
		}
		return int(ce.Code)
	}
}

func (w *wsConn) expectClose(code int) {
	w.t.Helper()
	if got := w.until(); got != code {
		w.t.Errorf("close %d, want %d (messages %v)", got, code, w.seen)
	}
}

// realtime drives both WebSocket endpoints: a whole session with the API
// key, a token session dropped and resumed, every HTTP-level handshake
// error and the close codes the test can provoke.
func (c *checker) realtime(t *testing.T, srv *server) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// A whole session with the API key and explicit options.
	w := c.dial(ctx, "/v2/realtime/ws?sample_rate=16000&encoding=pcm_s16le&word_boost="+url.QueryEscape(`["hello","new york"]`)+"&enable_extra_session_information=true", key1, false)
	if mt, m, _ := w.read(); mt != "SessionBegins" || m["session_id"] == "" {
		t.Fatalf("first message %s %v", mt, m)
	}
	w.send("RealtimeConfigure", map[string]any{"end_utterance_silence_threshold": 500})
	for i := 0; i < 8; i++ {
		w.raw(websocket.MessageBinary, tone(100))
	}
	w.send("RealtimeForceEndUtterance", map[string]any{"force_end_utterance": true})
	w.send("RealtimeTerminateSession", map[string]any{"terminate_session": true})
	w.expectClose(1000)
	for _, want := range []string{"PartialTranscript", "FinalTranscript", "SessionInformation", "SessionTerminated"} {
		if !containsStr(w.seen, want) {
			t.Errorf("session messages %v lack %s", w.seen, want)
		}
	}

	// A token session with legacy base64 audio, dropped and resumed.
	tok := c.do(req{method: "POST", target: "/v2/realtime/token", key: key1, body: []byte(`{"expires_in":120}`), status: 200}).str(t, "token")
	w = c.dial(ctx, "/v2/realtime/ws?token="+tok+"&disable_partial_transcripts=true&sample_rate=16000.0", "", false)
	_, m, _ := w.read()
	id, _ := m["session_id"].(string)
	for i := 0; i < 3; i++ {
		w.send("RealtimeAudioData", map[string]any{"audio_data": base64.StdEncoding.EncodeToString(tone(100))})
	}
	w.c.CloseNow() // dropped without terminate_session
	for deadline := time.Now().Add(10 * time.Second); ; {
		w = c.dial(ctx, "/v2/realtime/ws/"+id+"?token="+tok, "", false)
		mt, m, _ := w.read()
		if mt == "SessionResumed" && m["session_id"] == id {
			break
		}
		// Until the server notices the drop, the session still has a
		// connection (4030).
		if code := w.until(); code != 4030 || time.Now().After(deadline) {
			t.Fatalf("resume: %s %v, close %d", mt, m, code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	dup := c.dial(ctx, "/v2/realtime/ws/"+id, key1, false) // the session has a connection
	dup.expectClose(4030)
	w.send("RealtimeTerminateSession", map[string]any{"terminate_session": true})
	w.expectClose(1000)
	c.dial(ctx, "/v2/realtime/ws/"+id, key1, false).expectClose(4010)
	c.dial(ctx, "/v2/realtime/ws?token="+tok, "", false).expectClose(4001) // used token

	// Refused at the start.
	c.dial(ctx, "/v2/realtime/ws", "", true).expectClose(4001)
	c.dial(ctx, "/v2/realtime/ws", "nope", false).expectClose(4001)
	c.dial(ctx, "/v2/realtime/ws?token="+strings.Repeat("ab", 32), "", false).expectClose(4001)
	c.dial(ctx, "/v2/realtime/ws?sample_rate=100", key1, true).expectClose(4000)
	c.dial(ctx, "/v2/realtime/ws?sample_rate=fast", key1, true).expectClose(4000)
	c.dial(ctx, "/v2/realtime/ws?encoding=opus", key1, true).expectClose(4101)
	c.dial(ctx, "/v2/realtime/ws?disable_partial_transcripts=maybe", key1, true).expectClose(4101)
	c.dial(ctx, "/v2/realtime/ws?word_boost=hello", key1, true).expectClose(4104)
	c.dial(ctx, "/v2/realtime/ws/"+"6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d", key1, false).expectClose(4004)

	// Ended by a bad message.
	for _, e := range []struct {
		typ  websocket.MessageType
		msg  []byte
		code int
	}{
		{websocket.MessageText, []byte("not json"), 4100},
		{websocket.MessageText, []byte(`{"bogus":1}`), 4101},
		{websocket.MessageText, []byte(`{"end_utterance_silence_threshold":30000}`), 4101},
		{websocket.MessageBinary, tone(3000), 4033},
	} {
		w := c.dial(ctx, "/v2/realtime/ws", key1, false)
		w.read()
		w.raw(e.typ, e.msg)
		w.expectClose(e.code)
	}
	w = c.dial(ctx, "/v2/realtime/ws", key1, false)
	w.read()
	w.raw(websocket.MessageBinary, tone(20))
	w.raw(websocket.MessageBinary, tone(100))
	w.expectClose(4032)

	// Handshakes the WebSocket library refuses over HTTP (text/plain).
	upgrade := func(version string) http.Header {
		return http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {version},
			"Sec-Websocket-Key": {base64.StdEncoding.EncodeToString([]byte("0123456789abcdef"))}}
	}
	c.do(req{method: "GET", target: "/v2/realtime/ws", key: key1, status: 426, docRejects: true})
	c.do(req{method: "GET", target: "/v2/realtime/ws/x", key: key1, status: 426, docRejects: true})
	c.do(req{method: "GET", target: "/v2/realtime/ws", key: key1, header: upgrade("12"), status: 400, docRejects: true})
	c.do(req{method: "GET", target: "/v2/realtime/ws/x", key: key1, header: upgrade("12"), status: 400, docRejects: true})
	for _, p := range []string{"/v2/realtime/ws", "/v2/realtime/ws/x"} {
		h := upgrade("13")
		h.Set("Origin", "https://elsewhere.earshot.invalid")
		c.do(req{method: "GET", target: p, key: key1, header: h, status: 403})
		// Another method on an upgrade: 405 text/plain (x-earshot-other-methods).
		r := c.newRequest(req{method: "POST", target: p, key: key1, header: upgrade("13")})
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("POST upgrade %s: %d %q", p, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
