package universal

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

// Audio message limits (3007 outside them).
const (
	MinChunk = 50 * time.Millisecond
	MaxChunk = 1000 * time.Millisecond
)

// ErrTerminated is returned (with the Termination message) when the
// session ended normally: by Terminate or the inactivity timeout. The
// transport closes with 1000.
var ErrTerminated = errors.New("universal: session terminated")

// ErrEnded is returned by calls on a session that already ended.
var ErrEnded = errors.New("universal: session ended")

// sessionConfig is what a Session needs of the Handler's Config.
type sessionConfig struct {
	now           func() time.Time
	idle          time.Duration // inactivity limit when the client set none
	rateLead      time.Duration
	language      string
	onTranscript  func(realtime.TranscriptEvent)
	logf          func(msg string, args ...any)
	profanity     textfmt.ProfanityFilter
	maxDuration   time.Duration
	sessionID     string
	endpointingOf func(Settings) engine.Endpointing
}

// Session is one v3 session over an engine.Session: it turns client
// frames and the passing of time into v3 messages. It does no I/O. Safe
// for concurrent use.
type Session struct {
	cfg sessionConfig
	eng *engine.Session

	mu           sync.Mutex
	opts         Options
	started      time.Time
	expiresAt    time.Time
	lastActivity time.Time // audio or KeepAlive
	bucket       time.Duration
	bucketAt     time.Time
	shortLen     time.Duration // a short audio message that must be the last (0: none)
	turnOrder    int
	ended        bool

	arrivals     []arrival
	partialEndMs int64

	finishOnce sync.Once // Handler.finish
}

type arrival struct {
	endMs int64
	at    time.Time
}

func newSession(cfg sessionConfig, eng *engine.Session, opts Options) *Session {
	now := cfg.now()
	return &Session{
		cfg: cfg, eng: eng, opts: opts,
		started: now, expiresAt: now.Add(cfg.maxDuration),
		lastActivity: now, bucketAt: now,
	}
}

// ID returns the session id.
func (s *Session) ID() string { return s.cfg.sessionID }

// Begin returns the session's first message.
func (s *Session) Begin() Begin { return newBegin(s.cfg.sessionID, s.expiresAt) }

// Options returns the session's options as they are now (UpdateConfiguration
// changes Settings).
func (s *Session) Options() Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts
}

// Ended reports whether the session has ended.
func (s *Session) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// AudioDuration is the audio received so far.
func (s *Session) AudioDuration() time.Duration { return s.eng.AudioDuration() }

// Warnings returns the Warning messages to send right after Begin.
func (s *Session) Warnings() []any {
	if s.opts.SpeechModel != DefaultSpeechModel {
		return []any{newWarning(WarningSpeechModel, fmt.Sprintf(
			"speech_model %s is served by this server's one streaming recognizer (%s)", s.opts.SpeechModel, s.cfg.language))}
	}
	return nil
}

// Audio handles one binary frame of audio. A frame outside MinChunk..
// MaxChunk ends the session (3007), except that one short frame is
// accepted as the last audio before ForceEndpoint, Terminate or a
// disconnect. Audio more than the rate lead ahead of real time is 3007 too.
func (s *Session) Audio(b []byte) ([]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, ErrEnded
	}
	d := s.eng.MessageDuration(len(b))
	if d > MaxChunk || s.shortLen > 0 {
		if d <= MaxChunk {
			d = s.shortLen
		}
		return s.fail(errorf(CloseInputDuration, "Input duration violation: %d ms. Expected between %d and %d ms",
			d.Milliseconds(), MinChunk.Milliseconds(), MaxChunk.Milliseconds()))
	}
	if d < MinChunk {
		s.shortLen = max(d, time.Millisecond)
	}
	now := s.cfg.now()
	s.bucket = max(s.bucket-now.Sub(s.bucketAt), 0) + d
	s.bucketAt = now
	if s.bucket > s.cfg.rateLead {
		return s.fail(errorf(CloseInputDuration, "Audio Transmission Rate Exceeded: audio arrives faster than real time, %.1f s ahead of it", s.bucket.Seconds()))
	}
	s.lastActivity = now
	evs, err := s.eng.Write(b)
	s.arrive(s.eng.AudioDuration().Milliseconds(), now)
	return s.after(evs, err)
}

// Text handles one text frame: Terminate, ForceEndpoint, KeepAlive or
// UpdateConfiguration.
func (s *Session) Text(b []byte) ([]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, ErrEnded
	}
	m, e := parseClient(b, s.opts.Settings)
	if e != nil {
		return s.fail(e)
	}
	switch m.Type {
	case TypeTerminate:
		return s.terminate()
	case TypeForceEndpoint:
		s.shortLen = 0
		return s.after(s.eng.ForceEndpoint())
	case TypeKeepAlive:
		s.lastActivity = s.cfg.now()
		return nil, nil
	}
	// UpdateConfiguration
	if err := s.eng.SetEndpointing(s.cfg.endpointingOf(*m.Update)); err != nil {
		return s.fail(invalid("%v", err))
	}
	var out []any
	if m.KeytermsChanged {
		out = append(out, newWarning(WarningKeytermsFixed,
			"keyterms_prompt cannot change during a session: the recognizer keeps the terms the session began with; start a new session for new terms"))
		m.Update.Keyterms = s.opts.Keyterms
	}
	s.opts.Settings = *m.Update
	return out, nil
}

// Terminate ends the session as Terminate does: the open turn, then
// Termination; the error is ErrTerminated.
func (s *Session) Terminate() ([]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, ErrEnded
	}
	return s.terminate()
}

// Tick applies the clock: the session's maximum duration (3008, after the
// open turn), the inactivity timeout (the open turn, Termination, close
// 1000) and the engine's no-audio endpoint. Transports call it about
// every 100 ms.
func (s *Session) Tick() ([]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, ErrEnded
	}
	now := s.cfg.now()
	if !now.Before(s.expiresAt) {
		evs, _ := s.eng.Close()
		out := s.turns(evs)
		m, err := s.fail(errorf(CloseSessionExpired, "Session Expired: Maximum session duration exceeded (%s)", s.expiresAt.Sub(s.started).Round(time.Second)))
		return append(out, m...), err
	}
	idle := s.opts.InactivityTimeout
	if idle == 0 {
		idle = s.cfg.idle
	}
	if now.Sub(s.lastActivity) >= idle {
		s.cfg.logf("v3 session inactive", "session", s.cfg.sessionID, "inactive", idle.String())
		return s.terminate()
	}
	return s.after(s.eng.Tick())
}

// Abort ends the session without messages (the connection dropped).
func (s *Session) Abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.ended = true
		_ = s.eng.Abort()
	}
}

func (s *Session) terminate() ([]any, error) {
	evs, err := s.eng.Close()
	out := s.turns(evs)
	if err != nil {
		m, e := s.fail(s.recognizerError(err))
		return append(out, m...), e
	}
	s.ended = true
	return append(out, newTermination(s.eng.AudioDuration(), s.cfg.now().Sub(s.started))), ErrTerminated
}

// after turns engine events into messages and maps an engine error.
func (s *Session) after(evs []engine.Event, err error) ([]any, error) {
	out := s.turns(evs)
	if err != nil {
		m, e := s.fail(s.recognizerError(err))
		return append(out, m...), e
	}
	return out, nil
}

// fail ends the session with e (the transport sends e's Error message and
// closes with its code).
func (s *Session) fail(e *Error) ([]any, error) {
	if !s.ended {
		s.ended = true
		_ = s.eng.Abort()
	}
	return nil, e
}

// recognizerError is the close for an engine error: 3005 with the
// crash's sentence or a generic one (the error's own text is logged, never
// sent).
func (s *Session) recognizerError(err error) *Error {
	s.cfg.logf("v3 session recognizer failed", "session", s.cfg.sessionID, "err", err.Error())
	if r, ok := engine.CrashReason(err); ok {
		return errorf(CloseServerError, "Session Cancelled: %s", r)
	}
	return errorf(CloseServerError, "Session Cancelled: the recognizer failed")
}

// turns translates engine events into v3 messages.
func (s *Session) turns(evs []engine.Event) []any {
	var out []any
	for _, ev := range evs {
		switch ev.Kind {
		case engine.SpeechStarted:
			out = append(out, SpeechStarted{Type: TypeSpeechStarted, Timestamp: ev.At})
		case engine.Partial:
			t := s.turn(ev.Words, ev, false, false)
			s.observePartial(ev.Words)
			out = append(out, t)
		case engine.Final:
			out = append(out, s.turn(ev.Words, ev, true, false))
			if s.opts.FormatTurns && len(ev.Formatted) > 0 {
				out = append(out, s.turn(ev.Formatted, ev, true, true))
			}
			s.observeFinal(ev)
			s.turnOrder++
		}
	}
	return out
}

func (s *Session) turn(ws []engine.Word, ev engine.Event, end, formatted bool) Turn {
	t := Turn{
		Type: TypeTurn, TurnOrder: s.turnOrder, TurnIsFormatted: formatted, EndOfTurn: end,
		EndOfTurnConfidence: ev.EndOfTurnConfidence, Words: make([]Word, len(ws)),
	}
	var text []string
	for i, w := range ws {
		txt := w.Text
		if s.opts.FilterProfanity {
			txt = s.cfg.profanity.Censor(txt)
		}
		t.Words[i] = Word{Start: w.Start, End: w.End, Confidence: w.Confidence, Text: txt, WordIsFinal: w.Final || end}
		if t.Words[i].WordIsFinal {
			text = append(text, txt)
		}
	}
	t.Transcript = strings.Join(text, " ")
	if end && s.opts.LanguageDetection {
		t.LanguageCode = s.cfg.language
		if ev.Language != "" {
			t.LanguageCode = ev.Language
		}
		if ev.LanguageConfidence > 0 {
			c := ev.LanguageConfidence
			t.LanguageConfidence = &c
		}
	}
	return t
}

// arrive notes that audio up to endMs arrived at at (for latencies).
func (s *Session) arrive(endMs int64, at time.Time) {
	if s.cfg.onTranscript == nil {
		return
	}
	if len(s.arrivals) >= 4096 {
		s.arrivals = append(s.arrivals[:0], s.arrivals[len(s.arrivals)/2:]...)
	}
	s.arrivals = append(s.arrivals, arrival{endMs, at})
}

// latency is the time since the audio holding ms arrived.
func (s *Session) latency(ms int64) (time.Duration, bool) {
	for _, a := range s.arrivals {
		if a.endMs >= ms {
			return s.cfg.now().Sub(a.at), true
		}
	}
	return 0, false
}

func (s *Session) observePartial(ws []engine.Word) {
	if s.cfg.onTranscript == nil || len(ws) == 0 {
		return
	}
	end := ws[len(ws)-1].End
	if end <= s.partialEndMs {
		return
	}
	s.partialEndMs = end
	if l, ok := s.latency(end); ok {
		s.cfg.onTranscript(realtime.TranscriptEvent{Session: s.cfg.sessionID, Latency: l})
	}
}

func (s *Session) observeFinal(ev engine.Event) {
	if s.cfg.onTranscript == nil || len(ev.Words) == 0 {
		return
	}
	end := ev.Words[len(ev.Words)-1].End
	if ev.Cause.Endpointed() {
		if l, ok := s.latency(end); ok {
			s.cfg.onTranscript(realtime.TranscriptEvent{Session: s.cfg.sessionID, Final: true, Latency: l})
		}
	}
	// Arrivals before the turn's end are no longer needed.
	i := 0
	for i < len(s.arrivals) && s.arrivals[i].endMs <= end {
		i++
	}
	s.arrivals = append(s.arrivals[:0], s.arrivals[i:]...)
	s.partialEndMs = max(s.partialEndMs, end)
}
