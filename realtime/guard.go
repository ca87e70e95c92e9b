package realtime

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/internal/wire"
)

// Guard is the limits a Handler shares with the server's other front
// ends (Config.Guard): failed authentications per client address and
// requests per project, one budget across every endpoint and listener.
// *httpapi.Guard implements it.
type Guard interface {
	// AuthAllowed reports whether r may have credential (an API key or a
	// temporary token) checked now; when not, how long until it may.
	AuthAllowed(r *http.Request, credential string) (retryAfter time.Duration, ok bool)
	// AuthFailed counts a failed authentication of r's client.
	AuthFailed(r *http.Request)
	// AuthSucceeded notes that credential authenticated from r's client.
	AuthSucceeded(r *http.Request, credential string)
	// Allow spends one request of project's budget; when refused, how
	// long until a request would pass. wait lets it wait briefly for one.
	Allow(ctx context.Context, project string, wait bool) (retryAfter time.Duration, ok bool)
}

// headerKey is the API key of r's authorization header (raw, or
// "Bearer <key>"), as httpapi.Authenticate reads it.
func headerKey(r *http.Request) string {
	key := strings.TrimSpace(r.Header.Get("Authorization"))
	if k, ok := strings.CutPrefix(key, "Bearer "); ok {
		key = strings.TrimSpace(k)
	}
	return key
}

// seconds formats a wait as whole seconds, at least 1.
func seconds(d time.Duration) string {
	return strconv.Itoa(int(max(d, time.Second).Seconds() + 0.999))
}

// authorize returns the project of a token or API key, and the token's
// hash when a token was used (checkCredentials), under Config.Guard: an
// address over its failed-auth limit is closed with 1013 before its
// credential is looked at (unless the Guard knows it good), every
// credential refused with 4001 counts as a failure, and a connection over
// its project's request budget is closed with 1013.
func (h *Handler) authorize(ctx context.Context, r *http.Request, tok string, resume bool) (project, tokHash string, err error) {
	g := h.cfg.Guard
	if g == nil {
		return h.checkCredentials(ctx, r, tok, resume)
	}
	cred := tok
	if cred == "" {
		cred = headerKey(r)
	}
	if wait, ok := g.AuthAllowed(r, cred); !ok {
		return "", "", ErrReconnectsExhausted.with("Too many failed authentications from this address; try again in %s s", seconds(wait))
	}
	project, tokHash, err = h.checkCredentials(ctx, r, tok, resume)
	if errors.Is(err, ErrNotAuthorized) {
		g.AuthFailed(r)
	}
	if err != nil {
		return "", "", err
	}
	g.AuthSucceeded(r, cred)
	if wait, ok := g.Allow(ctx, project, false); !ok {
		return "", "", ErrReconnectsExhausted.with("Too many requests: the rate limit of this project is exceeded; try again in %s s", seconds(wait))
	}
	return project, tokHash, nil
}

// tokenAuth authenticates a POST /v2/realtime/token request under
// Config.Guard, answering a refusal itself (429 with Retry-After, or 401).
func (h *Handler) tokenAuth(w http.ResponseWriter, r *http.Request) (string, bool) {
	g := h.cfg.Guard
	key := headerKey(r)
	if g != nil {
		if wait, ok := g.AuthAllowed(r, key); !ok {
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", seconds(wait))
			wire.WriteJSON(w, http.StatusTooManyRequests, ErrorMessage{Error: "Too many requests: too many failed authentications from this address; try again later"})
			return "", false
		}
	}
	project, ok := h.cfg.Authenticate(r)
	if !ok {
		if g != nil {
			g.AuthFailed(r)
		}
		w.Header().Set("Connection", "close")
		wire.WriteJSON(w, http.StatusUnauthorized, ErrorMessage{Error: "Authentication error, API token missing/invalid"})
		return "", false
	}
	if g != nil {
		g.AuthSucceeded(r, key)
	}
	return project, true
}

// projectCap is how many live sessions project may hold now: at most
// MaxSessionsPerProject, and, with ProjectShare below 1 and an Admission
// that knows its capacity, at most that share of the capacity (at least
// one session), so that no project can hold every session the server
// carries. The second result says whether the share set the cap.
func (h *Handler) projectCap() (n int, share bool) {
	n = h.cfg.MaxSessionsPerProject
	c, ok := h.cfg.Admission.(interface{ Capacity() int })
	if !ok || h.cfg.ProjectShare >= 1 {
		return n, false
	}
	if s := max(1, int(math.Floor(h.cfg.ProjectShare*float64(c.Capacity())+1e-9))); s < n {
		return s, true
	}
	return n, false
}
