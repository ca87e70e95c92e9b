package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/internal/testservices"
)

// Modes of faultProxy.
const (
	proxyUp    = iota
	proxyDown  // every connection is cut and new ones are closed at once
	proxyStall // connections stay open but nothing is forwarded
)

// faultProxy forwards TCP connections to a database and plays its
// outages: down (connections cut, new ones refused) and stalled (bytes
// held, as a hung server or a black-holed network does).
type faultProxy struct {
	ln     net.Listener
	target string
	mode   atomic.Int32
	mu     sync.Mutex
	conns  []net.Conn
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.mode.Load() == proxyDown {
				c.Close()
				continue
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *faultProxy) serve(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, up)
	p.mu.Unlock()
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			for n > 0 && p.mode.Load() == proxyStall {
				time.Sleep(10 * time.Millisecond)
			}
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		dst.Close()
		src.Close()
	}
	go pipe(up, c)
	go pipe(c, up)
}

func (p *faultProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *faultProxy) set(mode int32) {
	p.mode.Store(mode)
	if mode == proxyDown {
		p.cut()
	}
}

// pgVia is the database URL u reached through addr.
func pgVia(t *testing.T, u, addr string) string {
	t.Helper()
	_, rest, ok := strings.Cut(u, "@")
	if !ok {
		t.Fatalf("no host in %s", u)
	}
	_, path, _ := strings.Cut(rest, "/")
	return u[:len(u)-len(rest)] + addr + "/" + path
}

type reply struct {
	status     int
	retryAfter string
	ctype      string
	body       []byte
	took       time.Duration
}

func callAPI(t *testing.T, method, url, key, idem string, body []byte) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", key)
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	start := time.Now()
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"), b, time.Since(start)}
}

func (a reply) field(t *testing.T, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("not JSON (%d): %q", a.status, a.body)
	}
	s, _ := m[name].(string)
	return s
}

func expect503(t *testing.T, what string, a reply, reason string, within time.Duration) {
	t.Helper()
	if a.status != http.StatusServiceUnavailable || a.retryAfter == "" || a.ctype != "application/json" || !strings.Contains(a.field(t, "error"), reason) {
		t.Errorf("%s: %d (Retry-After %q, %s) %s; want 503 with Retry-After and %q", what, a.status, a.retryAfter, a.ctype, a.body, reason)
	}
	if a.took > within {
		t.Errorf("%s took %s, more than %s", what, a.took, within)
	}
}

// TestDatabaseOutageAnswers runs the server on PostgreSQL behind a proxy
// that plays the database's outages. While the database is down, GETs,
// creates and binary uploads are 503 with a reason and Retry-After (a cut
// connection was 400 "request body is empty or truncated JSON"), the
// cause in the log; while it stalls, requests are answered 503 within
// EARSHOT_STORE_TIMEOUT instead of waiting out the stall; afterwards
// everything works again. A create retried with its Idempotency-Key on a
// second process on the same database gets the same transcript.
func TestDatabaseOutageAnswers(t *testing.T) {
	t.Parallel()
	db := testservices.Postgres(t)
	host := strings.SplitN(strings.SplitN(db, "@", 2)[1], "/", 2)[0]
	proxy := newFaultProxy(t, host)
	wav, err := os.ReadFile(testaudio.Speech(t, "slt", "hello world"))
	if err != nil {
		t.Fatal(err)
	}
	media := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(wav) }))
	defer media.Close()
	env := []string{"EARSHOT_API_KEYS=" + keyK1 + ":p1", "EARSHOT_STORE_TIMEOUT=1s", "EARSHOT_WORKERS=1", "EARSHOT_ENCRYPTION_KEY=" + strings.Repeat("ab", 32)}
	a := startServer(t, t.TempDir(), freeAddr(t), append(env, "EARSHOT_DATABASE_URL="+pgVia(t, db, proxy.ln.Addr().String()))...)
	create := []byte(`{"audio_url":"` + media.URL + `/a.wav"}`)
	made := callAPI(t, "POST", a.URL+"/v2/transcript", keyK1, "", create)
	if made.status != 200 {
		t.Fatalf("create: %d %s", made.status, made.body)
	}
	id := made.field(t, "id")

	proxy.set(proxyDown)
	expect503(t, "GET while down", callAPI(t, "GET", a.URL+"/v2/transcript/"+id, keyK1, "", nil), "storage is not answering", 5*time.Second)
	expect503(t, "create while down", callAPI(t, "POST", a.URL+"/v2/transcript", keyK1, "", create), "storage is not answering", 5*time.Second)
	expect503(t, "upload while down", callAPI(t, "POST", a.URL+"/v2/upload", keyK1, "", wav), "storage is not answering", 5*time.Second)
	if logs := a.logs(); !strings.Contains(logs, "status=503") || !strings.Contains(logs, "postgres") {
		t.Errorf("the cause is not logged:\n%s", logs)
	}

	proxy.set(proxyUp)
	deadline := time.Now().Add(20 * time.Second)
	for callAPI(t, "GET", a.URL+"/v2/transcript/"+id, keyK1, "", nil).status != 200 {
		if time.Now().After(deadline) {
			t.Fatal("no recovery after the database came back")
		}
		time.Sleep(100 * time.Millisecond)
	}
	proxy.set(proxyStall)
	expect503(t, "GET while stalled", callAPI(t, "GET", a.URL+"/v2/transcript/"+id, keyK1, "", nil), "did not answer within 1s", 3*time.Second)
	expect503(t, "create while stalled", callAPI(t, "POST", a.URL+"/v2/transcript", keyK1, "", create), "did not answer within 1s", 3*time.Second)
	proxy.set(proxyDown) // the stalled connections are dropped
	proxy.set(proxyUp)

	// The same key and body on another process: the same transcript.
	b := startServer(t, t.TempDir(), freeAddr(t), append(env, "EARSHOT_DATABASE_URL="+db)...)
	deadline = time.Now().Add(20 * time.Second)
	var first reply
	for first = callAPI(t, "POST", a.URL+"/v2/transcript", keyK1, "retry-1", create); first.status != 200; first = callAPI(t, "POST", a.URL+"/v2/transcript", keyK1, "retry-1", create) {
		if time.Now().After(deadline) {
			t.Fatalf("create with a key after the outage: %d %s", first.status, first.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	again := callAPI(t, "POST", b.URL+"/v2/transcript", keyK1, "retry-1", create)
	if again.status != 200 || again.field(t, "id") != first.field(t, "id") {
		t.Fatalf("the retry on another process: %d %s, want id %s", again.status, again.body, first.field(t, "id"))
	}
	if other := callAPI(t, "POST", b.URL+"/v2/transcript", keyK1, "retry-1", []byte(`{"audio_url":"`+media.URL+`/b.wav"}`)); other.status != 422 {
		t.Fatalf("another body under the key: %d %s", other.status, other.body)
	}
}
