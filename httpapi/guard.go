package httpapi

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// authenticated authenticates r. A failure is answered here: 401 (or 429
// when the client address has failed too often), with Connection: close,
// before a byte of the body is read, so a client with a bad key cannot
// hold the connection by trickling a body.
func (a *API) authenticated(w http.ResponseWriter, r *http.Request) (string, bool) {
	addr := clientAddr(r)
	if a.authFail != nil && a.authFail.blocked(addr) {
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "Too many requests: too many failed authentications from this address")
		return "", false
	}
	project, ok := a.Authenticate(r)
	if !ok {
		if a.authFail != nil {
			a.authFail.fail(addr)
		}
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusUnauthorized, "Authentication error, API token missing/invalid")
		return "", false
	}
	return project, true
}

// clientAddr is the host part of r.RemoteAddr (the peer; proxies' headers
// are not trusted).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// addrLimiter is a token bucket per client address for failed
// authentications. Buckets idle for long are dropped so the map stays
// small under a spray of addresses.
type addrLimiter struct {
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

func newAddrLimiter(perSecond float64, burst int) *addrLimiter {
	return &addrLimiter{rate: rate.Limit(perSecond), burst: burst, buckets: map[string]*addrBucket{}}
}

// blocked reports whether addr has no failures left to spend.
func (l *addrLimiter) blocked(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[addr]
	return ok && b.lim.Tokens() < 1
}

// fail spends one token of addr.
func (l *addrLimiter) fail(addr string) {
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

// body returns r.Body behind a read deadline that moves BodyIdleTimeout
// ahead each time bytes arrive: a client that stops sending is cut off,
// while an upload of any size goes through as long as it flows.
func (a *API) body(w http.ResponseWriter, r *http.Request) io.ReadCloser {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(a.cfg.BodyIdleTimeout)); err != nil {
		return r.Body // not supported by this ResponseWriter (tests, HTTP/2 proxies): no deadline
	}
	return &idleReader{r: r.Body, rc: rc, idle: a.cfg.BodyIdleTimeout}
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

// retryAfter formats a wait as whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(int(max(d, time.Second).Seconds() + 0.999))
}
