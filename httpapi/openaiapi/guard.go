package openaiapi

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// This file repeats, in a few lines, the guards httpapi puts in front of
// the AssemblyAI API (its are unexported): a per-address limit on failed
// authentications, and a body that must keep flowing.

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
// authentications; buckets idle for 10 minutes are dropped.
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
// ahead each time bytes arrive.
func (h *Handler) body(w http.ResponseWriter, r *http.Request) io.Reader {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(h.cfg.BodyIdleTimeout)); err != nil {
		return r.Body // not supported by this ResponseWriter: no deadline
	}
	return &idleReader{r: r.Body, rc: rc, idle: h.cfg.BodyIdleTimeout}
}

type idleReader struct {
	r    io.Reader
	rc   *http.ResponseController
	idle time.Duration
	last time.Time
}

func (b *idleReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		if now := time.Now(); now.Sub(b.last) > 100*time.Millisecond {
			b.last = now
			_ = b.rc.SetReadDeadline(now.Add(b.idle))
		}
	}
	if err == io.EOF {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// capReader reads at most n bytes of r, and notes whether r had more and
// the error r ended with, if not io.EOF (a body cut off mid-file), so that
// such a file is refused whatever the BlobStore makes of the error.
type capReader struct {
	r    io.Reader
	n    int64
	over bool
	err  error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n < 0 {
		c.over = true
		return 0, errOverCap
	}
	if int64(len(p)) > c.n+1 {
		p = p[:c.n+1]
	}
	n, err := c.r.Read(p)
	if c.n -= int64(n); c.n < 0 {
		c.over = true
		return n, errOverCap
	}
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

var errOverCap = &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeInvalidRequest, Param: "file", Message: "The file is too large."}
