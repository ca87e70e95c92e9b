package realtime

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// hypothesisSlack is added to the silence threshold when a pause is found
// by the recognizer's hypothesis no longer changing rather than by the
// VAD: the hypothesis lags the audio.
const hypothesisSlack = 300 * time.Millisecond

// noisyPauseExtra is added again when the VAD still hears sound: a
// hypothesis unchanged for the threshold plus hypothesisSlack plus this
// long ends the utterance whatever the VAD says, so noise that never
// falls silent cannot hold an utterance open.
const noisyPauseExtra = time.Second

// minSpeechFrames is the shortest run of speech frames (10 ms each,
// detector hangover included) that counts as speech for endpointing;
// shorter bursts such as clicks count as part of the pause.
const minSpeechFrames = 5

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

// Session is one streaming session: it turns audio messages into partial
// and final transcripts over one transcribe.Stream. It knows nothing of
// WebSockets: each method returns the messages to send, and a *CloseError
// when the connection must close (after sending the messages). Safe for
// concurrent use; calls are serialised.
type Session struct {
	cfg  Config
	opts SessionOptions
	id   string

	mu        sync.Mutex
	state     State
	stream    transcribe.Stream
	recRate   int
	dec       decoder
	rs        *media.Int16Resampler
	rsOut     []int16 // the resampler's output buffer, reused
	vad       *vad
	started   time.Time
	expiresAt time.Time

	threshold time.Duration // end_utterance_silence_threshold

	// audio accounting
	clientSamples int64 // samples received at the client's rate
	recSamples    int64 // samples written to the stream at recRate
	lastAudio     time.Time
	bucket        time.Duration // rate limiter level
	bucketAt      time.Time
	shortPending  bool // the last audio message was shorter than the minimum

	// utterance state
	uttOpen      bool  // audio written since the last EndUtterance
	uttStartMs   int64 // audio position when the utterance began
	uttSpeech    bool  // VAD heard speech in this utterance
	silenceMs    int64 // non-speech run after speech
	speechRun    int   // consecutive speech frames
	sincePartial time.Duration
	lastPartial  string // text of the last PartialTranscript sent
	hypText      string // text of the recognizer's last hypothesis
	hypChangedMs int64  // audio position when hypText last changed

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
// message. cfg.Authenticate is not used.
func NewSession(ctx context.Context, cfg Config, opts SessionOptions) (*Session, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(false); err != nil {
		return nil, err
	}
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
	recRate := cfg.Recognizer.Features().SampleRate
	if recRate <= 0 {
		recRate = opts.SampleRate
	}
	rs, err := media.NewInt16Resampler(opts.SampleRate, recRate)
	if err != nil {
		return nil, err
	}
	st, err := cfg.Recognizer.NewStream(ctx, transcribe.StreamOptions{SampleRate: recRate, WordBoost: opts.WordBoost})
	if err != nil {
		return nil, fmt.Errorf("realtime: opening recognizer stream: %w", err)
	}
	now := cfg.Now()
	s := &Session{
		cfg: cfg, opts: opts, id: cfg.NewID(),
		state: StateBegins, stream: st, recRate: recRate,
		dec: decoder{enc: opts.Encoding}, rs: rs, vad: newVAD(recRate, cfg.SpeechRMS),
		started: now, expiresAt: now.Add(cfg.SessionDuration),
		threshold: DefaultSilenceThreshold,
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
func (s *Session) AudioDuration() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.audioPos()
}

// SilenceThreshold returns the current end_utterance_silence_threshold.
func (s *Session) SilenceThreshold() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.threshold
}

// Begins returns the SessionBegins message.
func (s *Session) Begins() SessionBegins {
	return SessionBegins{MessageType: TypeSessionBegins, SessionID: s.id, ExpiresAt: wireTime(s.expiresAt)}
}

// Resumed returns the SessionResumed message.
func (s *Session) Resumed() SessionResumed {
	return SessionResumed{MessageType: TypeSessionResumed, SessionID: s.id, ExpiresAt: wireTime(s.expiresAt)}
}

func (s *Session) audioPos() time.Duration {
	return time.Duration(s.clientSamples) * time.Second / time.Duration(s.opts.SampleRate)
}

func (s *Session) ms(recSamples int64) int64 {
	return recSamples * 1000 / int64(s.recRate)
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
	if err != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.state.Ended() {
			return nil, ErrSessionEnded
		}
		s.endLocked(StateTerminated)
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Ended() {
		return nil, ErrSessionEnded
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
		s.threshold = time.Duration(*m.threshold) * time.Millisecond
	}
	if m.force {
		s.shortPending = false
		msgs, err := s.endUtteranceLocked()
		out = append(out, msgs...)
		if err != nil {
			return out, err
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
		msgs, _ := s.endUtteranceLocked()
		s.endLocked(StateExpired)
		return msgs, ErrSessionExpired
	}
	if now.Sub(s.lastAudio) >= s.cfg.IdleTimeout {
		msgs, _ := s.endUtteranceLocked()
		s.endLocked(StateTerminated)
		return msgs, ErrSessionIdle
	}
	if s.uttSpeech && now.Sub(s.lastAudio) >= s.threshold+500*time.Millisecond {
		msgs, err := s.endUtteranceLocked()
		return s.observeFinals(msgs), err
	}
	return nil, nil
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
	// Drop the audio buffers: ended sessions stay registered for a while
	// so that a resume gets 4010 or 4008.
	s.dec = decoder{enc: s.dec.enc}
	s.rs, s.vad = nil, nil
	if s.stream != nil {
		if err := s.stream.Close(); err != nil {
			s.logf("session %s: closing stream: %v", s.id, err)
		}
		s.stream = nil
	}
}

func (s *Session) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

func (s *Session) fail(err error) error {
	s.logf("session %s: recognizer: %v", s.id, err)
	s.endLocked(StateTerminated)
	if errors.Is(err, transcribe.ErrEngineCrashed) {
		// An isolated engine's worker died: say so in words the client can
		// show ("the speech engine crashed (signal SIGSEGV) while
		// processing this audio").
		var ce *CloseError
		if errors.As(err, &ce) {
			return ce
		}
		return &CloseError{Code: CloseInternalServerError, Reason: crashReason(err)}
	}
	return ErrRecognizer.with("recognizer failed: %v", err)
}

// maxCloseReason is the longest close reason a WebSocket close frame holds.
const maxCloseReason = 123

// crashReason is the close reason for an engine crash: the crash's own
// sentence, without the package prefix, cut to what a close frame holds.
func crashReason(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "the speech engine crashed"); i > 0 {
		msg = msg[i:]
	}
	if len(msg) > maxCloseReason {
		msg = msg[:maxCloseReason]
	}
	return msg
}

func (s *Session) audioLocked(b []byte) ([]Message, error) {
	n := s.dec.samplesIn(len(b))
	dur := time.Duration(n) * time.Second / time.Duration(s.opts.SampleRate)
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
	s.rsOut = s.rs.Process(s.rsOut, s.dec.decode(b))
	samples := s.rsOut
	s.clientSamples += int64(n)
	s.arrived(s.ms(s.recSamples+int64(len(samples))), now)

	// Find endpoints in this chunk with the VAD, then write the chunk in
	// pieces split at them.
	var cuts []int
	frameMs := int64(1000 * s.vad.frame / s.recRate)
	base := s.recSamples
	uttStart := s.uttStartMs
	if !s.uttOpen {
		uttStart = s.ms(base)
	}
	s.vad.frames(samples, func(end int, speech bool) {
		if speech {
			s.speechRun++
		} else {
			s.speechRun = 0
		}
		if s.speechRun >= minSpeechFrames {
			s.uttSpeech = true
			s.silenceMs = 0
			return
		}
		// Non-speech, or a burst too short to be speech (a click, a
		// tap): the pause goes on.
		if !s.uttSpeech {
			return
		}
		s.silenceMs += frameMs
		long := time.Duration(s.ms(base+int64(end))-uttStart)*time.Millisecond >= s.cfg.MaxUtterance
		if s.silenceMs >= s.threshold.Milliseconds() || long {
			cuts = append(cuts, end)
			uttStart = s.ms(base + int64(end))
			s.uttSpeech = false
			s.silenceMs = 0
		}
	})
	var out []Message
	prev := 0
	for _, c := range cuts {
		if err := s.writeLocked(samples[prev:c]); err != nil {
			return out, err
		}
		prev = c
		msgs, err := s.finishUtterance()
		out = append(out, s.observeFinals(msgs)...)
		if err != nil {
			return out, err
		}
	}
	if err := s.writeLocked(samples[prev:]); err != nil {
		return out, err
	}
	if len(cuts) > 0 && prev < len(samples) && !s.uttSpeech {
		// Only silence after the cut: no partial to show yet.
		return out, nil
	}
	s.sincePartial += dur
	if s.uttOpen && s.sincePartial >= s.cfg.PartialInterval {
		s.sincePartial = 0
		h, err := s.stream.Partial()
		if err != nil {
			return out, s.fail(err)
		}
		words := cleanWords(h.Words)
		_, text, _ := wireWords(words)
		pos := s.ms(s.recSamples)
		if text != s.hypText {
			s.hypText, s.hypChangedMs = text, pos
		}
		stable := time.Duration(pos-s.hypChangedMs) * time.Millisecond
		if text != "" && (!s.uttSpeech && stable >= s.threshold+hypothesisSlack ||
			stable >= s.threshold+hypothesisSlack+noisyPauseExtra) {
			// The recognizer has words that stopped changing: the
			// speaker has paused, though the VAD heard no speech (too
			// quiet for Config.SpeechRMS) or no pause (steady noise).
			msgs, err := s.finishUtterance()
			return append(out, s.observeFinals(msgs)...), err
		}
		if !s.opts.DisablePartialTranscripts {
			if p, ok := s.partial(words); ok {
				out = append(out, p)
				s.observePartial(p)
			}
		}
	}
	return out, nil
}

func (s *Session) writeLocked(x []int16) error {
	if len(x) == 0 {
		return nil
	}
	if !s.uttOpen {
		s.uttOpen = true
		s.uttStartMs = s.ms(s.recSamples)
	}
	if err := s.stream.Write(x); err != nil {
		return s.fail(err)
	}
	s.recSamples += int64(len(x))
	return nil
}

// endUtteranceLocked ends the open utterance (if any audio was written)
// and returns its FinalTranscript, if it has words.
func (s *Session) endUtteranceLocked() ([]Message, error) {
	s.uttSpeech = false
	s.silenceMs = 0
	if !s.uttOpen || s.stream == nil {
		return nil, nil
	}
	return s.finishUtterance()
}

func (s *Session) finishUtterance() ([]Message, error) {
	s.uttOpen = false
	s.sincePartial = 0
	s.lastPartial, s.hypText, s.hypChangedMs = "", "", 0
	h, err := s.stream.EndUtterance()
	if err != nil {
		return nil, s.fail(err)
	}
	words := cleanWords(h.Words)
	if len(words) == 0 {
		return nil, nil
	}
	formatted := s.cfg.Format(words)
	if len(formatted) == 0 {
		return nil, nil
	}
	ws, text, conf := wireWords(formatted)
	return []Message{FinalTranscript{
		MessageType: TypeFinalTranscript, SessionID: s.id,
		AudioStart: ws[0].Start, AudioEnd: ws[len(ws)-1].End,
		Confidence: conf, Text: text, Words: ws, Created: wireTime(s.cfg.Now()),
		Punctuated: true, TextFormatted: true,
	}}, nil
}

// partial returns a PartialTranscript of words (already cleaned) unless
// it is empty or repeats the last one.
func (s *Session) partial(words []transcribe.Word) (Message, bool) {
	if len(words) == 0 {
		return nil, false
	}
	ws, text, conf := wireWords(words)
	if text == s.lastPartial {
		return nil, false
	}
	s.lastPartial = text
	return PartialTranscript{
		MessageType: TypePartialTranscript, SessionID: s.id,
		AudioStart: ws[0].Start, AudioEnd: ws[len(ws)-1].End,
		Confidence: conf, Text: text, Words: ws, Created: wireTime(s.cfg.Now()),
	}, true
}

func (s *Session) terminateLocked() ([]Message, error) {
	out, err := s.endUtteranceLocked()
	if err != nil {
		return out, err
	}
	out = append(out,
		SessionInformation{MessageType: TypeSessionInformation, SessionID: s.id, AudioDurationSeconds: s.audioPos().Seconds()},
		SessionTerminated{MessageType: TypeSessionTerminated, SessionID: s.id})
	s.endLocked(StateTerminated)
	return out, nil
}

// cleanWords drops empty words and recognizer fillers in angle or square
// brackets (<sil>, [noise]) that some engines report.
func cleanWords(in []transcribe.Word) []transcribe.Word {
	out := in[:0:0]
	for _, w := range in {
		t := strings.TrimSpace(w.Text)
		if t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[") {
			continue
		}
		w.Text = t
		out = append(out, w)
	}
	return out
}

func wireWords(words []transcribe.Word) ([]Word, string, float64) {
	if len(words) == 0 {
		return nil, "", 0
	}
	ws := make([]Word, len(words))
	texts := make([]string, len(words))
	var conf float64
	for i, w := range words {
		c := w.Confidence
		if math.IsNaN(c) || c < 0 {
			c = 0
		}
		if c > 1 {
			c = 1
		}
		ws[i] = Word{Start: w.Start, End: w.End, Confidence: c, Text: w.Text}
		texts[i] = w.Text
		conf += c
	}
	return ws, strings.Join(texts, " "), conf / float64(len(words))
}

// control is a parsed client text frame.
type control struct {
	audio     []byte
	threshold *int64
	force     bool
	terminate bool
}

// parseControl parses a client text frame.
func parseControl(b []byte) (control, error) {
	var c control
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return c, ErrBadJSON
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return c, ErrBadSchema.with("message must be a JSON object")
	}
	known := false
	if raw, ok := m["audio_data"]; ok {
		known = true
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return c, ErrBadSchema.with("audio_data must be a base64 string")
		}
		a, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			a, err = base64.RawStdEncoding.DecodeString(s)
		}
		if err != nil {
			return c, ErrBadSchema.with("audio_data is not valid base64")
		}
		c.audio = a
	}
	if raw, ok := m["end_utterance_silence_threshold"]; ok {
		known = true
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) {
			return c, ErrBadSchema.with("end_utterance_silence_threshold must be an integer")
		}
		if f < 0 || f > float64(MaxSilenceThreshold.Milliseconds()) {
			return c, ErrBadSchema.with("end_utterance_silence_threshold must be between 0 and %d", MaxSilenceThreshold.Milliseconds())
		}
		v := int64(f)
		c.threshold = &v
	}
	for _, k := range []struct {
		key string
		dst *bool
	}{{"force_end_utterance", &c.force}, {"terminate_session", &c.terminate}} {
		raw, ok := m[k.key]
		if !ok {
			continue
		}
		known = true
		if err := json.Unmarshal(raw, k.dst); err != nil || bytes.Equal(raw, []byte("null")) {
			return c, ErrBadSchema.with("%s must be a boolean", k.key)
		}
	}
	if !known {
		return c, ErrBadSchema.with("message has none of audio_data, end_utterance_silence_threshold, force_end_utterance, terminate_session")
	}
	return c, nil
}
