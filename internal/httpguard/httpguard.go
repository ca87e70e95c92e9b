// Package httpguard holds the guards both HTTP front ends (httpapi, the
// AssemblyAI API, and httpapi/openaiapi, OpenAI's audio API) put in front
// of their handlers: the client's address, a per-address limit on failed
// authentications, and request bodies that must keep flowing. Written here
// rather than taken from a library because each is a few lines over
// golang.org/x/time/rate and net/http's ResponseController. The tests of
// both front ends exercise them (httpapi: TestAuthFailuresRateLimited,
// TestUnauthorizedBeforeBody, TestStalledBodyCutOff).
package httpguard

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// ClientAddr is the host part of r.RemoteAddr (the peer; proxies' headers
// are not trusted).
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// AddrLimiter is a token bucket per client address for failed
// authentications. Buckets idle for 10 minutes are dropped, so the map
// stays small under a spray of addresses. Safe for concurrent use.
type AddrLimiter struct {
	mu      sync.Mutex
	rate    rate.Limit
	burst   int
	buckets map[string]*addrBucket
	swept   time.Time
}

type addrBucket struct {
	lim  *rate.Limiter
	last time.Time
}

// NewAddrLimiter allows perSecond failures per address, burst at once.
func NewAddrLimiter(perSecond float64, burst int) *AddrLimiter {
	return &AddrLimiter{rate: rate.Limit(perSecond), burst: burst, buckets: map[string]*addrBucket{}}
}

// Blocked reports whether addr has no failures left to spend.
func (l *AddrLimiter) Blocked(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[addr]
	return ok && b.lim.Tokens() < 1
}

// Fail spends one token of addr.
func (l *AddrLimiter) Fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.last) > 10*time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[addr]
	if !ok {
		b = &addrBucket{lim: rate.NewLimiter(l.rate, l.burst)}
		l.buckets[addr] = b
	}
	b.last = now
	b.lim.AllowN(now, 1)
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
