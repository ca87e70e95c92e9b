package realtime

import (
	"log/slog"
	"sync"
	"time"
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
