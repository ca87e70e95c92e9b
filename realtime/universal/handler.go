package universal

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/transcribe"
)

// readLimit bounds one client frame: 1 s of 48 kHz PCM is 96 KB; a larger
// limit lets an oversized chunk get the 3007 close, not a protocol error.
const readLimit = 4 << 20

// stateTimeout bounds one StateStore call.
const stateTimeout = 5 * time.Second

// endedRetention is how long a session record outlives its session.
const endedRetention = 10 * time.Minute

// Handler serves GET /v3/ws (Universal-Streaming sessions) and, through
// TokenHandler, GET /v3/token. Safe for concurrent use; Close stops it.
type Handler struct {
	cfg Config

	mu       sync.Mutex
	live     map[string]int // project -> live and opening sessions
	sessions map[*Session]struct{}
	closed   bool
	done     chan struct{}
	wg       sync.WaitGroup
}

// NewHandler validates cfg (Engine.Recognizer and Authenticate are
// required).
func NewHandler(cfg Config) (*Handler, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Handler{cfg: cfg, live: map[string]int{}, sessions: map[*Session]struct{}{}, done: make(chan struct{})}, nil
}

// Close closes every connection with 1001 and refuses new ones (1013).
func (h *Handler) Close() error {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
	h.mu.Unlock()
	h.wg.Wait()
	return nil
}

// LiveSessions returns the number of live v3 sessions of projectID on
// this process.
func (h *Handler) LiveSessions(projectID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.live[projectID]
}

// ServeHTTP upgrades to a WebSocket and runs a session.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	opts := &websocket.AcceptOptions{InsecureSkipVerify: len(h.cfg.OriginPatterns) == 0, OriginPatterns: h.cfg.OriginPatterns}
	c, err := websocket.Accept(w, r, opts)
	if err != nil {
		return // Accept wrote the HTTP error
	}
	defer c.CloseNow()
	c.SetReadLimit(readLimit)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		conn := &wsConn{c: c, timeout: h.cfg.WriteTimeout}
		conn.fail(r.Context(), errorf(CloseTryAgainLater, "the server is shutting down"))
		return
	}
	h.wg.Add(1)
	h.mu.Unlock()
	defer h.wg.Done()
	ctx := r.Context()
	conn := &wsConn{c: c, timeout: h.cfg.WriteTimeout}
	s, project, e := h.open(ctx, r)
	if e != nil {
		h.cfg.Logger.Info("v3 session refused", "code", e.Code, "reason", e.Text)
		conn.fail(ctx, e)
		return
	}
	defer h.finish(s, project)
	if err := conn.send(ctx, append([]any{s.Begin()}, s.Warnings()...)...); err != nil {
		return
	}
	h.run(ctx, conn, s, project)
}

// open authenticates r, checks its query and limits, opens the engine
// session and records it.
func (h *Handler) open(ctx context.Context, r *http.Request) (*Session, string, *Error) {
	q := r.URL.Query()
	project, tokHash, maxDur, e := h.authorize(ctx, r, q.Get("token"))
	if e != nil {
		return nil, "", e
	}
	opts, e := parseQuery(q)
	if e != nil {
		return nil, "", e
	}
	h.mu.Lock()
	n := h.live[project]
	if h.cfg.ProjectSessions != nil {
		n += h.cfg.ProjectSessions(project)
	}
	if n >= h.cfg.MaxSessionsPerProject {
		h.mu.Unlock()
		return nil, "", errorf(CloseTooManySessions, "Too many concurrent sessions: this project holds %d; the limit is %d", n, h.cfg.MaxSessionsPerProject)
	}
	h.live[project]++
	h.mu.Unlock()
	ok := false
	defer func() {
		if !ok {
			h.release(project)
		}
	}()
	eng, e := h.openEngine(ctx, opts)
	if e != nil {
		return nil, "", e
	}
	id := h.cfg.NewID()
	if maxDur == 0 {
		maxDur = h.cfg.MaxSessionDuration
	}
	s := newSession(sessionConfig{
		now: h.cfg.Now, idle: h.cfg.IdleTimeout, rateLead: h.cfg.RateLimitLead, language: h.cfg.Language,
		onTranscript: h.cfg.OnTranscript, maxDuration: maxDur, sessionID: id, endpointingOf: endpointing,
		logf: func(msg string, args ...any) { h.cfg.Logger.Warn(msg, args...) },
	}, eng, opts)
	rec := realtime.SessionRecord{
		ID: id, Project: project, TokenHash: tokHash,
		Options: realtime.SessionOptions{ProjectID: project, SampleRate: opts.SampleRate, Encoding: realtime.Encoding(opts.Encoding), WordBoost: opts.Keyterms},
		Started: s.started, ExpiresAt: s.expiresAt, State: realtime.StateStreaming,
		Owner: h.cfg.ProcessID, Attached: true, LeaseUntil: s.expiresAt,
		PurgeAfter: s.expiresAt.Add(endedRetention),
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stateTimeout)
	err := h.cfg.State.CreateSession(sctx, rec)
	cancel()
	if err != nil {
		_ = eng.Abort()
		if errors.Is(err, realtime.ErrTokenUsed) {
			h.authFailed(r)
			return nil, "", errorf(CloseUnauthorized, "Unauthorized connection: temporary token already used (a token starts one session)")
		}
		h.cfg.Logger.Error("v3 session not recorded", "session", id, "err", err.Error())
		return nil, "", errorf(CloseServerError, "Session Cancelled: the session store is unavailable")
	}
	ok = true
	h.mu.Lock()
	h.sessions[s] = struct{}{}
	h.mu.Unlock()
	if h.cfg.OnSession != nil {
		h.cfg.OnSession(realtime.SessionEvent{Kind: realtime.SessionBegan, Session: id, Project: project})
	}
	h.cfg.Logger.Info("v3 session began", "session", id, "project", project, "sample_rate", opts.SampleRate, "format_turns", opts.FormatTurns)
	return s, project, nil
}

// openEngine asks the Admission and opens the recognizer stream within
// StreamWait.
func (h *Handler) openEngine(ctx context.Context, opts Options) (*engine.Session, *Error) {
	var ticket realtime.Ticket
	opened := func() bool { return false }
	if h.cfg.Admission != nil {
		t, err := h.cfg.Admission.Admit()
		if err != nil {
			h.cfg.Logger.Info("v3 session not admitted", "err", err.Error())
			return nil, errorf(CloseTryAgainLater, "the server is at capacity; try again later")
		}
		if t != nil {
			ticket = t
			ctx, opened = realtime.WithTicket(ctx, t)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, h.cfg.StreamWait)
	defer cancel()
	ep := endpointing(opts.Settings)
	eng, err := engine.New(sctx, h.cfg.Engine, engine.Options{
		SampleRate: opts.SampleRate, Encoding: engine.Encoding(opts.Encoding), WordBoost: opts.Keyterms, Endpointing: &ep,
	})
	if ticket != nil && !opened() {
		ticket.Release()
	}
	if err == nil {
		return eng, nil
	}
	if sctx.Err() != nil && ctx.Err() == nil {
		return nil, errorf(CloseTryAgainLater, "no recognizer free within %v; try again later", h.cfg.StreamWait)
	}
	var pe *transcribe.ParamError
	if errors.As(err, &pe) {
		return nil, invalid("%s", pe.Error())
	}
	h.cfg.Logger.Error("v3 recognizer stream not opened", "err", err.Error())
	if r, ok := engine.CrashReason(err); ok {
		return nil, errorf(CloseServerError, "Session Cancelled: %s", r)
	}
	return nil, errorf(CloseServerError, "Session Cancelled: could not start a recognizer stream")
}

func (h *Handler) release(project string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.live[project]--; h.live[project] <= 0 {
		delete(h.live, project)
	}
}

// finish records the end of s and frees its slot (once; the transport
// calls it before a session's last messages go out, so that the record and
// the hooks know of the end before the client does).
func (h *Handler) finish(s *Session, project string) {
	s.finishOnce.Do(func() { h.finishOnce(s, project) })
}

func (h *Handler) finishOnce(s *Session, project string) {
	s.Abort()
	h.release(project)
	h.mu.Lock()
	delete(h.sessions, s)
	h.mu.Unlock()
	now := h.cfg.Now()
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	for range 3 {
		rec, err := h.cfg.State.GetSession(ctx, s.ID())
		if err == nil {
			rec.State, rec.Attached, rec.EndedAt, rec.PurgeAfter = realtime.StateTerminated, false, now, now.Add(endedRetention)
			rec.AudioSamples = int64(s.AudioDuration() * time.Duration(s.opts.SampleRate) / time.Second)
			_, err = h.cfg.State.UpdateSession(ctx, rec)
		}
		if err == nil || !errors.Is(err, realtime.ErrStateConflict) {
			if err != nil {
				h.cfg.Logger.Warn("v3 session end not recorded", "session", s.ID(), "err", err.Error())
			}
			break
		}
	}
	if h.cfg.OnSession != nil {
		h.cfg.OnSession(realtime.SessionEvent{Kind: realtime.SessionEnded, Session: s.ID(), Project: project,
			State: realtime.StateTerminated, Audio: s.AudioDuration()})
	}
	h.cfg.Logger.Info("v3 session ended", "session", s.ID(), "project", project, "audio_s", s.AudioDuration().Seconds())
}

type frame struct {
	typ websocket.MessageType
	b   []byte
	err error
}

// run is the connection loop: one goroutine reads frames; this one feeds
// the session, ticks its clock and writes its messages.
func (h *Handler) run(ctx context.Context, conn *wsConn, s *Session, project string) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	frames := make(chan frame)
	go func() {
		for {
			typ, b, err := conn.c.Read(ctx)
			select {
			case frames <- frame{typ, b, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	tick := time.NewTicker(h.cfg.TickInterval)
	defer tick.Stop()
	for {
		var msgs []any
		var err error
		select {
		case <-ctx.Done():
			return
		case <-h.done:
			_ = conn.c.Close(websocket.StatusGoingAway, Reason(CloseGoingAway))
			return
		case f := <-frames:
			if f.err != nil {
				return // the client went away
			}
			if f.typ == websocket.MessageBinary {
				msgs, err = s.Audio(f.b)
			} else {
				msgs, err = s.Text(f.b)
			}
		case <-tick.C:
			msgs, err = s.Tick()
		}
		if err != nil {
			h.finish(s, project)
		}
		if werr := conn.send(ctx, msgs...); werr != nil {
			return
		}
		switch {
		case err == nil:
		case errors.Is(err, ErrTerminated):
			_ = conn.c.Close(websocket.StatusNormalClosure, Reason(CloseNormal))
			return
		default:
			var e *Error
			if !errors.As(err, &e) {
				e = errorf(CloseServerError, "Session Cancelled: An error occurred")
			}
			conn.fail(ctx, e)
			return
		}
	}
}

// authorize returns the project of the token or API key (and the token's
// hash and session duration), under the Guard: an address over its
// failed-auth limit gets 1013 before its credential is looked at (unless
// the Guard knows it good); a refused credential 1008 and a failure
// counted; a project over its request budget 1013.
func (h *Handler) authorize(ctx context.Context, r *http.Request, tok string) (project, tokHash string, maxDur time.Duration, e *Error) {
	g := h.cfg.Guard
	cred := tok
	if cred == "" {
		cred = headerKey(r)
	}
	if g != nil {
		if wait, ok := g.AuthAllowed(r, cred); !ok {
			return "", "", 0, errorf(CloseTryAgainLater, "Too many failed authentications from this address; try again in %s s", retrySeconds(wait))
		}
	}
	project, tokHash, maxDur, e = h.credentials(ctx, r, tok)
	if e != nil {
		if e.Code == CloseUnauthorized {
			h.authFailed(r)
		}
		return "", "", 0, e
	}
	if g != nil {
		g.AuthSucceeded(r, cred)
		if wait, ok := g.Allow(ctx, project, false); !ok {
			return "", "", 0, errorf(CloseTryAgainLater, "Too many requests: the rate limit of this project is exceeded; try again in %s s", retrySeconds(wait))
		}
	}
	return project, tokHash, maxDur, nil
}

func (h *Handler) authFailed(r *http.Request) {
	if h.cfg.Guard != nil {
		h.cfg.Guard.AuthFailed(r)
	}
}

func (h *Handler) credentials(ctx context.Context, r *http.Request, tok string) (project, tokHash string, maxDur time.Duration, e *Error) {
	if tok == "" {
		if headerKey(r) == "" {
			return "", "", 0, errorf(CloseUnauthorized, "Unauthorized connection: Missing Authorization header or token query parameter")
		}
		p, ok := h.cfg.Authenticate(r)
		if !ok {
			return "", "", 0, errorf(CloseUnauthorized, "Unauthorized connection: Invalid API key")
		}
		return p, "", 0, nil
	}
	d, ok := tokenSessionDuration(tok)
	if !ok {
		return "", "", 0, errorf(CloseUnauthorized, "Unauthorized connection: Invalid temporary token (v3 tokens come from GET /v3/token)")
	}
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	rec, err := h.cfg.State.Token(sctx, realtime.TokenHash(tok))
	switch {
	case errors.Is(err, realtime.ErrStateNotFound):
		return "", "", 0, errorf(CloseUnauthorized, "Unauthorized connection: Invalid temporary token")
	case err != nil:
		h.cfg.Logger.Error("v3 token lookup failed", "err", err.Error())
		return "", "", 0, errorf(CloseServerError, "Session Cancelled: the session store is unavailable")
	case rec.Session != "":
		return "", "", 0, errorf(CloseUnauthorized, "Unauthorized connection: temporary token already used (a token starts one session)")
	case !h.cfg.Now().Before(rec.Expires):
		return "", "", 0, errorf(CloseUnauthorized, "Unauthorized connection: temporary token expired")
	}
	return rec.Project, rec.Hash, d, nil
}

// wsConn writes messages to one WebSocket.
type wsConn struct {
	c       *websocket.Conn
	timeout time.Duration
}

func (w *wsConn) send(ctx context.Context, msgs ...any) error {
	for _, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, w.timeout)
		err = w.c.Write(wctx, websocket.MessageText, b)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// fail sends e's Error message and closes with its code.
func (w *wsConn) fail(ctx context.Context, e *Error) {
	_ = w.send(ctx, e.Message())
	_ = w.c.Close(websocket.StatusCode(e.Code), Reason(e.Code))
}
