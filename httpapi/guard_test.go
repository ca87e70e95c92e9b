package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// TestUnauthorizedBeforeBody: a request with a bad key is answered 401
// with Connection: close while its body is still being sent (a slow body
// cannot hold the connection), and the server closes the connection.
func TestUnauthorizedBeforeBody(t *testing.T) {
	f := newFixture(t)
	conn, err := net.Dial("tcp", f.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v2/upload HTTP/1.1\r\nHost: x\r\nAuthorization: wrong-key\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response while the body was still open: %v", err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !res.Close {
		t.Fatalf("status %d, close %v; want 401 and Connection: close", res.StatusCode, res.Close)
	}
	// The server hangs up rather than draining the rest of the body.
	buf := make([]byte, 1)
	if _, err := conn.Read(buf); err == nil {
		t.Error("connection still open after the 401")
	}
}

// TestAuthFailuresRateLimited: an address that keeps failing
// authentication is refused with 429 before its key is looked at; other
// addresses and good keys are unaffected.
func TestAuthFailuresRateLimited(t *testing.T) {
	f := newFixture(t, func(c *httpapi.Config) { c.AuthFailureRate = 1 })
	got429 := false
	for i := 0; i < 30 && !got429; i++ {
		r := f.do(t, "GET", "/v2/transcript", "bad-key", nil)
		switch r.status {
		case http.StatusTooManyRequests:
			got429 = true
			if r.header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
		case http.StatusUnauthorized:
		default:
			t.Fatalf("status %d", r.status)
		}
	}
	if !got429 {
		t.Fatal("30 failed authentications in a row were never rate limited")
	}
	// Even a good key from the blocked address waits for the bucket to
	// refill; after a second it works again.
	time.Sleep(1100 * time.Millisecond)
	if r := f.do(t, "GET", "/v2/transcript", "k1", nil); r.status != http.StatusOK {
		t.Errorf("good key after the pause: %d %s", r.status, r.body)
	}
}

// TestStalledBodyCutOff: a body that stops flowing is cut off after
// BodyIdleTimeout, while one that keeps flowing slowly goes through.
func TestStalledBodyCutOff(t *testing.T) {
	f := newFixture(t, func(c *httpapi.Config) { c.BodyIdleTimeout = time.Second })
	// Flowing slowly (every 100 ms) for twice the timeout: accepted.
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < 20; i++ {
			pw.Write(f.wav[i*len(f.wav)/20 : (i+1)*len(f.wav)/20])
			time.Sleep(100 * time.Millisecond)
		}
		pw.Close()
	}()
	if r := f.do(t, "POST", "/v2/upload", "k1", pr); r.status != http.StatusOK {
		t.Fatalf("slow but flowing upload: %d %s", r.status, r.body)
	}
	// Stalled: the server gives up within about the timeout.
	conn, err := net.Dial("tcp", f.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /v2/upload HTTP/1.1\r\nHost: x\r\nAuthorization: k1\r\nContent-Length: 100000\r\n\r\nRIFF")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled upload: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("stalled upload: status %d, want 422", res.StatusCode)
	}
	if el := time.Since(start); el > 6*time.Second {
		t.Errorf("a stalled body held the connection for %v", el)
	}
}

// failingBlobs fails every Put with the given error.
type failingBlobs struct {
	driver.BlobStore
	err error
}

func (b failingBlobs) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	io.Copy(io.Discard, r)
	return 0, b.err
}

// TestDiskFull: a full disk is 507 with a reason, not 500.
func TestDiskFull(t *testing.T) {
	f := newFixtureWith(t, func(c *transcribe.Config) {
		c.Blobs = failingBlobs{c.Blobs, &wrapErr{fmt.Errorf("writing /data/blobs/uploads/x.tmp: %w", syscall.ENOSPC)}}
	})
	r := f.do(t, "POST", "/v2/upload", "k1", strings.NewReader("RIFF data"))
	expectError(t, r, http.StatusInsufficientStorage, "disk is full")
	if strings.Contains(string(r.body), "/data/") {
		t.Errorf("the error leaks a server path: %s", r.body)
	}
}

type wrapErr struct{ err error }

func (w *wrapErr) Error() string { return "localfs: " + w.err.Error() }
func (w *wrapErr) Unwrap() error { return w.err }
