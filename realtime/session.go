package realtime

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/realtime/engine"
)

// State is where a session is in its life.
type State string

// Session states: begins -> streaming -> terminated or expired.
const (
	StateBegins     State = "begins"     // SessionBegins sent, no audio yet
	StateStreaming  State = "streaming"  // audio has arrived
	StateTerminated State = "terminated" // ended by terminate_session or an error close; resume gives 4010
	StateExpired    State = "expired"    // expires_at or the resume grace passed; resume gives 4008
)

// States lists the session states.
func States() []State { return []State{StateBegins, StateStreaming, StateTerminated, StateExpired} }

// Ended reports whether s is a final state.
func (s State) Ended() bool { return s == StateTerminated || s == StateExpired }

// SessionOptions are the per-session choices a client makes in the query
// string.
type SessionOptions struct {
	// ProjectID owns the session (resumes must come from the same project).
	ProjectID string
	// SampleRate of the client's audio. Default DefaultSampleRate.
	SampleRate int
	// Encoding of the client's audio. Default EncodingPCMS16LE.
	Encoding Encoding
	// WordBoost biases the recognizer towards these terms.
	WordBoost []string
	// DisablePartialTranscripts suppresses PartialTranscript messages.
	DisablePartialTranscripts bool
	// EnableExtraSessionInformation is recorded but SessionInformation is
	// always sent before SessionTerminated (the spec allows it, and both
	// SDKs ignore or want it).
	EnableExtraSessionInformation bool
}

// Session is one v2 streaming session: the v2 protocol's rules (states,
// expiry, idleness, audio message sizes, rate limiting, control messages,
// message shapes) over one engine.Session, which does the recognition and
// endpointing. It knows nothing of WebSockets: each method returns the
// messages to send, and a *CloseError when the connection must close
// (after sending the messages). Safe for concurrent use; calls are
// serialised.
type Session struct {
	cfg  Config
	opts SessionOptions
	id   string
	eng  *engine.Session
	log  *slog.Logger

	mu        sync.Mutex
	state     State
	started   time.Time
	expiresAt time.Time

	lastAudio    time.Time
	bucket       time.Duration // rate limiter level
	bucketAt     time.Time
	shortPending bool // the last audio message was shorter than the minimum

	// connection bookkeeping used by the Handler
	attached bool
	detachAt time.Time
	endSeen  time.Time // when the Handler first saw the session ended
	resumes  int
	token    string

	// latency bookkeeping for Config.OnTranscript (observe.go)
	arrivals     []arrival
	partialEndMs int64 // end of the last word a reported partial showed
}

// NewSession starts a session: it validates opts, opens a recognizer
// stream and returns the session in StateBegins. Begins returns its first
// message. cfg.Authenticate is not used. Errors: a *CloseError for a bad
// sample rate or encoding, a *transcribe.ParamError for an option the
// recognizer refused, an *engine.RecognizerError when no stream opened.
func NewSession(ctx context.Context, cfg Config, opts SessionOptions) (*Session, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(false); err != nil {
		return nil, err
	}
	return newSession(ctx, cfg, opts, cfg.NewID(), 0)
}

// newSession opens the engine session of a session with id whose first
// offset samples came before (restoreSession).
func newSession(ctx context.Context, cfg Config, opts SessionOptions, id string, offset int64) (*Session, error) {
	if opts.SampleRate == 0 {
		opts.SampleRate = DefaultSampleRate
	}
	if opts.SampleRate < MinSampleRate || opts.SampleRate > MaxSampleRate {
		return nil, ErrBadSampleRate.with("sample_rate must be between %d and %d, got %d", MinSampleRate, MaxSampleRate, opts.SampleRate)
	}
	if opts.Encoding == "" {
		opts.Encoding = EncodingPCMS16LE
	}
	if opts.Encoding != EncodingPCMS16LE && opts.Encoding != EncodingPCMMulaw {
		return nil, ErrBadSchema.with("encoding must be pcm_s16le or pcm_mulaw, got %q", opts.Encoding)
	}
	ep := engine.SilenceEndpointing(DefaultSilenceThreshold)
	eng, err := engine.New(ctx, cfg.engineConfig(), engine.Options{
		SampleRate: opts.SampleRate, Encoding: opts.Encoding, WordBoost: opts.WordBoost,
		Endpointing: &ep, Offset: offset,
	})
	if err != nil {
		return nil, err
	}
	now := cfg.Now()
	s := &Session{
		cfg: cfg, opts: opts, id: id, eng: eng,
		log:   cfg.Logger.With("session", id, "project", opts.ProjectID),
		state: StateBegins, started: now, expiresAt: now.Add(cfg.SessionDuration),
		lastAudio: now, bucketAt: now,
	}
	s.onSession(SessionBegan, "")
	return s, nil
}

// ID returns the session id (a UUID by default).
func (s *Session) ID() string { return s.id }

// Options returns the options the session was started with, defaults
// filled in.
func (s *Session) Options() SessionOptions { return s.opts }

// ExpiresAt returns when the session expires.
func (s *Session) ExpiresAt() time.Time { return s.expiresAt }

// State returns the current state.
func (s *Session) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// AudioDuration returns the audio received so far.
func (s *Session) AudioDuration() time.Duration { return s.eng.AudioDuration() }

// SilenceThreshold returns the current end_utterance_silence_threshold.
func (s *Session) SilenceThreshold() time.Duration { return s.eng.Endpointing().MaxSilence }

// Begins returns the SessionBegins message.
func (s *Session) Begins() SessionBegins {
	return SessionBegins{MessageType: TypeSessionBegins, SessionID: s.id, ExpiresAt: wireTime(s.expiresAt)}
}

// Resumed returns the SessionResumed message.
func (s *Session) Resumed() SessionResumed {
	return SessionResumed{MessageType: TypeSessionResumed, SessionID: s.id, ExpiresAt: wireTime(s.expiresAt)}
}

// Audio handles one binary audio message.
func (s *Session) Audio(b []byte) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Ended() {
		return nil, ErrSessionEnded
	}
	return s.audioLocked(b)
}

// HandleText handles one text frame: {"audio_data": base64},
// {"end_utterance_silence_threshold": ms}, {"force_end_utterance": true}
// or {"terminate_session": true} (keys of one object are handled in that
// order). Trailing whitespace is fine (the Go SDK ends frames with a
// newline). Invalid JSON gives ErrBadJSON, anything else unexpected
// ErrBadSchema.
func (s *Session) HandleText(b []byte) ([]Message, error) {
	m, err := parseControl(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Ended() {
		return nil, ErrSessionEnded
	}
	if err != nil {
		s.endLocked(StateTerminated)
		return nil, err
	}
	var out []Message
	if m.audio != nil {
		msgs, err := s.audioLocked(m.audio)
		out = append(out, msgs...)
		if err != nil {
			return out, err
		}
	}
	if m.threshold != nil {
		// In range: parseControl checked it.
		_ = s.eng.SetEndpointing(engine.SilenceEndpointing(time.Duration(*m.threshold) * time.Millisecond))
	}
	if m.force {
		s.shortPending = false
		evs, err := s.eng.ForceEndpoint()
		out = append(out, s.messages(evs)...)
		if err != nil {
			return out, s.fail(err)
		}
	}
	if m.terminate {
		msgs, err := s.terminateLocked()
		return append(out, msgs...), err
	}
	return out, nil
}

// Terminate flushes the open utterance and ends the session: it returns
// any FinalTranscript, then SessionInformation and SessionTerminated.
func (s *Session) Terminate() ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Ended() {
		return nil, ErrSessionEnded
	}
	return s.terminateLocked()
}

// Tick applies the clock: it ends an expired session (4008) or an idle
// one (4031), and ends the open utterance when the client stopped sending
// audio for longer than the silence threshold plus half a second (audio
// that stops arriving is a pause too). Transports call it every
// Config.TickInterval.
func (s *Session) Tick() ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Ended() {
		return nil, ErrSessionEnded
	}
	now := s.cfg.Now()
	if !now.Before(s.expiresAt) {
		evs, _ := s.eng.ForceEndpoint()
		s.endLocked(StateExpired)
		return s.messages(evs), ErrSessionExpired
	}
	if now.Sub(s.lastAudio) >= s.cfg.IdleTimeout {
		evs, _ := s.eng.ForceEndpoint()
		s.endLocked(StateTerminated)
		return s.messages(evs), ErrSessionIdle
	}
	evs, err := s.eng.Tick()
	msgs := s.messages(evs)
	if err != nil {
		return msgs, s.fail(err)
	}
	return msgs, nil
}

// Abort ends the session without messages (the transport uses it on
// errors), releasing its stream. state must be StateTerminated or
// StateExpired.
func (s *Session) Abort(state State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.state.Ended() {
		s.endLocked(state)
	}
}

func (s *Session) endLocked(state State) {
	if !s.state.Ended() {
		s.onSession(SessionEnded, state)
	}
	s.state = state
	s.arrivals = nil
	if err := s.eng.Abort(); err != nil {
		s.log.Warn("realtime: closing the recognizer stream", "err", err)
	}
}

// fail ends the session after an engine error and returns the close the
// client gets: the crash's own sentence for an engine crash, else a
// generic 1011. What the recognizer said goes to the log only.
func (s *Session) fail(err error) error {
	if errors.Is(err, engine.ErrClosed) {
		s.endLocked(StateTerminated)
		return ErrSessionEnded
	}
	s.log.Error("realtime: recognizer failed; session ended", "err", err)
	s.endLocked(StateTerminated)
	return recognizerClose(err)
}

func (s *Session) audioLocked(b []byte) ([]Message, error) {
	dur := s.eng.MessageDuration(len(b))
	if dur > s.cfg.MaxAudioPerMessage {
		s.endLocked(StateTerminated)
		return nil, ErrAudioTooLong.with("audio message holds %d ms of audio; the most is %d ms", dur.Milliseconds(), s.cfg.MaxAudioPerMessage.Milliseconds())
	}
	if s.shortPending {
		s.endLocked(StateTerminated)
		return nil, ErrAudioTooShort.with("an audio message held less than %d ms of audio and more audio followed it", s.cfg.MinAudioPerMessage.Milliseconds())
	}
	if s.cfg.MinAudioPerMessage > 0 && dur < s.cfg.MinAudioPerMessage {
		s.shortPending = true
	}
	now := s.cfg.Now()
	// Rate limiter: a bucket of audio draining at real time.
	s.bucket -= now.Sub(s.bucketAt)
	if s.bucket < 0 {
		s.bucket = 0
	}
	s.bucketAt = now
	s.bucket += dur
	if s.bucket > s.cfg.RateLimitLead {
		s.endLocked(StateTerminated)
		return nil, ErrRateLimited.with("audio is arriving faster than real time: %.1f s ahead", s.bucket.Seconds())
	}
	s.lastAudio = now
	if s.state == StateBegins {
		s.state = StateStreaming
	}
	s.arrived((s.eng.AudioDuration() + dur).Milliseconds(), now)
	evs, err := s.eng.Write(b)
	msgs := s.messages(evs)
	if err != nil {
		return msgs, s.fail(err)
	}
	return msgs, nil
}

// messages turns engine events into v2 messages: a PartialTranscript per
// Partial (unless disabled), a FinalTranscript of the formatted words per
// Final; SpeechStarted has no v2 message. Latencies are reported
// (observe.go) for the partials sent and for the finals the engine's
// endpointing ended.
func (s *Session) messages(evs []engine.Event) []Message {
	var out []Message
	for _, ev := range evs {
		switch ev.Kind {
		case engine.Partial:
			if s.opts.DisablePartialTranscripts || len(ev.Words) == 0 {
				continue
			}
			ws, text, conf := wireWords(ev.Words)
			p := PartialTranscript{
				MessageType: TypePartialTranscript, SessionID: s.id,
				AudioStart: ws[0].Start, AudioEnd: ws[len(ws)-1].End,
				Confidence: conf, Text: text, Words: ws, Created: wireTime(s.cfg.Now()),
			}
			out = append(out, p)
			s.observePartial(p)
		case engine.Final:
			if len(ev.Formatted) == 0 {
				continue
			}
			ws, text, conf := wireWords(ev.Formatted)
			f := FinalTranscript{
				MessageType: TypeFinalTranscript, SessionID: s.id,
				AudioStart: ws[0].Start, AudioEnd: ws[len(ws)-1].End,
				Confidence: conf, Text: text, Words: ws, Created: wireTime(s.cfg.Now()),
				Punctuated: true, TextFormatted: true,
			}
			out = append(out, f)
			if ev.Cause.Endpointed() {
				s.observeFinal(f)
			}
		}
	}
	return out
}

func (s *Session) terminateLocked() ([]Message, error) {
	evs, err := s.eng.Close()
	out := s.messages(evs)
	var re *engine.RecognizerError
	if errors.As(err, &re) && re.Op == engine.OpClose {
		s.log.Warn("realtime: closing the recognizer stream", "err", err)
	} else if err != nil {
		return out, s.fail(err)
	}
	out = append(out,
		SessionInformation{MessageType: TypeSessionInformation, SessionID: s.id, AudioDurationSeconds: s.eng.AudioDuration().Seconds()},
		SessionTerminated{MessageType: TypeSessionTerminated, SessionID: s.id})
	s.endLocked(StateTerminated)
	return out, nil
}

func wireWords(words []engine.Word) ([]Word, string, float64) {
	ws := make([]Word, len(words))
	for i, w := range words {
		ws[i] = Word{Start: w.Start, End: w.End, Confidence: w.Confidence, Text: w.Text}
	}
	return ws, engine.Text(words), engine.Confidence(words)
}
