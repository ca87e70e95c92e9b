// Package httpguard holds the guards every front end of the server (httpapi,
// the AssemblyAI API; httpapi/openaiapi, OpenAI's audio API; realtime, the
// streaming token endpoint and WebSocket) puts in front of its handlers:
// Guard, one shared budget of requests per project and of failed
// authentications per client address, with the client address taken from
// X-Forwarded-For only from trusted proxies; and request bodies that must
// keep flowing (IdleBody). Written here rather than taken from a library
// because each is a few lines over golang.org/x/time/rate, net/netip and
// net/http's ResponseController. Its own tests cover the address and
// bucket rules; the front ends' tests (httpapi TestAuthFailuresRateLimited,
// TestUnauthorizedBeforeBody, TestStalledBodyCutOff) and the reference
// server's (server/e2e TestOneBudget*) cover them in place.
package httpguard

import (
	"io"
	"net"
	"net/http"
	"time"
)

// ClientAddr is the host part of r.RemoteAddr: the peer, whatever headers
// say (Guard.ClientAddr reads X-Forwarded-For from trusted proxies).
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// IdleBody returns r.Body behind a read deadline that moves idle ahead
// each time bytes arrive: a client that stops sending is cut off, while
// an upload of any size goes through as long as it flows. Where the
// ResponseWriter cannot set deadlines (tests, some proxies) it returns
// r.Body as it is.
func IdleBody(w http.ResponseWriter, r *http.Request, idle time.Duration) io.ReadCloser {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(idle)); err != nil {
		return r.Body
	}
	return &idleReader{r: r.Body, rc: rc, idle: idle}
}

type idleReader struct {
	r    io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
	last time.Time
}

func (b *idleReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		// Moving the deadline is a syscall-free field write, but keep it to
		// once per 100 ms anyway.
		if now := time.Now(); now.Sub(b.last) > 100*time.Millisecond {
			b.last = now
			_ = b.rc.SetReadDeadline(now.Add(b.idle))
		}
	}
	if err == io.EOF {
		// The body is done: no deadline for the rest of the exchange.
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

func (b *idleReader) Close() error { return b.r.Close() }
