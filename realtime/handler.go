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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/internal/wire"
	"github.com/earshot-dev/earshot/transcribe"
)

// readLimit bounds one client frame: 2 s of 48 kHz PCM is 192 KB, 256 KB
// in base64; a larger limit lets oversized audio get the 4033 close
// rather than a protocol error.
const readLimit = 4 << 20

// endedRetention is how long the Handler remembers an ended session.
const endedRetention = 10 * time.Minute

// Handler serves the realtime WebSocket endpoints:
//
//	GET /v2/realtime/ws               start a session
//	GET /v2/realtime/ws/{session_id}  resume a session
//
// and, through TokenHandler, POST /v2/realtime/token. It owns the
// registry of sessions and temporary tokens. Safe for concurrent use;
// Close stops it.
type Handler struct {
	cfg Config

	mu       sync.Mutex
	sessions map[string]*Session
	tokens   map[string]*tempToken
	pending  map[string]int // project -> sessions being opened
	unused   map[string]int // project -> minted tokens not yet used
	closed   bool

	done chan struct{}
	wg   sync.WaitGroup
}

type tempToken struct {
	project string
	expires time.Time
	session string // the session it started, "" while unused
}

// NewHandler validates cfg (Recognizer and Authenticate are required)
// and starts the handler's housekeeping goroutine (resume grace, expiry,
// token clean-up), which Close stops.
func NewHandler(cfg Config) (*Handler, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(true); err != nil {
		return nil, err
	}
	h := &Handler{
		cfg:      cfg,
		sessions: make(map[string]*Session),
		tokens:   make(map[string]*tempToken),
		pending:  make(map[string]int),
		unused:   make(map[string]int),
		done:     make(chan struct{}),
	}
	h.wg.Add(1)
	go h.janitor()
	return h, nil
}

// Close ends every session and stops housekeeping. Open connections are
// closed with 1001 (going away).
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
	for _, s := range ss {
		s.Abort(StateTerminated)
	}
	return nil
}

// Session returns a registered session by id, or nil.
func (h *Handler) Session(id string) *Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// LiveSessions returns how many sessions of projectID are live
// (streaming, or waiting for a resume); "" counts all projects.
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
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
			h.sweep()
		}
	}
}

// sweep expires detached sessions whose grace passed, forgets ended
// sessions past their expiry and drops expired tokens.
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
		// grace, if longer) so that a resume gets 4010/4008 rather than
		// 4004; they hold no audio buffers or stream by then.
		if ended && s.endSeen.IsZero() {
			s.endSeen = now
		}
		if ended && now.Sub(s.endSeen) >= max(endedRetention, h.cfg.ResumeGrace) {
			delete(h.sessions, id)
			if s.token != "" {
				delete(h.tokens, s.token)
			}
		}
	}
	for k, t := range h.tokens {
		if t.session == "" && now.After(t.expires) {
			delete(h.tokens, k)
			h.useToken(t)
		}
	}
	h.mu.Unlock()
	for _, s := range expire {
		s.logf("session %s: not resumed within %v; expired", s.id, h.cfg.ResumeGrace)
		s.Abort(StateExpired)
	}
}

// NewToken mints a temporary token for projectID valid for expiresIn:
// less than MinTokenExpiresIn is an error, more than
// Config.MaxTokenExpiresIn is clamped. The token starts one session and
// authorizes that session's resumes. It fails with ErrTooManyTokens when
// the project holds MaxUnusedTokens unused ones.
func (h *Handler) NewToken(projectID string, expiresIn time.Duration) (string, error) {
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
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.unused[projectID] >= MaxUnusedTokens {
		return "", ErrTooManyTokens
	}
	h.tokens[tok] = &tempToken{project: projectID, expires: h.cfg.Now().Add(expiresIn)}
	h.unused[projectID]++
	return tok, nil
}

// useToken takes t off its project's count of unused tokens.
func (h *Handler) useToken(t *tempToken) {
	if h.unused[t.project]--; h.unused[t.project] <= 0 {
		delete(h.unused, t.project)
	}
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
		project, ok := h.cfg.Authenticate(r)
		if !ok {
			wire.WriteJSON(w, http.StatusUnauthorized, ErrorMessage{Error: "Authentication error, API token missing/invalid"})
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
		tok, err := h.NewToken(project, d)
		if errors.Is(err, ErrTooManyTokens) {
			wire.WriteJSON(w, http.StatusTooManyRequests, ErrorMessage{Error: "too many unused temporary tokens; let some expire first"})
			return
		}
		if err != nil {
			wire.WriteJSON(w, http.StatusInternalServerError, ErrorMessage{Error: err.Error()})
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
	conn := &wsConn{c: c, timeout: h.cfg.WriteTimeout}

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
	project, tok, err := h.authorize(r, q.Get("token"))
	if err != nil {
		return nil, nil, err
	}
	if id := sessionIDFromPath(r); id != "" {
		s, err := h.resume(id, project, tok)
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

	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, nil, ErrReconnectsExhausted.with("server is shutting down")
	}
	if tok != "" {
		if t := h.tokens[tok]; t == nil || t.session != "" {
			h.mu.Unlock()
			return nil, nil, ErrNotAuthorized.with("Not Authorized: temporary token already used")
		}
	}
	if h.liveLocked(project) >= h.cfg.MaxSessionsPerProject {
		h.mu.Unlock()
		return nil, nil, ErrTooManyStreams.with("too many concurrent sessions: the limit is %d", h.cfg.MaxSessionsPerProject)
	}
	// Reserve the slot while the stream opens.
	h.pending[project]++
	h.mu.Unlock()

	sctx, cancel := context.WithTimeout(ctx, h.cfg.StreamWait)
	s, err := NewSession(sctx, h.cfg, opts)
	busy := sctx.Err() != nil && ctx.Err() == nil
	cancel()

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending[project]--; h.pending[project] == 0 {
		delete(h.pending, project)
	}
	if err != nil {
		var ce *CloseError
		if errors.As(err, &ce) {
			return nil, nil, err
		}
		if busy {
			return nil, nil, ErrReconnectsExhausted.with("no recognizer free within %v; try again later", h.cfg.StreamWait)
		}
		var pe *transcribe.ParamError
		if errors.As(err, &pe) {
			if pe.Field == "word_boost" {
				return nil, nil, ErrBadWordBoost.with("%s", pe.Error())
			}
			return nil, nil, ErrBadSchema.with("%s", pe.Error())
		}
		s := fmt.Sprintf("could not start a recognizer stream: %v", err)
		return nil, nil, ErrRecognizer.with("%s", s)
	}
	if h.closed {
		s.Abort(StateTerminated)
		return nil, nil, ErrReconnectsExhausted.with("server is shutting down")
	}
	if tok != "" {
		t := h.tokens[tok]
		if t == nil || t.session != "" { // raced with another connection
			s.Abort(StateTerminated)
			return nil, nil, ErrNotAuthorized.with("Not Authorized: temporary token already used")
		}
		t.session = s.id
		h.useToken(t)
		s.token = tok
	}
	s.attached = true
	h.sessions[s.id] = s
	return s, s.Begins(), nil
}

// authorize returns the project of a token or API key; tok is the token
// when one was used.
func (h *Handler) authorize(r *http.Request, tok string) (project, usedToken string, err error) {
	if tok != "" {
		h.mu.Lock()
		defer h.mu.Unlock()
		t := h.tokens[tok]
		if t == nil {
			return "", "", ErrNotAuthorized
		}
		if t.session == "" && h.cfg.Now().After(t.expires) {
			return "", "", ErrNotAuthorized.with("Not Authorized: temporary token expired")
		}
		return t.project, tok, nil
	}
	project, ok := h.cfg.Authenticate(r)
	if !ok {
		return "", "", ErrNotAuthorized
	}
	return project, "", nil
}

func (h *Handler) resume(id, project, tok string) (*Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[id]
	if s == nil || s.opts.ProjectID != project {
		return nil, ErrSessionNotFound.with("Session not found: %s", id)
	}
	if tok != "" && s.token != tok {
		return nil, ErrNotAuthorized.with("Not Authorized: the token belongs to another session")
	}
	now := h.cfg.Now()
	switch st := s.State(); {
	case st == StateExpired:
		return nil, ErrSessionExpired
	case st == StateTerminated:
		return nil, ErrSessionClosed
	case !now.Before(s.expiresAt):
		s.Abort(StateExpired)
		return nil, ErrSessionExpired
	case s.attached:
		return nil, ErrUniqueSession.with("session %s already has a connection", id)
	case now.Sub(s.detachAt) >= h.cfg.ResumeGrace:
		s.Abort(StateExpired)
		return nil, ErrSessionExpired.with("Session Expired: not resumed within %v", h.cfg.ResumeGrace)
	case s.resumes >= h.cfg.MaxResumes:
		s.Abort(StateTerminated)
		return nil, ErrReconnectsExhausted.with("reconnect attempts exhausted: a session may be resumed %d times", h.cfg.MaxResumes)
	}
	s.resumes++
	s.attached = true
	s.mu.Lock()
	s.lastAudio = now
	s.mu.Unlock()
	return s, nil
}

func (h *Handler) detach(s *Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.attached = false
	s.detachAt = h.cfg.Now()
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
// that are not *CloseError close with 1011.
func (w *wsConn) fail(ctx context.Context, err error) {
	var ce *CloseError
	if !errors.As(err, &ce) {
		ce = ErrRecognizer.with("%v", err)
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
		if werr := conn.send(ctx, msgs...); werr != nil {
			if err == nil && !s.State().Ended() {
				h.detach(s)
			}
			return
		}
		if err != nil {
			if errors.Is(err, ErrSessionEnded) {
				err = ErrSessionClosed
			}
			conn.fail(ctx, err)
			h.detach(s)
			return
		}
		if s.State().Ended() {
			// terminate_session: SessionTerminated was the last message.
			_ = conn.c.Close(websocket.StatusNormalClosure, "")
			h.detach(s)
			return
		}
	}
}
