package realtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/earshot-dev/earshot/internal/wire"
)

// NewToken mints a temporary token for projectID valid for expiresIn:
// less than MinTokenExpiresIn is an error, more than
// Config.MaxTokenExpiresIn is clamped. The token starts one session and
// authorizes that session's resumes. It fails with ErrTooManyTokens when
// the project holds MaxUnusedTokens unused ones.
func (h *Handler) NewToken(projectID string, expiresIn time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	return h.newToken(ctx, projectID, expiresIn)
}

func (h *Handler) newToken(ctx context.Context, projectID string, expiresIn time.Duration) (string, error) {
	if expiresIn < MinTokenExpiresIn {
		return "", fmt.Errorf("realtime: expires_in must be at least %d seconds", int(MinTokenExpiresIn.Seconds()))
	}
	if expiresIn > h.cfg.MaxTokenExpiresIn {
		expiresIn = h.cfg.MaxTokenExpiresIn
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("realtime: generating token: %w", err)
	}
	tok := hex.EncodeToString(b[:])
	now := h.cfg.Now()
	err := h.st.AddToken(ctx, TokenRecord{Hash: TokenHash(tok), Project: projectID, Expires: now.Add(expiresIn)}, now, MaxUnusedTokens)
	if err != nil {
		if errors.Is(err, ErrTooManyTokens) {
			return "", ErrTooManyTokens
		}
		return "", fmt.Errorf("realtime: recording the token: %w", err)
	}
	return tok, nil
}

// MaxUnusedTokens caps the temporary tokens of one project that are
// neither used nor expired; NewToken fails with ErrTooManyTokens (HTTP
// 429) beyond it.
const MaxUnusedTokens = 10000

// ErrTooManyTokens is returned by NewToken when the project has
// MaxUnusedTokens outstanding tokens.
var ErrTooManyTokens = errors.New("realtime: too many unused temporary tokens")

// TokenHandler serves POST /v2/realtime/token: API-key auth (401),
// JSON body {"expires_in": seconds} with at least 60 (400), values above
// Config.MaxTokenExpiresIn clamped; 200 {"token": "..."}. Every response
// is application/json.
func (h *Handler) TokenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			wire.WriteJSON(w, http.StatusMethodNotAllowed, ErrorMessage{Error: "method not allowed; use POST"})
			return
		}
		project, ok := h.tokenAuth(w, r) // guard.go
		if !ok {
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if err != nil {
			wire.WriteJSON(w, http.StatusBadRequest, ErrorMessage{Error: "could not read request body"})
			return
		}
		var req struct {
			ExpiresIn *json.Number `json:"expires_in"`
		}
		var raw struct {
			ExpiresIn json.RawMessage `json:"expires_in"`
		}
		if err := json.Unmarshal(body, &raw); err == nil && len(raw.ExpiresIn) > 0 && raw.ExpiresIn[0] == '"' {
			wire.WriteJSON(w, http.StatusBadRequest, ErrorMessage{Error: "expires_in must be an integer number of seconds"})
			return
		}
		if err := json.Unmarshal(body, &req); err != nil {
			wire.WriteJSON(w, http.StatusBadRequest, ErrorMessage{Error: "request body must be a JSON object with expires_in"})
			return
		}
		if req.ExpiresIn == nil {
			wire.WriteJSON(w, http.StatusBadRequest, ErrorMessage{Error: "expires_in is required"})
			return
		}
		secs, err := req.ExpiresIn.Int64()
		if err != nil {
			wire.WriteJSON(w, http.StatusBadRequest, ErrorMessage{Error: "expires_in must be an integer number of seconds"})
			return
		}
		if secs < int64(MinTokenExpiresIn/time.Second) {
			wire.WriteJSON(w, http.StatusBadRequest, ErrorMessage{Error: fmt.Sprintf("expires_in must be at least %d seconds", int(MinTokenExpiresIn.Seconds()))})
			return
		}
		d := h.cfg.MaxTokenExpiresIn
		if secs < int64(d/time.Second) {
			d = time.Duration(secs) * time.Second
		}
		tok, err := h.newToken(r.Context(), project, d)
		if errors.Is(err, ErrTooManyTokens) {
			wire.WriteJSON(w, http.StatusTooManyRequests, ErrorMessage{Error: "too many unused temporary tokens; let some expire first"})
			return
		}
		if err != nil {
			h.log.Error("realtime: minting a temporary token", "project", project, "err", err)
			wire.WriteJSON(w, http.StatusInternalServerError, ErrorMessage{Error: "internal server error: could not record the token; try again later"})
			return
		}
		wire.WriteJSON(w, http.StatusOK, struct {
			Token string `json:"token"`
		}{tok})
	})
}
