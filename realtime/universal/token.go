package universal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/internal/wire"
	"github.com/earshot-dev/earshot/realtime"
)

// Limits of GET /v3/token.
const (
	MinTokenExpiresIn       = 1 * time.Second
	MaxTokenExpiresIn       = 600 * time.Second
	MinTokenSessionDuration = 60 * time.Second
	MaxTokenSessionDuration = 3 * time.Hour
)

// A v3 token is 64 hex characters (32 random bytes), a dot and the
// session duration it allows in seconds (0: the server's). The
// StateStore keeps only the SHA-256 of the whole string, so the duration
// cannot be changed without making the token unknown.
func newTokenString(maxSession time.Duration) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("universal: generating token: %w", err)
	}
	return hex.EncodeToString(b[:]) + "." + strconv.Itoa(int(maxSession/time.Second)), nil
}

// tokenSessionDuration reads the session duration a v3 token allows; ok
// is false for a string that is not a v3 token (a v2 token among them).
func tokenSessionDuration(tok string) (time.Duration, bool) {
	h, secs, ok := strings.Cut(tok, ".")
	if !ok || len(h) != 64 {
		return 0, false
	}
	if _, err := hex.DecodeString(h); err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(secs)
	if err != nil || n < 0 || n > int(MaxTokenSessionDuration/time.Second) || strconv.Itoa(n) != secs {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

type tokenError struct {
	Error string `json:"error"`
}

// TokenHandler serves GET /v3/token?expires_in_seconds=N
// [&max_session_duration_seconds=M]: API-key auth (401; with the Guard,
// 429 and Retry-After for an address over its failed-auth limit),
// expires_in_seconds an integer 1..600 (how long the token may start a
// session), max_session_duration_seconds an integer 60..10800 (the
// session's expires_at; default Config.MaxSessionDuration), any other
// parameter 400; 200 {"token": "..."}; 429 when the project holds
// realtime.MaxUnusedTokens unused tokens. Every response is JSON.
func (h *Handler) TokenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			wire.WriteJSON(w, http.StatusMethodNotAllowed, tokenError{"method not allowed; use GET"})
			return
		}
		project, ok := h.tokenAuth(w, r)
		if !ok {
			return
		}
		q := r.URL.Query()
		for k, v := range q {
			if k != "expires_in_seconds" && k != "max_session_duration_seconds" {
				wire.WriteJSON(w, http.StatusBadRequest, tokenError{fmt.Sprintf("unknown query parameter %q (use expires_in_seconds and max_session_duration_seconds)", k)})
				return
			}
			if len(v) > 1 {
				wire.WriteJSON(w, http.StatusBadRequest, tokenError{fmt.Sprintf("%s is given %d times", k, len(v))})
				return
			}
		}
		if !q.Has("expires_in_seconds") {
			wire.WriteJSON(w, http.StatusBadRequest, tokenError{"expires_in_seconds is required"})
			return
		}
		exp, err := intValue(q.Get("expires_in_seconds"))
		if err != nil || exp < int64(MinTokenExpiresIn/time.Second) || exp > int64(MaxTokenExpiresIn/time.Second) {
			wire.WriteJSON(w, http.StatusBadRequest, tokenError{fmt.Sprintf("expires_in_seconds must be an integer from %d to %d, got %q",
				int(MinTokenExpiresIn.Seconds()), int(MaxTokenExpiresIn.Seconds()), q.Get("expires_in_seconds"))})
			return
		}
		var maxSession time.Duration
		if q.Has("max_session_duration_seconds") {
			v := q.Get("max_session_duration_seconds")
			n, err := intValue(v)
			if err != nil || n < int64(MinTokenSessionDuration/time.Second) || n > int64(MaxTokenSessionDuration/time.Second) {
				wire.WriteJSON(w, http.StatusBadRequest, tokenError{fmt.Sprintf("max_session_duration_seconds must be an integer from %d to %d, got %q",
					int(MinTokenSessionDuration.Seconds()), int(MaxTokenSessionDuration.Seconds()), v)})
				return
			}
			maxSession = time.Duration(n) * time.Second
		}
		tok, err := h.NewToken(r.Context(), project, time.Duration(exp)*time.Second, maxSession)
		if errors.Is(err, realtime.ErrTooManyTokens) {
			wire.WriteJSON(w, http.StatusTooManyRequests, tokenError{"too many unused temporary tokens; let some expire first"})
			return
		}
		if err != nil {
			h.cfg.Logger.Error("v3 token not issued", "project", project, "err", err.Error())
			wire.WriteJSON(w, http.StatusInternalServerError, tokenError{"could not issue a token: the session store is unavailable"})
			return
		}
		wire.WriteJSON(w, http.StatusOK, struct {
			Token string `json:"token"`
		}{tok})
	})
}

// NewToken issues a single-use v3 temporary token of projectID that can
// start a session for expiresIn; maxSession (0: Config.MaxSessionDuration)
// bounds that session's duration.
func (h *Handler) NewToken(ctx context.Context, projectID string, expiresIn, maxSession time.Duration) (string, error) {
	tok, err := newTokenString(maxSession)
	if err != nil {
		return "", err
	}
	now := h.cfg.Now()
	err = h.cfg.State.AddToken(ctx, realtime.TokenRecord{Hash: realtime.TokenHash(tok), Project: projectID, Expires: now.Add(expiresIn)}, now, realtime.MaxUnusedTokens)
	if err != nil {
		if errors.Is(err, realtime.ErrTooManyTokens) {
			return "", realtime.ErrTooManyTokens
		}
		return "", fmt.Errorf("universal: recording the token: %w", err)
	}
	return tok, nil
}

// headerKey is the API key of r's authorization header (raw or Bearer).
func headerKey(r *http.Request) string {
	key := strings.TrimSpace(r.Header.Get("Authorization"))
	if k, ok := strings.CutPrefix(key, "Bearer "); ok {
		key = strings.TrimSpace(k)
	}
	return key
}

func retrySeconds(d time.Duration) string {
	return strconv.Itoa(int(max(d, time.Second).Seconds() + 0.999))
}

// tokenAuth authenticates a token request under the Guard, answering a
// refusal itself.
func (h *Handler) tokenAuth(w http.ResponseWriter, r *http.Request) (string, bool) {
	g := h.cfg.Guard
	key := headerKey(r)
	if g != nil {
		if wait, ok := g.AuthAllowed(r, key); !ok {
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", retrySeconds(wait))
			wire.WriteJSON(w, http.StatusTooManyRequests, tokenError{"Too many requests: too many failed authentications from this address; try again later"})
			return "", false
		}
	}
	project, ok := h.cfg.Authenticate(r)
	if !ok {
		if g != nil {
			g.AuthFailed(r)
		}
		w.Header().Set("Connection", "close")
		wire.WriteJSON(w, http.StatusUnauthorized, tokenError{"Authentication error, API token missing/invalid"})
		return "", false
	}
	if g != nil {
		g.AuthSucceeded(r, key)
	}
	return project, true
}
