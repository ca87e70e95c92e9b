package realtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/internal/wire"
)

// readLimit bounds one client frame: 2 s of 48 kHz PCM is 192 KB, 256 KB
// in base64; a larger limit lets oversized audio get the 4033 close
// rather than a protocol error.
const readLimit = 4 << 20

// endedRetention is how long an ended session is remembered (so that a
// resume gets 4010 or 4008 rather than 4004).
const endedRetention = 10 * time.Minute

// Handler serves the realtime WebSocket endpoints:
//
//	GET /v2/realtime/ws               start a session
//	GET /v2/realtime/ws/{session_id}  resume a session
//
// and, through TokenHandler, POST /v2/realtime/token. Temporary tokens
// and session records live in Config.State, which Handlers of several
// processes may share; the sessions whose recognizer streams this process
// holds live here. Safe for concurrent use; Close stops it.
type Handler struct {
	cfg Config
	st  StateStore
	me  string // Config.ProcessID
	log *slog.Logger

	mu       sync.Mutex
	sessions map[string]*Session      // sessions whose stream this process holds (ended ones for a while)
	recs     map[string]SessionRecord // the last record of each, as this process wrote or read it
	pending  map[string]int           // project -> sessions being opened
	closed   bool
	frozen   bool // Close has written its records: no more writes

	done chan struct{}
	wg   sync.WaitGroup
}

// NewHandler validates cfg (Recognizer and Authenticate are required)
// and starts the handler's housekeeping goroutine (resume grace, expiry,
// leases, purging the state), which Close stops.
func NewHandler(cfg Config) (*Handler, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(true); err != nil {
		return nil, err
	}
	if cfg.State == nil {
		cfg.State = NewMemoryState()
		if cfg.StateInterval == 0 {
			cfg.StateInterval = min(cfg.TickInterval, cfg.SessionLease/3)
		}
	}
	if cfg.StateInterval == 0 {
		cfg.StateInterval = cfg.SessionLease / 3
	}
	h := &Handler{
		cfg:      cfg,
		st:       cfg.State,
		me:       cfg.ProcessID,
		log:      cfg.Logger,
		sessions: make(map[string]*Session),
		recs:     make(map[string]SessionRecord),
		pending:  make(map[string]int),
		done:     make(chan struct{}),
	}
	h.wg.Add(1)
	go h.janitor()
	return h, nil
}

// Close ends every session of this process and stops housekeeping. Open
// connections are closed with 1001 (going away). Sessions that had not
// ended stay resumable, within their grace, on the other processes that
// share Config.State.
func (h *Handler) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	close(h.done)
	ss := make([]*Session, 0, len(h.sessions))
	for _, s := range h.sessions {
		ss = append(ss, s)
	}
	h.mu.Unlock()
	h.wg.Wait()
	now := h.cfg.Now()
	for _, s := range ss {
		if s.State().Ended() {
			continue
		}
		h.mu.Lock()
		s.attached = false
		s.detachAt = now
		h.mu.Unlock()
		h.syncSession(s)
	}
	h.mu.Lock()
	h.frozen = true
	h.mu.Unlock()
	for _, s := range ss {
		s.Abort(StateTerminated)
	}
	return nil
}

// Session returns a session whose recognizer stream this process holds
// (or held until it ended, for a while), or nil.
func (h *Handler) Session(id string) *Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// LiveSessions returns how many sessions of projectID this process holds
// live (streaming, or waiting for a resume); "" counts all projects.
func (h *Handler) LiveSessions(projectID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.liveLocked(projectID)
}

func (h *Handler) liveLocked(projectID string) int {
	n := 0
	if projectID == "" {
		for _, p := range h.pending {
			n += p
		}
	} else {
		n = h.pending[projectID]
	}
	for _, s := range h.sessions {
		if (projectID == "" || s.opts.ProjectID == projectID) && !s.State().Ended() {
			n++
		}
	}
	return n
}

func (h *Handler) janitor() {
	defer h.wg.Done()
	t := time.NewTicker(h.cfg.TickInterval)
	defer t.Stop()
	var lastSync, lastPurge time.Time
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
			h.sweep()
			if time.Since(lastSync) >= h.cfg.StateInterval {
				lastSync = time.Now()
				h.syncState()
			}
			// Purging is housekeeping: at most once a second.
			if time.Since(lastPurge) >= max(h.cfg.StateInterval, time.Second) {
				lastPurge = time.Now()
				h.purge()
			}
		}
	}
}

// sweep expires detached sessions whose grace passed and forgets ended
// sessions past their retention.
func (h *Handler) sweep() {
	now := h.cfg.Now()
	var expire []*Session
	h.mu.Lock()
	for id, s := range h.sessions {
		ended := s.State().Ended()
		if !ended && !s.attached && (now.Sub(s.detachAt) >= h.cfg.ResumeGrace || !now.Before(s.expiresAt)) {
			expire = append(expire, s)
		}
		// Ended sessions are kept for endedRetention (or the resume
		// grace, if longer); they hold no audio buffers or stream by
		// then. Their records outlive them as long in State.
		if ended && s.endSeen.IsZero() {
			s.endSeen = now
		}
		if ended && now.Sub(s.endSeen) >= max(endedRetention, h.cfg.ResumeGrace) {
			delete(h.sessions, id)
			delete(h.recs, id)
		}
	}
	h.mu.Unlock()
	for _, s := range expire {
		s.log.Info("realtime: session not resumed within the grace; expired", "grace", h.cfg.ResumeGrace)
		s.Abort(StateExpired)
		h.syncSession(s)
	}
}

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

// sessionIDFromPath returns the {session_id} of a resume request, or ""
// for a new session. It accepts the handler mounted at any prefix ending
// in /v2/realtime/ws, and Go 1.22 mux patterns naming {session_id}.
func sessionIDFromPath(r *http.Request) string {
	if id := r.PathValue("session_id"); id != "" {
		return id
	}
	p := r.URL.Path
	const base = "/v2/realtime/ws"
	if i := strings.LastIndex(p, base); i >= 0 {
		return strings.Trim(p[i+len(base):], "/")
	}
	return ""
}

// ServeHTTP upgrades to a WebSocket and runs a new or resumed session.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	opts := &websocket.AcceptOptions{InsecureSkipVerify: len(h.cfg.OriginPatterns) == 0, OriginPatterns: h.cfg.OriginPatterns}
	c, err := websocket.Accept(w, r, opts)
	if err != nil {
		return // Accept wrote the HTTP error
	}
	defer c.CloseNow()
	c.SetReadLimit(readLimit)
	ctx := r.Context()
	conn := &wsConn{c: c, timeout: h.cfg.WriteTimeout, log: h.log}

	s, first, err := h.open(ctx, r)
	if err != nil {
		conn.fail(ctx, err)
		return
	}
	if err := conn.send(ctx, first); err != nil {
		h.detach(s)
		return
	}
	h.run(ctx, conn, s)
}

// open authenticates the request and starts or resumes its session,
// returning the first message to send.
func (h *Handler) open(ctx context.Context, r *http.Request) (*Session, Message, error) {
	q := r.URL.Query()
	id := sessionIDFromPath(r)
	project, tokHash, err := h.authorize(ctx, r, q.Get("token"), id != "")
	if err != nil {
		return nil, nil, err
	}
	if id != "" {
		s, err := h.resume(ctx, id, project, tokHash)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Resumed(), nil
	}
	opts, err := parseQuery(q)
	if err != nil {
		return nil, nil, err
	}
	opts.ProjectID = project
	s, err := h.startStream(ctx, project, func(ctx context.Context) (*Session, error) {
		return NewSession(ctx, h.cfg, opts)
	})
	if err != nil {
		return nil, nil, err
	}
	now := h.cfg.Now()
	rec := SessionRecord{
		ID: s.id, Project: project, TokenHash: tokHash, Options: s.opts,
		Started: s.started, ExpiresAt: s.expiresAt, State: StateBegins,
		Owner: h.me, Attached: true, LeaseUntil: now.Add(h.cfg.SessionLease),
		SilenceThreshold: DefaultSilenceThreshold,
		PurgeAfter:       s.expiresAt.Add(max(endedRetention, h.cfg.ResumeGrace)),
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stateTimeout)
	err = h.st.CreateSession(sctx, rec)
	cancel()
	if err != nil {
		h.unreserve(project)
		s.Abort(StateTerminated)
		if errors.Is(err, ErrTokenUsed) {
			return nil, nil, ErrNotAuthorized.with("Not Authorized: temporary token already used")
		}
		s.log.Error("realtime: recording the new session", "err", err)
		return nil, nil, ErrRecognizer.with("could not record the session: the session store is unavailable")
	}
	rec.Version = 1
	if err := h.register(s, rec); err != nil {
		return nil, nil, err
	}
	return s, s.Begins(), nil
}

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

// parseQuery reads the session options of a new session.
func parseQuery(q map[string][]string) (SessionOptions, error) {
	get := func(k string) (string, bool) {
		v, ok := q[k]
		if !ok || len(v) == 0 {
			return "", false
		}
		return v[0], true
	}
	var o SessionOptions
	o.SampleRate = DefaultSampleRate
	if v, ok := get("sample_rate"); ok && v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			// Clients built on floats send "16000.0".
			if f, ferr := strconv.ParseFloat(v, 64); ferr == nil && f == float64(int(f)) {
				n, err = int(f), nil
			}
		}
		if err != nil || n <= 0 {
			return o, ErrBadSampleRate.with("sample_rate must be a positive integer, got %q", v)
		}
		if n < MinSampleRate || n > MaxSampleRate {
			return o, ErrBadSampleRate.with("sample_rate must be between %d and %d, got %d", MinSampleRate, MaxSampleRate, n)
		}
		o.SampleRate = n
	}
	if v, ok := get("encoding"); ok && v != "" {
		switch Encoding(v) {
		case EncodingPCMS16LE, EncodingPCMMulaw:
			o.Encoding = Encoding(v)
		default:
			return o, ErrBadSchema.with("encoding must be pcm_s16le or pcm_mulaw, got %q", v)
		}
	}
	if v, ok := get("word_boost"); ok && v != "" {
		if len(v) > MaxWordBoostChars {
			return o, ErrBadWordBoost.with("word_boost is %d characters long; the most is %d", len(v), MaxWordBoostChars)
		}
		var wb []string
		if err := json.Unmarshal([]byte(v), &wb); err != nil {
			return o, ErrBadWordBoost.with("Could not parse word boost parameter: it must be a JSON list of strings")
		}
		for _, w := range wb {
			if w = strings.TrimSpace(w); w != "" {
				o.WordBoost = append(o.WordBoost, w)
			}
		}
	}
	var err error
	if o.DisablePartialTranscripts, err = queryBool(q, "disable_partial_transcripts"); err != nil {
		return o, err
	}
	if o.EnableExtraSessionInformation, err = queryBool(q, "enable_extra_session_information"); err != nil {
		return o, err
	}
	return o, nil
}

func queryBool(q map[string][]string, k string) (bool, error) {
	v := q[k]
	if len(v) == 0 || v[0] == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v[0])
	if err != nil {
		return false, ErrBadSchema.with("%s must be true or false, got %q", k, v[0])
	}
	return b, nil
}

// wsConn writes messages to one WebSocket.
type wsConn struct {
	c       *websocket.Conn
	timeout time.Duration
	log     *slog.Logger
}

func (w *wsConn) send(ctx context.Context, msgs ...Message) error {
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

// fail sends {"error": ...} and closes with the error's code. Errors
// that are not *CloseError close with 1011 and a generic message; their
// text goes to the log.
func (w *wsConn) fail(ctx context.Context, err error) {
	var ce *CloseError
	if !errors.As(err, &ce) {
		w.log.Error("realtime: internal error; closing the connection", "err", err)
		ce = ErrRecognizer
	}
	_ = w.send(ctx, ErrorMessage{Error: ce.Message()})
	_ = w.c.Close(websocket.StatusCode(ce.Code), ce.Reason)
}

type frame struct {
	typ websocket.MessageType
	b   []byte
	err error
}

// run is the connection loop: one goroutine reads frames, this one feeds
// the session, ticks its clock and writes its messages.
func (h *Handler) run(ctx context.Context, conn *wsConn, s *Session) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	frames := make(chan frame)
	var lastFrame atomic.Int64 // unix nanoseconds of the last frame read
	lastFrame.Store(time.Now().UnixNano())
	go func() {
		for {
			typ, b, err := conn.c.Read(ctx)
			lastFrame.Store(time.Now().UnixNano())
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
	if h.cfg.PingInterval > 0 {
		go func() {
			t := time.NewTicker(h.cfg.PingInterval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					pctx, pcancel := context.WithTimeout(ctx, h.cfg.PingInterval)
					err := conn.c.Ping(pctx)
					pcancel()
					// A client that sends but never reads cannot answer
					// pings; its frames show it is alive.
					quiet := time.Since(time.Unix(0, lastFrame.Load()))
					if err != nil && quiet >= 2*h.cfg.PingInterval {
						cancel() // the client is gone
						return
					}
				}
			}
		}()
	}
	tick := time.NewTicker(h.cfg.TickInterval)
	defer tick.Stop()
	for {
		var msgs []Message
		var err error
		select {
		case <-ctx.Done():
			// Unanswered ping or the request ended: keep the session for a
			// resume.
			h.detach(s)
			return
		case <-h.done:
			_ = conn.c.Close(websocket.StatusGoingAway, "server shutting down")
			return
		case f := <-frames:
			if f.err != nil {
				// Dropped without terminate_session: keep the session for
				// a resume.
				h.detach(s)
				return
			}
			if f.typ == websocket.MessageBinary {
				msgs, err = s.Audio(f.b)
			} else {
				msgs, err = s.HandleText(f.b)
			}
		case <-tick.C:
			msgs, err = s.Tick()
		}
		// A session that ended is recorded before its last messages go
		// out: a client that reconnects (to any process) as soon as it
		// sees SessionTerminated or the close finds the end recorded.
		ended := err != nil || s.State().Ended()
		if ended {
			h.detach(s)
		}
		if werr := conn.send(ctx, msgs...); werr != nil {
			if !ended {
				h.detach(s)
			}
			return
		}
		if err != nil {
			if errors.Is(err, ErrSessionEnded) {
				err = ErrSessionClosed
				if h.Session(s.id) != s {
					// Another process took the session over (this one
					// lost its lease) or ended it.
					err = ErrUniqueSession.with("the session continues on another connection")
				}
			}
			conn.fail(ctx, err)
			return
		}
		if ended {
			// terminate_session: SessionTerminated was the last message.
			_ = conn.c.Close(websocket.StatusNormalClosure, "")
			return
		}
	}
}
