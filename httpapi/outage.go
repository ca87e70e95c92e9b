package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// DefaultStoreTimeout is Config.StoreTimeout's default.
const DefaultStoreTimeout = 5 * time.Second

// outageRetryAfter is the Retry-After, in seconds, of a 503 answered
// while a store is unavailable.
const outageRetryAfter = 2

// errStoreTimeout is the cause of a request context cut off by its store
// deadline (Config.StoreTimeout).
var errStoreTimeout = errors.New("httpapi: the store did not answer within the request's store timeout")

// storeTimeout is the effective Config.StoreTimeout: 0 for none.
func (a *API) storeTimeout() time.Duration {
	switch d := a.cfg.StoreTimeout; {
	case d < 0:
		return 0
	case d == 0:
		return DefaultStoreTimeout
	default:
		return d
	}
}

// withStoreDeadline bounds the time a request may spend on everything but
// reading its body: its context is cancelled (cause errStoreTimeout) once
// StoreTimeout has passed outside body reads. The clock stops while the
// body is read (an upload of any length streams on, bounded by
// BodyIdleTimeout instead) and starts afresh when the body ends, so an
// upload's record before its bytes and its check after them are each
// bounded, and so is everything a JSON request does once its body is in.
// The returned func releases the clock; call it when the handler returns.
func (a *API) withStoreDeadline(r *http.Request) (*http.Request, func()) {
	d := a.storeTimeout()
	if d <= 0 {
		return r, func() {}
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	c := &storeClock{d: d}
	c.t = time.AfterFunc(d, func() { cancel(errStoreTimeout) })
	r = r.WithContext(ctx)
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &clockedBody{ReadCloser: r.Body, c: c}
	}
	return r, func() {
		c.t.Stop()
		cancel(nil)
	}
}

// storeClock is a request's store deadline, paused while its body is read.
type storeClock struct {
	d       time.Duration
	t       *time.Timer
	mu      sync.Mutex
	reading bool
	ended   bool
}

func (c *storeClock) bodyRead(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	if err != nil {
		c.ended = true
		if c.reading {
			c.t.Reset(c.d) // the body is in: the rest is store work
		}
		return
	}
	if !c.reading {
		c.reading = true
		c.t.Stop()
	}
}

// clockedBody pauses its storeClock from the first read to the end of the
// body (EOF or an error).
type clockedBody struct {
	io.ReadCloser
	c *storeClock
}

func (b *clockedBody) Read(p []byte) (int, error) {
	b.c.bodyRead(nil)
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.c.bodyRead(err)
	}
	return n, err
}

// outage reports whether err means that a store (the database, the blob
// store) is unavailable, with the short reason a 503 gives: the request's
// store deadline passed, the store was closed (the server is stopping),
// or the error is a connection failure (refused, reset, cut, timed out:
// net.Error, the connection errnos, io.ErrUnexpectedEOF or io.EOF from a
// driver — errors of the request body never get here, see bodyError) or
// a database error of SQLSTATE class 08 (connection exception), 53
// (insufficient resources), 57 (operator intervention: shutdown, recovery)
// or 58 (system error), or a serialization failure or deadlock (40001,
// 40P01), all of which go away on their own.
func (a *API) outage(ctx context.Context, err error) (string, bool) {
	if errors.Is(context.Cause(ctx), errStoreTimeout) {
		return fmt.Sprintf("Service unavailable: storage did not answer within %s; try again shortly", a.storeTimeout()), true
	}
	if errors.Is(err, transcribe.ErrClosed) {
		return "Service unavailable: the server is shutting down; try again shortly", true
	}
	if unavailable(err) {
		return "Service unavailable: storage is not answering; try again shortly", true
	}
	return "", false
}

// unavailable reports whether err is a store's failure to answer (see
// outage) rather than a fault of the request or of the data: a failure a
// client should retry.
func unavailable(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	var state interface{ SQLState() string }
	var retry interface{ SafeToRetry() bool }
	switch {
	case errors.As(err, &ne):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH):
		return true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, context.DeadlineExceeded):
		return true
	case errors.As(err, &state):
		code := state.SQLState()
		if len(code) == 5 {
			switch code[:2] {
			case "08", "53", "57", "58":
				return true
			}
		}
		return code == "40001" || code == "40P01"
	case errors.As(err, &retry):
		return retry.SafeToRetry()
	}
	return false
}
