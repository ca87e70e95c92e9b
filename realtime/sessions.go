package realtime

import (
	"context"
	"errors"
	"net/http"
)

// startStream reserves a session slot of project (4102 beyond
// MaxSessionsPerProject or the project's share of the capacity), runs newSession within Config.StreamWait (1013
// when no recognizer stream frees up in time) and maps its errors to close
// codes. On success the slot stays reserved until register or unreserve.
func (h *Handler) startStream(ctx context.Context, project string, newSession func(context.Context) (*Session, error)) (*Session, error) {
	limit, share := h.projectCap() // guard.go
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrReconnectsExhausted.with("server is shutting down")
	}
	if n := h.liveLocked(project); n >= limit {
		h.mu.Unlock()
		if share {
			return nil, ErrTooManyStreams.with("too many concurrent sessions: this project holds %d, its share (%g) of the sessions this server carries; try again when one ends", n, h.cfg.ProjectShare)
		}
		return nil, ErrTooManyStreams.with("too many concurrent sessions: the limit is %d", limit)
	}
	// Reserve the slot while the stream opens.
	h.pending[project]++
	h.mu.Unlock()

	sctx, cancel := context.WithTimeout(ctx, h.cfg.StreamWait)
	s, err := h.admitted(sctx, newSession) // asks Config.Admission (admission.go)
	busy := sctx.Err() != nil && ctx.Err() == nil
	cancel()
	if err == nil {
		return s, nil
	}
	h.unreserve(project)
	if busy {
		return nil, ErrReconnectsExhausted.with("no recognizer free within %v; try again later", h.cfg.StreamWait)
	}
	ce := openClose(err) // by type: errors.go
	if ce.Code == CloseInternalServerError {
		h.log.Error("realtime: could not start a recognizer stream", "project", project, "err", err)
	}
	return nil, ce
}

// unreserve gives back a slot startStream reserved.
func (h *Handler) unreserve(project string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending[project]--; h.pending[project] <= 0 {
		delete(h.pending, project)
	}
}

// register makes s (attached, with its record rec) one of this
// process's sessions, in place of the slot startStream reserved.
func (h *Handler) register(s *Session, rec SessionRecord) error {
	h.mu.Lock()
	if h.pending[rec.Project]--; h.pending[rec.Project] <= 0 {
		delete(h.pending, rec.Project)
	}
	if h.closed {
		h.mu.Unlock()
		s.Abort(StateTerminated)
		return ErrReconnectsExhausted.with("server is shutting down")
	}
	s.attached = true
	h.sessions[s.id] = s
	h.recs[s.id] = rec
	h.mu.Unlock()
	return nil
}

// checkCredentials returns the project of a token or API key, and the
// token's hash when a token was used. resume says whether the connection
// resumes a session: a used token may resume its own session (resume
// checks which), an unused one only start one. authorize (guard.go) calls
// it under Config.Guard.
func (h *Handler) checkCredentials(ctx context.Context, r *http.Request, tok string, resume bool) (project, tokHash string, err error) {
	if tok == "" {
		project, ok := h.cfg.Authenticate(r)
		if !ok {
			return "", "", ErrNotAuthorized
		}
		return project, "", nil
	}
	if !isV2Token(tok) {
		// Tokens of other protocols share the store (Universal-Streaming's
		// carry their own session limit); a v2 connection takes only the
		// tokens POST /v2/realtime/token issues.
		return "", "", ErrNotAuthorized
	}
	hash := TokenHash(tok)
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	t, err := h.st.Token(sctx, hash)
	if errors.Is(err, ErrStateNotFound) {
		return "", "", ErrNotAuthorized
	}
	if err != nil {
		return "", "", ErrRecognizer.with("could not check the token: the session store is unavailable")
	}
	if t.Session == "" && h.cfg.Now().After(t.Expires) {
		return "", "", ErrNotAuthorized.with("Not Authorized: temporary token expired")
	}
	if t.Session != "" && !resume {
		return "", "", ErrNotAuthorized.with("Not Authorized: temporary token already used")
	}
	return t.Project, hash, nil
}

// resume claims session id for this connection: the record in State
// decides (4004, 4001, 4008, 4010, 4030, 1013), and a claim (a
// compare-and-swap of the record) makes this process its owner. The
// session continues on the recognizer stream this process still holds
// when it held the session all along, else on a fresh stream that
// continues the recorded audio position (restoreSession).
func (h *Handler) resume(ctx context.Context, id, project, tokHash string) (*Session, error) {
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	var prev, claimed SessionRecord
	for attempt := 0; ; attempt++ {
		rec, err := h.st.GetSession(sctx, id)
		if errors.Is(err, ErrStateNotFound) {
			return nil, ErrSessionNotFound.with("Session not found: %s", id)
		}
		if err != nil {
			return nil, ErrRecognizer.with("could not read the session: the session store is unavailable")
		}
		now := h.cfg.Now()
		if rec.Project != project || !now.Before(rec.PurgeAfter) {
			return nil, ErrSessionNotFound.with("Session not found: %s", id)
		}
		if tokHash != "" && rec.TokenHash != tokHash {
			return nil, ErrNotAuthorized.with("Not Authorized: the token belongs to another session")
		}
		h.mu.Lock()
		local := h.sessions[id]
		owned := local != nil && h.recs[id].Owner == h.me
		localAttached := owned && local.attached
		h.mu.Unlock()
		if owned && local.State().Ended() {
			// Ended here, and perhaps not recorded yet.
			rec.State = local.State()
		}
		switch {
		case rec.State == StateExpired:
			h.endLocal(id, StateExpired)
			return nil, ErrSessionExpired
		case rec.State == StateTerminated:
			h.endLocal(id, StateTerminated)
			return nil, ErrSessionClosed
		case !now.Before(rec.ExpiresAt):
			h.endRecord(sctx, rec, StateExpired)
			return nil, ErrSessionExpired
		case localAttached || rec.Attached && now.Before(rec.LeaseUntil):
			return nil, ErrUniqueSession.with("session %s already has a connection", id)
		case now.Sub(detachedSince(rec)) >= h.cfg.ResumeGrace:
			h.endRecord(sctx, rec, StateExpired)
			return nil, ErrSessionExpired.with("Session Expired: not resumed within %v", h.cfg.ResumeGrace)
		case rec.Resumes >= h.cfg.MaxResumes:
			h.endRecord(sctx, rec, StateTerminated)
			return nil, ErrReconnectsExhausted.with("reconnect attempts exhausted: a session may be resumed %d times", h.cfg.MaxResumes)
		}
		next := rec
		next.Resumes++
		next.Owner = h.me
		next.Attached = true
		next.LeaseUntil = now.Add(h.cfg.SessionLease)
		out, err := h.st.UpdateSession(sctx, next)
		if errors.Is(err, ErrStateConflict) && attempt < 5 {
			continue // another process wrote meanwhile: decide again
		}
		if err != nil {
			return nil, ErrRecognizer.with("could not claim the session: the session store is unavailable")
		}
		prev, claimed = rec, out
		break
	}

	// The same stream, when this process held the session all along.
	h.mu.Lock()
	local := h.sessions[id]
	if local != nil && prev.Owner == h.me && h.recs[id].Version == prev.Version && !local.State().Ended() {
		local.attached = true
		h.recs[id] = claimed
		h.mu.Unlock()
		local.touch(h.cfg.Now())
		return local, nil
	}
	if local != nil {
		delete(h.sessions, id)
		delete(h.recs, id)
	}
	h.mu.Unlock()
	if local != nil {
		local.Abort(StateTerminated) // a stale copy: release its stream
	}
	s, err := h.startStream(ctx, project, func(ctx context.Context) (*Session, error) {
		return restoreSession(ctx, h.cfg, claimed)
	})
	if err == nil {
		err = h.register(s, claimed)
	}
	if err != nil {
		// Give the claim back as it was: detached since when it was,
		// the failed attempt not counted.
		back := prev
		back.Version = claimed.Version
		bctx, bcancel := context.WithTimeout(context.WithoutCancel(ctx), stateTimeout)
		if _, berr := h.st.UpdateSession(bctx, back); berr != nil {
			h.log.Warn("realtime: giving a session's claim back", "session", id, "err", berr)
		}
		bcancel()
		return nil, err
	}
	s.log.Info("realtime: session resumed on this process", "held_by", prev.Owner)
	return s, nil
}

// detach marks s as having no connection (or, for an ended session, as
// done with its connection) and writes its record.
func (h *Handler) detach(s *Session) {
	h.mu.Lock()
	s.attached = false
	s.detachAt = h.cfg.Now()
	h.mu.Unlock()
	h.syncSession(s)
}

// isV2Token reports whether tok has the form newToken issues: 64
// lower-case hex characters.
func isV2Token(tok string) bool {
	if len(tok) != 64 {
		return false
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
