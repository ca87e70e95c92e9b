package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// Defaults and limits.
const (
	// DefaultSampleRate is Options.SampleRate when it is 0.
	DefaultSampleRate = 16000
	// MinSampleRate and MaxSampleRate bound Options.SampleRate.
	MinSampleRate = 8000
	MaxSampleRate = 48000
	// DefaultSilence is the pause that ends a turn by default (both
	// MinSilence and MaxSilence of DefaultEndpointing).
	DefaultSilence = 700 * time.Millisecond
)

// TurnEndFunc returns the probability (0..1) that the speaker has ended
// the turn after words (the recognizer's current words of the open turn,
// lowercase and unpunctuated) followed by pause of silence. A sentence-end
// model (transcribe/textfmt/punctmodel) is its intended implementation.
// It is called from the session's goroutine, with the session locked, on
// every 10 ms frame of a pause between Endpointing.MinSilence and
// MaxSilence when Endpointing.Confidence is above 0, and once per Event:
// it must be quick and must not call the Session.
type TurnEndFunc func(words []transcribe.Word, pause time.Duration) float64

// pauseTurnEnd is the TurnEndFunc used when Config.TurnEnd is nil: the
// pause over max (1 once the pause reaches max), whatever the words.
func pauseTurnEnd(max time.Duration) TurnEndFunc {
	return func(_ []transcribe.Word, pause time.Duration) float64 {
		if max <= 0 || pause >= max {
			return 1
		}
		if pause <= 0 {
			return 0
		}
		return float64(pause) / float64(max)
	}
}

// Config configures the engine: the recognizer, formatting and timing
// shared by every session of a transport. Zero values mean the documented
// default.
type Config struct {
	// Recognizer transcribes the audio; one Stream per session. Required.
	Recognizer transcribe.StreamRecognizer

	// Format punctuates and cases the words of a Final (Event.Formatted).
	// It gets the recognizer's lowercase words and returns the words to
	// show. Default DefaultFormat.
	Format func([]transcribe.Word) []transcribe.Word

	// TurnEnd estimates whether a pause ends the turn (see Endpointing).
	// Default nil: pauseTurnEnd(Endpointing.MaxSilence).
	TurnEnd TurnEndFunc

	// Now is the clock (Tick's no-audio endpoint). Default time.Now.
	Now func() time.Time

	// PartialInterval is the least audio between two looks at the
	// recognizer's hypothesis (a Partial is returned when its text
	// changed). Default 100 ms.
	PartialInterval time.Duration

	// MaxUtterance ends a turn at the next non-speech frame once it is
	// this long, even without a full pause. Default 20 s.
	MaxUtterance time.Duration

	// SpeechRMS is the absolute RMS level (of 32768) below which a 10 ms
	// frame never counts as speech. Default 300 (-41 dBFS).
	SpeechRMS float64
}

func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Format == nil {
		c.Format = DefaultFormat
	}
	if c.PartialInterval == 0 {
		c.PartialInterval = 100 * time.Millisecond
	}
	if c.MaxUtterance == 0 {
		c.MaxUtterance = 20 * time.Second
	}
	if c.SpeechRMS == 0 {
		c.SpeechRMS = 300
	}
	return c
}

// Validate names the first bad field.
func (c Config) Validate() error {
	switch {
	case c.Recognizer == nil:
		return errors.New("engine: Config.Recognizer is required")
	case c.PartialInterval < 0:
		return errors.New("engine: Config.PartialInterval must be positive")
	case c.MaxUtterance < 0:
		return errors.New("engine: Config.MaxUtterance must be positive")
	case c.SpeechRMS < 0:
		return errors.New("engine: Config.SpeechRMS must be positive")
	}
	return nil
}

// Endpointing decides when a pause ends a turn. After speech, a pause of
// MaxSilence ends the turn whatever the words; a pause of MinSilence ends
// it when the turn-end probability (Config.TurnEnd) is at least
// Confidence. With Confidence 0 every pause of MinSilence ends the turn:
// v2's end_utterance_silence_threshold is SilenceEndpointing(threshold).
type Endpointing struct {
	MinSilence time.Duration
	MaxSilence time.Duration
	Confidence float64
}

// DefaultEndpointing is SilenceEndpointing(DefaultSilence).
func DefaultEndpointing() Endpointing { return SilenceEndpointing(DefaultSilence) }

// SilenceEndpointing ends a turn on a pause of d alone.
func SilenceEndpointing(d time.Duration) Endpointing {
	return Endpointing{MinSilence: d, MaxSilence: d}
}

// Validate checks that silences are not negative, MinSilence is not above
// MaxSilence and Confidence is in 0..1.
func (e Endpointing) Validate() error {
	switch {
	case e.MinSilence < 0 || e.MaxSilence < 0:
		return errors.New("engine: endpointing silences must not be negative")
	case e.MinSilence > e.MaxSilence:
		return fmt.Errorf("engine: endpointing MinSilence %v is above MaxSilence %v", e.MinSilence, e.MaxSilence)
	case !(e.Confidence >= 0 && e.Confidence <= 1):
		return fmt.Errorf("engine: endpointing Confidence must be in 0..1, got %v", e.Confidence)
	}
	return nil
}

// Options are one session's choices.
type Options struct {
	// SampleRate of the audio given to Write. Default DefaultSampleRate;
	// MinSampleRate..MaxSampleRate. The audio is resampled to the
	// recognizer's rate.
	SampleRate int
	// Encoding of the audio given to Write. Default EncodingPCMS16LE.
	Encoding Encoding
	// WordBoost biases the recognizer towards these terms.
	WordBoost []string
	// Endpointing at the start. Default (nil) DefaultEndpointing().
	Endpointing *Endpointing
	// Offset is audio (samples at SampleRate) that came before this
	// session's stream — a session moved to this process continues where
	// it was: word times and AudioDuration count from the session's start.
	Offset int64
}

// EventKind says what an Event reports.
type EventKind int

// Event kinds.
const (
	// Partial: the open turn's words so far (unformatted), returned when
	// their text changed. Words marked Final will appear unchanged in
	// every later Partial of the turn.
	Partial EventKind = iota + 1
	// Final: the turn ended (Cause says why); Words are the recognizer's
	// final words, all Final, and Formatted the same through
	// Config.Format. Returned only when the turn has words.
	Final
	// SpeechStarted: the detector heard speech begin (At) in a turn that
	// had none yet.
	SpeechStarted
)

// EndCause says why a turn ended.
type EndCause string

// End causes. Silence, Confident, Hypothesis, NoAudio and MaxLength are
// the engine's endpointing; Forced and Closed are the transport's.
const (
	EndSilence    EndCause = "silence"    // a pause of Endpointing.MaxSilence
	EndConfident  EndCause = "confident"  // a pause of MinSilence with the turn-end probability at Confidence
	EndHypothesis EndCause = "hypothesis" // the recognizer's words stopped changing (speech too quiet for SpeechRMS, or steady noise)
	EndNoAudio    EndCause = "no_audio"   // Tick: no audio for MaxSilence + 500 ms after speech
	EndMaxLength  EndCause = "max_length" // Config.MaxUtterance reached at a non-speech frame
	EndForced     EndCause = "forced"     // ForceEndpoint
	EndClosed     EndCause = "closed"     // Close
)

// Endpointed reports whether the engine's endpointing ended the turn
// (rather than ForceEndpoint or Close).
func (c EndCause) Endpointed() bool { return c != "" && c != EndForced && c != EndClosed }

// Event is what a session returns as audio and time pass.
type Event struct {
	Kind EventKind
	// At: SpeechStarted's position (ms since the session started).
	At int64
	// Words (Partial, Final): see EventKind.
	Words []Word
	// Formatted (Final): Words through Config.Format; nil when Format
	// returned none.
	Formatted []Word
	// EndOfTurnConfidence (Partial, Final): the turn-end probability for
	// the words and the pause after them; 1 for a Final forced or closed.
	EndOfTurnConfidence float64
	// Cause (Final): why the turn ended.
	Cause EndCause
	// Language and LanguageConfidence as the recognizer said, else "" and 0.
	Language           string
	LanguageConfidence float64
}

// Session is one stream of audio turned into Events over one
// transcribe.Stream. It does no I/O of its own and knows no protocol.
// Safe for concurrent use; calls are serialised.
type Session struct {
	cfg  Config
	opts Options

	mu      sync.Mutex
	closed  bool
	stream  transcribe.Stream
	recRate int
	dec     decoder
	rs      *media.Int16Resampler
	rsOut   []int16
	vad     *vad
	ep      Endpointing

	clientSamples int64 // at opts.SampleRate
	recSamples    int64 // written to the stream, at recRate
	lastWrite     time.Time

	// the open turn
	uttOpen      bool
	uttStartMs   int64
	uttSpeech    bool
	silenceMs    int64
	speechRun    int
	sincePartial time.Duration
	lastPartial  string
	hypText      string
	hypWords     []transcribe.Word
	hypChangedMs int64
	prevHyp      []transcribe.Word
	committed    []Word
}

// New validates cfg and opts, opens a recognizer stream (ctx bounds the
// wait for it and is passed to NewStream) and returns the session. Errors:
// a *transcribe.ParamError naming the option (sample_rate, encoding, or
// one the recognizer refused, such as word_boost); a *RecognizerError
// (OpOpen) when the stream did not open; ctx's error when it ended first.
func New(ctx context.Context, cfg Config, opts Options) (*Session, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.SampleRate == 0 {
		opts.SampleRate = DefaultSampleRate
	}
	if opts.SampleRate < MinSampleRate || opts.SampleRate > MaxSampleRate {
		return nil, paramErr("sample_rate", "sample_rate must be between %d and %d, got %d", MinSampleRate, MaxSampleRate, opts.SampleRate)
	}
	if opts.Encoding == "" {
		opts.Encoding = EncodingPCMS16LE
	}
	if opts.Encoding != EncodingPCMS16LE && opts.Encoding != EncodingPCMMulaw {
		return nil, paramErr("encoding", "encoding must be pcm_s16le or pcm_mulaw, got %q", opts.Encoding)
	}
	ep := DefaultEndpointing()
	if opts.Endpointing != nil {
		ep = *opts.Endpointing
		if err := ep.Validate(); err != nil {
			return nil, err
		}
	}
	if opts.Offset < 0 {
		return nil, errors.New("engine: Options.Offset must not be negative")
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
		var pe *transcribe.ParamError
		if errors.As(err, &pe) {
			return nil, pe
		}
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, &RecognizerError{Op: OpOpen, Err: err}
	}
	s := &Session{
		cfg: cfg, opts: opts, stream: st, recRate: recRate,
		dec: decoder{enc: opts.Encoding}, rs: rs, vad: newVAD(recRate, cfg.SpeechRMS),
		ep: ep, lastWrite: cfg.Now(),
	}
	if opts.Offset > 0 {
		s.clientSamples = opts.Offset
		s.recSamples = opts.Offset * int64(recRate) / int64(opts.SampleRate)
		if off := s.ms(s.recSamples); off > 0 {
			s.stream = &offsetStream{Stream: s.stream, ms: off}
		}
	}
	return s, nil
}

// Options returns the options the session was started with, defaults
// filled in (Endpointing is the current one).
func (s *Session) Options() Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.opts
	ep := s.ep
	o.Endpointing = &ep
	return o
}

// Closed reports whether the session has ended (Close, Abort or a
// recognizer failure).
func (s *Session) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// AudioDuration returns the audio received so far (Offset included).
func (s *Session) AudioDuration() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.audioPos()
}

// Samples returns the samples received so far at Options.SampleRate
// (Offset included): what a session moved elsewhere gives as Offset.
func (s *Session) Samples() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientSamples
}

// MessageDuration returns the audio that n bytes given to Write next
// would hold (a byte carried from the last Write counts).
func (s *Session) MessageDuration(n int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Duration(s.dec.samplesIn(n)) * time.Second / time.Duration(s.opts.SampleRate)
}

// Endpointing returns the current endpointing.
func (s *Session) Endpointing() Endpointing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ep
}

// SetEndpointing changes the endpointing mid-session; it applies from the
// next audio (a pause already under way counts).
func (s *Session) SetEndpointing(e Endpointing) error {
	if err := e.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ep = e
	return nil
}

// Touch restarts the clock of Tick's no-audio endpoint, as if audio had
// just arrived (a transport resuming a session after a dropped
// connection).
func (s *Session) Touch() {
	s.mu.Lock()
	s.lastWrite = s.cfg.Now()
	s.mu.Unlock()
}

// Tick ends the open turn (EndNoAudio) when speech was heard and no audio
// has come for Endpointing.MaxSilence plus 500 ms: audio that stops
// arriving is a pause too. Transports call it every so often.
func (s *Session) Tick() ([]Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.uttSpeech && s.cfg.Now().Sub(s.lastWrite) >= s.ep.MaxSilence+500*time.Millisecond {
		return s.endTurnLocked(EndNoAudio)
	}
	return nil, nil
}

// ForceEndpoint ends the open turn now (EndForced) and returns its Final,
// if it has words.
func (s *Session) ForceEndpoint() ([]Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	return s.endTurnLocked(EndForced)
}

// Close ends the open turn (EndClosed), returning its Final if it has
// words, and releases the recognizer stream. A failure to release it is a
// *RecognizerError (OpClose) returned with the events.
func (s *Session) Close() ([]Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	evs, err := s.endTurnLocked(EndClosed)
	if err != nil {
		return evs, err
	}
	return evs, s.releaseLocked()
}

// Abort releases the recognizer stream without ending the open turn. It
// returns the stream's Close error (a *RecognizerError), if any; nil when
// the session had ended already.
func (s *Session) Abort() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	return s.releaseLocked()
}

func (s *Session) releaseLocked() error {
	s.closed = true
	s.dec = decoder{enc: s.dec.enc}
	s.rs, s.vad, s.rsOut = nil, nil, nil
	s.hypWords, s.prevHyp, s.committed = nil, nil, nil
	if s.stream == nil {
		return nil
	}
	err := s.stream.Close()
	s.stream = nil
	if err != nil {
		return &RecognizerError{Op: OpClose, Err: err}
	}
	return nil
}

// fail ends the session after a failed recognizer call.
func (s *Session) fail(op Op, err error) error {
	_ = s.releaseLocked() // the stream failed: its Close says nothing more
	return &RecognizerError{Op: op, Err: err}
}

func (s *Session) audioPos() time.Duration {
	return time.Duration(s.clientSamples) * time.Second / time.Duration(s.opts.SampleRate)
}

func (s *Session) ms(recSamples int64) int64 { return recSamples * 1000 / int64(s.recRate) }
