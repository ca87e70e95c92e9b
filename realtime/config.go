package realtime

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/earshot-dev/earshot/realtime/engine"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/google/uuid"
)

// Limits from the spec.
const (
	// DefaultSilenceThreshold is end_utterance_silence_threshold when the
	// client sets none.
	DefaultSilenceThreshold = engine.DefaultSilence
	// MaxSilenceThreshold is the largest end_utterance_silence_threshold.
	MaxSilenceThreshold = 20 * time.Second
	// MinTokenExpiresIn is the smallest expires_in of POST /v2/realtime/token.
	MinTokenExpiresIn = 60 * time.Second
	// MaxWordBoostChars is the longest word_boost query value (JSON text).
	MaxWordBoostChars = 2500
	// DefaultSampleRate is used when the sample_rate query parameter is
	// absent (the Go SDK leaves it out by default).
	DefaultSampleRate = engine.DefaultSampleRate
	// MinSampleRate and MaxSampleRate bound sample_rate.
	MinSampleRate = engine.MinSampleRate
	MaxSampleRate = engine.MaxSampleRate
)

// Config configures the v2 protocol: its sessions (NewSession, over the
// engine: Recognizer, Format, Now, PartialInterval, MaxUtterance and
// SpeechRMS are the engine's part, see engine.Config) and the WebSocket
// transport (NewHandler). Zero values mean the documented default.
type Config struct {
	// Recognizer transcribes the audio; one Stream per session. Required.
	Recognizer transcribe.StreamRecognizer

	// Authenticate checks the API key of a request (the raw authorization
	// header) and returns its project. Required by NewHandler. It is
	// called for POST /v2/realtime/token and for WebSocket upgrades that
	// carry no token query parameter.
	Authenticate func(r *http.Request) (projectID string, ok bool)

	// Now is the clock. Default time.Now. Every expiry, idle and rate
	// decision reads it, so tests drive time by changing what it returns.
	Now func() time.Time

	// NewID returns session ids. Default uuid.NewString.
	NewID func() string

	// Format punctuates and cases the words of a FinalTranscript. It gets
	// the recognizer's lowercase words and returns the words to send; the
	// text is the words' Text joined by spaces. Default DefaultFormat.
	Format func([]transcribe.Word) []transcribe.Word

	// SessionDuration is how long a session lives after SessionBegins
	// (expires_at); then it ends with 4008. Default 1 hour.
	SessionDuration time.Duration

	// ResumeGrace is how long a session whose connection dropped without
	// terminate_session waits for /v2/realtime/ws/{session_id}; after it
	// the session has expired (resume gives 4008). Default 30 s.
	ResumeGrace time.Duration

	// MaxResumes is how many times one session may be resumed; the next
	// attempt is closed with 1013 (reconnect attempts exhausted) and ends
	// the session. Default 10.
	MaxResumes int

	// MaxSessionsPerProject caps concurrent live sessions (streaming or
	// waiting for a resume) of one project; the next is closed with 4102.
	// Default 32.
	MaxSessionsPerProject int

	// ProjectShare is the largest fraction of the Admission's capacity
	// (an Admission with a Capacity() int method, such as LoadAdmission)
	// that one project's live sessions may hold on this process; the
	// next is closed with 4102. With 0.5, a project holding half the
	// sessions the server carries leaves the other half to the others.
	// Default 1: no share, only MaxSessionsPerProject and the Admission
	// bound a project. Must be in (0, 1].
	ProjectShare float64

	// Guard, when set, is the failed-authentication and per-project
	// request limit the Handler shares with the server's other front
	// ends (an *httpapi.Guard): the token endpoint answers an address
	// over its failed-auth limit with 429, a WebSocket is closed with
	// 1013; every refused key or token counts as a failure; each
	// WebSocket connection spends one request of its project's budget
	// (1013 beyond it). Default: none.
	Guard Guard

	// IdleTimeout ends a session that receives no audio for this long
	// (4031). Default 1 minute.
	IdleTimeout time.Duration

	// RateLimitLead is how far ahead of real time a client may send audio:
	// audio fills a bucket that drains at one second per second, and a
	// session whose bucket holds more than RateLimitLead of audio (for
	// example, audio sent at twice real time for a minute) ends with 4029.
	// Default 1 minute.
	RateLimitLead time.Duration

	// MinAudioPerMessage is the shortest audio message (4032). A shorter
	// message is still accepted when it is the last audio before
	// force_end_utterance, terminate_session or a disconnect, because
	// callers that stream a file in fixed chunks send a short tail; the
	// close comes when more audio follows it. Default 100 ms; negative
	// disables the check.
	MinAudioPerMessage time.Duration

	// MaxAudioPerMessage is the longest audio message (4033). Default 2 s.
	MaxAudioPerMessage time.Duration

	// PartialInterval is the least audio between two partial transcript
	// checks; a PartialTranscript is sent only when its text changed.
	// Default 100 ms.
	PartialInterval time.Duration

	// MaxUtterance ends an utterance at the next non-speech frame once it
	// is this long, even without a full pause. Default 20 s.
	MaxUtterance time.Duration

	// SpeechRMS is the absolute RMS level (of 32768) below which a 10 ms
	// frame never counts as speech for endpointing. Default 300 (-41 dBFS).
	SpeechRMS float64

	// MaxTokenExpiresIn caps expires_in of POST /v2/realtime/token; larger
	// values are clamped to it. Default 100 hours (360000 s).
	MaxTokenExpiresIn time.Duration

	// TickInterval is how often a connection checks its clock (expiry,
	// idleness, endpointing when the client stops sending). Default 100 ms.
	TickInterval time.Duration

	// StreamWait bounds how long a new connection waits for the
	// recognizer to open a stream (a pooled recognizer waits while all its
	// decoders are busy); then it is closed with 1013 (try again later).
	// Default 10 s.
	StreamWait time.Duration

	// Admission decides whether a new session may start; a refused
	// connection is closed with 1013 at once, before any wait for the
	// recognizer. Default: a LoadAdmission with LoadAdmissionConfig's
	// defaults (sized from runtime.NumCPU() and the cost it measures,
	// one per Handler). AdmitAll turns admission control off.
	Admission Admission

	// PingInterval is how often the server pings the client. A client
	// that neither answers within the interval nor sent a frame for two
	// intervals is treated as gone (its session waits for a resume), so a
	// dead TCP connection does not hold its session against resumes
	// (4030). Wall-clock time, not Config.Now. Default 20 s; negative
	// disables.
	PingInterval time.Duration

	// WriteTimeout bounds each WebSocket write. Default 10 s.
	WriteTimeout time.Duration

	// OriginPatterns, when set, restricts the Origin header of WebSocket
	// upgrades (see websocket.AcceptOptions). Default: any origin, since
	// authentication uses a header or a token, never cookies.
	OriginPatterns []string

	// State keeps temporary tokens and session records (see StateStore).
	// Handlers of several processes on one shared store (storage/postgres)
	// serve as one: a token minted on one process opens a session on
	// another, and a dropped session resumes on any of them. Default: a
	// MemoryState of this Handler alone.
	State StateStore

	// ProcessID names this process in session records. Every Handler
	// sharing a State needs its own. Default: a random UUID per Handler.
	ProcessID string

	// SessionLease is how long a session stays with this process after
	// its last renewal while a connection serves it; the Handler renews
	// it every StateInterval. Once a process dies, a resume of its
	// sessions elsewhere gets 4030 until the lease has run out, and the
	// resume grace counts from the lease's end. Default 10 s.
	SessionLease time.Duration

	// StateInterval is how often the Handler renews the leases of its
	// sessions, checks its detached sessions against State (a session
	// resumed on another process releases its stream here) and purges
	// State. Default: TickInterval with the default MemoryState, else
	// SessionLease/3.
	StateInterval time.Duration

	// Logger receives the sessions' log lines: recognizer failures (with
	// what the recognizer said, which clients never see), session store
	// failures, refusals, resumes. Default slog.Default().
	Logger *slog.Logger

	// OnSession, when set, receives each session's beginning and end (see
	// SessionEvent). OnTranscript, when set, receives transcript
	// latencies (see TranscriptEvent). Both are called synchronously from
	// the session's goroutine with the session locked, so they must be
	// quick and must not call the Session; metrics collectors are their
	// intended use. Default: none.
	OnSession    func(SessionEvent)
	OnTranscript func(TranscriptEvent)
}

// withDefaults returns a copy of c with defaults filled in.
func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.NewID == nil {
		c.NewID = uuid.NewString
	}
	if c.Format == nil {
		c.Format = DefaultFormat
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.SessionDuration, time.Hour)
	def(&c.ResumeGrace, 30*time.Second)
	def(&c.IdleTimeout, time.Minute)
	def(&c.RateLimitLead, time.Minute)
	def(&c.MinAudioPerMessage, 100*time.Millisecond)
	def(&c.MaxAudioPerMessage, 2*time.Second)
	def(&c.PartialInterval, 100*time.Millisecond)
	def(&c.MaxUtterance, 20*time.Second)
	def(&c.MaxTokenExpiresIn, 100*time.Hour)
	def(&c.TickInterval, 100*time.Millisecond)
	def(&c.WriteTimeout, 10*time.Second)
	def(&c.StreamWait, 10*time.Second)
	def(&c.PingInterval, 20*time.Second)
	def(&c.SessionLease, 10*time.Second)
	if c.ProcessID == "" {
		c.ProcessID = uuid.NewString()
	}
	if c.MaxResumes == 0 {
		c.MaxResumes = 10
	}
	if c.MaxSessionsPerProject == 0 {
		c.MaxSessionsPerProject = 32
	}
	if c.ProjectShare == 0 {
		c.ProjectShare = 1
	}
	if c.SpeechRMS == 0 {
		c.SpeechRMS = 300
	}
	if c.Admission == nil {
		c.Admission, _ = NewLoadAdmission(LoadAdmissionConfig{}) // the defaults are valid
	}
	// Streams opened for an admitted session report their calls, with the
	// session's own CPU time, to its Ticket (meter.go).
	c.Recognizer = Meter(c.Recognizer)
	return c
}

// validate names the first bad field.
func (c Config) validate(needAuth bool) error {
	switch {
	case c.Recognizer == nil:
		return fmt.Errorf("realtime: Config.Recognizer is required")
	case needAuth && c.Authenticate == nil:
		return fmt.Errorf("realtime: Config.Authenticate is required")
	case c.SessionDuration < 0:
		return fmt.Errorf("realtime: Config.SessionDuration must be positive")
	case c.ResumeGrace < 0:
		return fmt.Errorf("realtime: Config.ResumeGrace must be positive")
	case c.MaxResumes < 0:
		return fmt.Errorf("realtime: Config.MaxResumes must be positive")
	case c.MaxSessionsPerProject < 0:
		return fmt.Errorf("realtime: Config.MaxSessionsPerProject must be positive")
	case !(c.ProjectShare > 0 && c.ProjectShare <= 1):
		return fmt.Errorf("realtime: Config.ProjectShare must be in (0, 1], got %v", c.ProjectShare)
	case c.IdleTimeout < 0:
		return fmt.Errorf("realtime: Config.IdleTimeout must be positive")
	case c.RateLimitLead < 0:
		return fmt.Errorf("realtime: Config.RateLimitLead must be positive")
	case c.MaxAudioPerMessage < 0 || (c.MinAudioPerMessage > 0 && c.MaxAudioPerMessage > 0 && c.MinAudioPerMessage > c.MaxAudioPerMessage):
		return fmt.Errorf("realtime: Config.MaxAudioPerMessage must be positive and not below MinAudioPerMessage")
	case c.PartialInterval < 0:
		return fmt.Errorf("realtime: Config.PartialInterval must be positive")
	case c.MaxUtterance < 0:
		return fmt.Errorf("realtime: Config.MaxUtterance must be positive")
	case c.SpeechRMS < 0:
		return fmt.Errorf("realtime: Config.SpeechRMS must be positive")
	case c.MaxTokenExpiresIn < 0 || (c.MaxTokenExpiresIn > 0 && c.MaxTokenExpiresIn < MinTokenExpiresIn):
		return fmt.Errorf("realtime: Config.MaxTokenExpiresIn must be at least %v", MinTokenExpiresIn)
	case c.TickInterval < 0:
		return fmt.Errorf("realtime: Config.TickInterval must be positive")
	case c.StreamWait < 0:
		return fmt.Errorf("realtime: Config.StreamWait must be positive")
	case c.WriteTimeout < 0:
		return fmt.Errorf("realtime: Config.WriteTimeout must be positive")
	case c.SessionLease < 0 || c.StateInterval < 0:
		return fmt.Errorf("realtime: Config.SessionLease and Config.StateInterval must be positive")
	case c.StateInterval > 0 && c.StateInterval >= c.SessionLease:
		return fmt.Errorf("realtime: Config.StateInterval %v must be shorter than Config.SessionLease %v", c.StateInterval, c.SessionLease)
	}
	return nil
}

// engineConfig is the engine's part of c (defaults filled in).
func (c Config) engineConfig() engine.Config {
	return engine.Config{
		Recognizer: c.Recognizer, Format: c.Format, Now: c.Now,
		PartialInterval: c.PartialInterval, MaxUtterance: c.MaxUtterance, SpeechRMS: c.SpeechRMS,
	}
}

// DefaultFormat is the default Config.Format: it capitalizes the first
// word and ends the last with a period (unless it already ends with
// sentence punctuation). It does not modify its argument. It is
// engine.DefaultFormat.
func DefaultFormat(words []transcribe.Word) []transcribe.Word { return engine.DefaultFormat(words) }
