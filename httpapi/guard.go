package httpapi

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/earshot-dev/earshot/internal/httpguard"
)

// Guard holds the limits every front end of a server shares: requests
// per project (a token bucket; GETs wait up to two seconds for a token,
// other requests are refused with 429 and Retry-After) and failed
// authentications per client address (beyond them the address gets 429
// before its key is looked at, except for keys that authenticated from
// that address within the last hour, so an attacker guessing keys does
// not lock out the valid ones used beside him). IPv6 clients are counted
// per /64. The client address is the peer's, or, from a peer in
// GuardConfig.TrustedProxies, the rightmost X-Forwarded-For address that
// is not a trusted proxy. Make one with NewGuard and give it to
// Config.Guard, realtime.Config.Guard and openaiapi.Config.Guard. Its
// methods: ClientAddr, Allow, AuthAllowed, AuthFailed, AuthSucceeded.
type Guard = httpguard.Guard

// GuardConfig configures NewGuard: RateLimit (requests per second per
// project, default 50, negative: none), RateBurst (default 100),
// AuthFailureRate (failed authentications per second per address,
// default 5, negative: none), AuthFailureBurst (default 10 times the
// rate) and TrustedProxies (default none; ParseTrustedProxies reads a
// comma-separated list).
type GuardConfig = httpguard.Config

// NewGuard returns a Guard, or an error naming a bad field.
func NewGuard(cfg GuardConfig) (*Guard, error) { return httpguard.New(cfg) }

// ParseTrustedProxies parses a comma-separated list of CIDR prefixes or
// addresses (EARSHOT_TRUSTED_PROXIES) for GuardConfig.TrustedProxies.
var ParseTrustedProxies = httpguard.ParseTrustedProxies

// authenticated authenticates r. A failure is answered here: 401 (or 429
// when the client address has failed too often and the key is not one
// known good from there), with Connection: close, before a byte of the
// body is read, so a client with a bad key cannot hold the connection by
// trickling a body.
func (a *API) authenticated(w http.ResponseWriter, r *http.Request) (string, bool) {
	key := httpguard.Credential(r)
	if wait, ok := a.guard.AuthAllowed(r, key); !ok {
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", retryAfter(wait))
		writeError(w, http.StatusTooManyRequests, "Too many requests: too many failed authentications from this address; try again later")
		return "", false
	}
	project, ok := a.Authenticate(r)
	if !ok {
		a.guard.AuthFailed(r)
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusUnauthorized, "Authentication error, API token missing/invalid")
		return "", false
	}
	a.guard.AuthSucceeded(r, key)
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
