package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

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
	// sample_rate is required by the API, but the Go SDK (v1.4.0 to at
	// least v1.10.0) leaves it out unless WithRealTimeSampleRate is used,
	// documenting 16000 as the default: absent, it is 16000. Present, it
	// must be a usable rate; an empty value is refused like any other.
	o.SampleRate = DefaultSampleRate
	if v, ok := get("sample_rate"); ok {
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
