package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// These tests attack one reference server process (main and EU
// listeners, /v1 beside /v2) the way issue 19 did, from several loopback
// addresses (127.0.0.x: each is a client address of its own), and check
// that every front end shares one failed-auth budget per address and one
// request budget per project, that valid keys keep working while their
// address is locked out, that X-Forwarded-For counts only from
// EARSHOT_TRUSTED_PROXIES, and that /v1 requests are counted when they
// arrive, logged and measured, and kept out of the project's /v2 list.

const (
	keyRL  = "guard-key-rl-0123456789"  // project rl: the request budget
	keyA1  = "guard-key-a1-0123456789"  // project a1: known good at 127.0.0.7
	keyA2  = "guard-key-a2-0123456789"  // project a2: never used before the lockout
	keyPX  = "guard-key-px-0123456789"  // project px: a client behind the proxy
	keyV1P = "guard-key-v1p-0123456789" // project v1p: /v1 records and logs
)

// guardServer is a client of s (and its EU listener) whose connections
// come from local address ip.
type guardServer struct {
	t       *testing.T
	s       *server
	eu      string
	ip      string
	http    *http.Client
	forward string // X-Forwarded-For to send, if any
}

func (g guardServer) from(ip string) guardServer {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	g.ip = ip
	g.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	g.forward = ""
	return g
}

func (g guardServer) forwarding(xff string) guardServer { g.forward = xff; return g }

type answer struct {
	status int
	body   string
	header http.Header
}

func (g guardServer) do(method, url, key, ct string, body io.Reader) answer {
	g.t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		g.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if g.forward != "" {
		req.Header.Set("X-Forwarded-For", g.forward)
	}
	res, err := g.http.Do(req)
	if err != nil {
		g.t.Fatalf("%s %s from %s: %v", method, url, g.ip, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(b), res.Header}
}

func (g guardServer) v2(key string) answer {
	return g.do("GET", g.s.URL+"/v2/transcript", key, "", nil)
}
func (g guardServer) euV2(key string) answer {
	return g.do("GET", "http://"+g.eu+"/v2/transcript", key, "", nil)
}
func (g guardServer) v1(key string) answer {
	return g.do("GET", g.s.URL+"/v1/models", "Bearer "+key, "", nil)
}
func (g guardServer) token(key string) answer {
	return g.do("POST", g.s.URL+"/v2/realtime/token", key, "application/json", strings.NewReader(`{"expires_in":60}`))
}

// ws dials the WebSocket with key and returns the close code and the
// {"error"} text, or 0 and the first message type when a session began
// (which it then terminates).
func (g guardServer) ws(key string) (int, string) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hdr := http.Header{"Authorization": {key}}
	if g.forward != "" {
		hdr.Set("X-Forwarded-For", g.forward)
	}
	url := "ws" + strings.TrimPrefix(g.s.URL, "http") + "/v2/realtime/ws?sample_rate=16000"
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: hdr, HTTPClient: g.http})
	if err != nil {
		g.t.Fatalf("dial from %s: %v", g.ip, err)
	}
	defer c.CloseNow()
	text := ""
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return int(websocket.CloseStatus(err)), text
		}
		var m map[string]any
		json.Unmarshal(b, &m)
		if e, ok := m["error"].(string); ok {
			text = e
		}
		if m["message_type"] == "SessionBegins" {
			c.Write(ctx, websocket.MessageText, []byte(`{"terminate_session":true}`))
			for {
				if _, _, err := c.Read(ctx); err != nil {
					return 0, "SessionBegins"
				}
			}
		}
	}
}

// expect checks a refusal: status, a JSON {"error": ...} naming why, and
// Retry-After on 429.
func expect(t *testing.T, what string, a answer, status int, errorHas string) {
	t.Helper()
	if a.status != status {
		t.Errorf("%s: %d %s, want %d", what, a.status, a.body, status)
		return
	}
	if status == http.StatusTooManyRequests && a.header.Get("Retry-After") == "" {
		t.Errorf("%s: 429 without Retry-After", what)
	}
	if errorHas != "" {
		var e struct {
			Error any `json:"error"`
		}
		if json.Unmarshal([]byte(a.body), &e) != nil || e.Error == nil || !strings.Contains(strings.ToLower(a.body), errorHas) {
			t.Errorf("%s: body %s does not hold an error naming %q", what, a.body, errorHas)
		}
	}
}

func TestOneBudgetForEveryFrontEnd(t *testing.T) {
	t.Parallel()
	wavPath := testaudio.Speech(t, "slt", "hello world")
	wav, err := os.ReadFile(wavPath)
	if err != nil {
		t.Fatal(err)
	}
	euAddr, opsAddr := freeAddr(t), freeAddr(t)
	keys := fmt.Sprintf("%s:rl,%s:a1,%s:a2,%s:px,%s:v1p", keyRL, keyA1, keyA2, keyPX, keyV1P)
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keys, "EARSHOT_WORKERS=1", "EARSHOT_EU_ADDR="+euAddr,
		"EARSHOT_RATE_LIMIT=0.01", "EARSHOT_RATE_BURST=8",
		// One failure per address at once, then one per 10 s.
		"EARSHOT_AUTH_FAILURE_RATE=0.1", "EARSHOT_TRUSTED_PROXIES=127.0.0.9/32",
		"EARSHOT_METRICS_ADDR="+opsAddr, "EARSHOT_LOG_FORMAT=json")
	base := guardServer{t: t, s: s, eu: euAddr}
	const bad = "guard-wrong-key-0123456789"

	t.Run("failed authentications share one budget per address", func(t *testing.T) {
		base.t = t
		// Spent on the realtime token endpoint, refused on /v2.
		g := base.from("127.0.0.2")
		expect(t, "token, wrong key", g.token(bad), 401, "")
		expect(t, "/v2 after a failed token request", g.v2(bad), 429, "failed authentications")
		// Spent on the WebSocket, refused on /v1.
		g = base.from("127.0.0.3")
		if code, _ := g.ws(bad); code != 4001 {
			t.Errorf("WebSocket, wrong key: close %d, want 4001", code)
		}
		expect(t, "/v1 after a failed WebSocket", g.v1(bad), 429, "failed authentications")
		// Spent on /v1, refused on the EU listener.
		g = base.from("127.0.0.4")
		expect(t, "/v1, wrong key", g.v1(bad), 401, "")
		expect(t, "EU after a failed /v1 request", g.euV2(bad), 429, "failed authentications")
		// Spent on the EU listener, refused on the WebSocket and the token
		// endpoint.
		g = base.from("127.0.0.5")
		expect(t, "EU, wrong key", g.euV2(bad), 401, "")
		if code, text := g.ws(bad); code != 1013 || !strings.Contains(text, "failed authentications") {
			t.Errorf("WebSocket after a failed EU request: close %d %q, want 1013", code, text)
		}
		expect(t, "token after a failed EU request", g.token(bad), 429, "failed authentications")
		// Another address is not affected.
		expect(t, "another address", base.from("127.0.0.6").v2(bad), 401, "")
	})

	t.Run("valid keys keep working under attack", func(t *testing.T) {
		base.t = t
		g := base.from("127.0.0.7")
		expect(t, "a1 before the attack", g.v2(keyA1), 200, "")
		expect(t, "wrong key", g.v2(bad), 401, "")
		expect(t, "wrong key again", g.v2(bad), 429, "failed authentications")
		// The key used from this address before still works everywhere.
		expect(t, "a1 on /v2", g.v2(keyA1), 200, "")
		expect(t, "a1 on /v1", g.v1(keyA1), 200, "")
		expect(t, "a1 on the token endpoint", g.token(keyA1), 200, "")
		expect(t, "a1 on the EU listener", g.euV2(keyA1), 200, "")
		if code, first := g.ws(keyA1); code != 0 {
			t.Errorf("a1 on the WebSocket: close %d %q", code, first)
		}
		// A key never seen from the address is refused like a guess, so a
		// locked-out address learns nothing about keys.
		expect(t, "a2, never used from here", g.v2(keyA2), 429, "failed authentications")
	})

	t.Run("X-Forwarded-For only from trusted proxies", func(t *testing.T) {
		base.t = t
		proxy := base.from("127.0.0.9")
		attacker := proxy.forwarding("6.6.6.6, 198.51.100.1")
		expect(t, "attacker behind the proxy", attacker.v2(bad), 401, "")
		expect(t, "attacker behind the proxy again", attacker.v2(bad), 429, "failed authentications")
		// Another client behind the same proxy, with a key it never used.
		expect(t, "another client behind the proxy", proxy.forwarding("198.51.100.2").v2(keyPX), 200, "")
		if code, first := proxy.forwarding("198.51.100.2").ws(keyPX); code != 0 {
			t.Errorf("another client behind the proxy, WebSocket: close %d %q", code, first)
		}
		// An untrusted peer's X-Forwarded-For is ignored: changing it does
		// not buy a fresh budget.
		spoof := base.from("127.0.0.8")
		expect(t, "untrusted peer", spoof.forwarding("198.51.100.3").v2(bad), 401, "")
		expect(t, "untrusted peer, other X-Forwarded-For", spoof.forwarding("198.51.100.4").v2(bad), 429, "failed authentications")
	})

	t.Run("/v1 requests count when they arrive", func(t *testing.T) {
		base.t = t
		// Eight clients send a file to /v1 and hang up without waiting:
		// the project's whole burst.
		for i := 0; i < 8; i++ {
			sendAndHangUp(t, s, "127.0.0.10", keyRL, wav)
		}
		waitLogLines(t, s, func(m map[string]any) bool {
			return m["msg"] == "request" && m["route"] == "/v1/audio/transcriptions"
		}, 8)
		// A client that hangs up is the client's failure, never a 500.
		for _, line := range strings.Split(s.logs(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["route"] == "/v1/audio/transcriptions" && m["status"] == float64(500) {
				t.Errorf("a client that hung up is logged as a server error: %s", line)
			}
		}
		g := base.from("127.0.0.10")
		// A body small enough to go out in the request's one write: a
		// refused request's larger body (over net/http's 256 KB drain
		// limit, golang/go#11745) makes the server close the connection
		// while the client may still be writing it, and under load even
		// a 64 KB one was seen to end in a broken pipe on the client
		// instead of the 429. The budget does not depend on the body.
		small := wav[:min(len(wav), 1<<10)]
		body, ct := transcriptionForm(t, small)
		expect(t, "/v1 over the budget", g.do("POST", s.URL+"/v1/audio/transcriptions", "Bearer "+keyRL, ct, body), 429, "rate limit")
		expect(t, "/v2 upload over the budget", g.do("POST", s.URL+"/v2/upload", keyRL, "", bytes.NewReader(small)), 429, "rate limit")
		expect(t, "EU upload over the budget", g.do("POST", "http://"+euAddr+"/v2/upload", keyRL, "", bytes.NewReader(small)), 429, "rate limit")
		expect(t, "token over the budget", g.token(keyRL), 429, "rate limit")
		if code, text := g.ws(keyRL); code != 1013 || !strings.Contains(text, "rate limit") {
			t.Errorf("WebSocket over the budget: close %d %q, want 1013", code, text)
		}
	})

	t.Run("/v1 jobs stay out of the /v2 list and are logged and measured", func(t *testing.T) {
		base.t = t
		g := base.from("127.0.0.11")
		// Two /v1 requests wait for their transcripts (one worker: at
		// least one is queued behind the other) while the project lists
		// its transcripts through /v2.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan struct{}, 2)
		for i := 0; i < 2; i++ {
			go func() {
				defer func() { done <- struct{}{} }()
				body, ct := transcriptionForm(t, wav)
				req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/audio/transcriptions", body)
				req.Header.Set("Authorization", "Bearer "+keyV1P)
				req.Header.Set("Content-Type", ct)
				if res, err := g.http.Do(req); err == nil {
					res.Body.Close()
				}
			}()
		}
		waitLogLines(t, s, func(m map[string]any) bool {
			p, _ := m["project"].(string)
			return m["msg"] == "transcript queued" && strings.HasPrefix(p, "v1p")
		}, 2)
		list := g.v2(keyV1P)
		if list.status != 200 || !strings.Contains(list.body, `"transcripts":[]`) {
			t.Errorf("the project's /v2 list holds its /v1 jobs: %d %s", list.status, list.body)
		}
		cancel()
		<-done
		<-done
		// (The startup polls of startServer spent 127.0.0.1's failed-auth
		// budget: every request here comes from another address.)
		req, _ := http.NewRequest("GET", s.URL+"/v1/models", nil)
		req.Header.Set("Authorization", "Bearer "+keyV1P)
		req.Header.Set("X-Request-Id", "guard-v1-models-1")
		res, err := g.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("X-Request-Id") != "guard-v1-models-1" {
			t.Errorf("X-Request-Id %q", res.Header.Get("X-Request-Id"))
		}
		waitLogLines(t, s, func(m map[string]any) bool {
			return m["msg"] == "request" && m["request_id"] == "guard-v1-models-1" && m["route"] == "/v1/models" && m["status"] == float64(200)
		}, 1)
		_, metrics := opsGet(t, opsAddr, "/metrics")
		for _, series := range []string{
			`earshot_http_requests_total{method="GET",route="/v1/models",status="200"}`,
			`earshot_http_requests_total{method="POST",route="/v1/audio/transcriptions",status="429"}`,
			`earshot_http_requests_total{method="GET",route="/v1/models",status="401"}`,
		} {
			if v := metricValue(t, metrics, series); v < 1 {
				t.Errorf("%s = %v", series, v)
			}
		}
	})
}

// transcriptionForm is a /v1 transcription request's body and type.
func transcriptionForm(t *testing.T, wav []byte) (io.Reader, string) {
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("model", "whisper-1")
	fw, _ := mw.CreateFormFile("file", "hello.wav")
	fw.Write(wav)
	mw.Close()
	return &form, mw.FormDataContentType()
}

// sendAndHangUp sends a whole /v1 transcription request and closes the
// connection without reading the answer.
func sendAndHangUp(t *testing.T, s *server, ip, key string, wav []byte) {
	t.Helper()
	body, ct := transcriptionForm(t, wav)
	b, _ := io.ReadAll(body)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: earshot\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", key, ct, len(b))
	if _, err := conn.Write(b); err != nil {
		t.Fatal(err)
	}
}

// waitLogLines waits up to 30 s for n JSON log lines matching ok.
func waitLogLines(t *testing.T, s *server, ok func(map[string]any) bool, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := 0
		for _, line := range strings.Split(s.logs(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && ok(m) {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log has %d of the %d lines expected", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
