package httpapi

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/earshot-dev/earshot/internal/httpguard"
)

// authenticated authenticates r. A failure is answered here: 401 (or 429
// when the client address has failed too often), with Connection: close,
// before a byte of the body is read, so a client with a bad key cannot
// hold the connection by trickling a body.
func (a *API) authenticated(w http.ResponseWriter, r *http.Request) (string, bool) {
	addr := httpguard.ClientAddr(r)
	if a.authFail != nil && a.authFail.Blocked(addr) {
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "Too many requests: too many failed authentications from this address")
		return "", false
	}
	project, ok := a.Authenticate(r)
	if !ok {
		if a.authFail != nil {
			a.authFail.Fail(addr)
		}
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusUnauthorized, "Authentication error, API token missing/invalid")
		return "", false
	}
	return project, true
}

// body returns r.Body behind a read deadline that moves BodyIdleTimeout
// ahead each time bytes arrive (httpguard.IdleBody).
func (a *API) body(w http.ResponseWriter, r *http.Request) io.ReadCloser {
	return httpguard.IdleBody(w, r, a.cfg.BodyIdleTimeout)
}

// retryAfter formats a wait as whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(int(max(d, time.Second).Seconds() + 0.999))
}
