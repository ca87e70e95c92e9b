package universal

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
	"github.com/google/uuid"
)

// Config configures a Handler. Zero values mean the documented default.
type Config struct {
	// Engine is the session engine's configuration: Recognizer (required),
	// TurnEnd (the end-of-turn probability; nil: modelTurnEnd of the
	// committed punctuation model, punctmodel.Default()), Format (the
	// formatted copy of an ended turn), timing.
	// Engine.Now is set to Now.
	Engine engine.Config

	// Authenticate checks the API key of a request (the raw authorization
	// header) and returns its project. Required.
	Authenticate func(r *http.Request) (projectID string, ok bool)

	// State keeps temporary tokens and session records; share the v2
	// Handler's (realtime.Config.State) so that tokens and session ids
	// live in one place across processes. Default realtime.NewMemoryState().
	State realtime.StateStore

	// Admission decides on each new session, as for v2; give both
	// Handlers the same one so that they share the capacity. Default: none
	// (every session admitted).
	Admission realtime.Admission

	// Guard is the failed-authentication and per-project request limit
	// shared with the server's other front ends (an *httpapi.Guard).
	Guard realtime.Guard

	// Logger receives refusals, recognizer failures and state store
	// errors. Default slog.Default().
	Logger *slog.Logger

	// Now is the clock. Default time.Now.
	Now func() time.Time
	// NewID returns session ids. Default uuid.NewString.
	NewID func() string

	// MaxSessionDuration is how long a session lives (expires_at; 3008
	// after it) unless its token set a shorter max_session_duration_seconds.
	// Default 3 hours.
	MaxSessionDuration time.Duration
	// IdleTimeout ends a session with no audio or KeepAlive for this long
	// when the client set no inactivity_timeout (Termination, close 1000).
	// Default 1 minute.
	IdleTimeout time.Duration
	// RateLimitLead is how far ahead of real time audio may arrive (3007
	// beyond). Default 1 minute.
	RateLimitLead time.Duration
	// MaxSessionsPerProject caps a project's live v3 sessions plus
	// ProjectSessions (3009 beyond). Default 32.
	MaxSessionsPerProject int
	// ProjectSessions, when set, counts the project's sessions on other
	// protocols (the v2 Handler's LiveSessions) against
	// MaxSessionsPerProject.
	ProjectSessions func(projectID string) int
	// StreamWait bounds the wait for a recognizer stream (1013 after it).
	// Default 10 s.
	StreamWait time.Duration
	// TickInterval is how often a connection applies the clock. Default
	// 100 ms.
	TickInterval time.Duration
	// WriteTimeout bounds one message write. Default 10 s.
	WriteTimeout time.Duration
	// ProcessID names this process in session records. Default a UUID.
	ProcessID string
	// OriginPatterns are the browser origins allowed to open /v3/ws;
	// empty allows every origin (API keys and tokens authenticate).
	OriginPatterns []string
	// Language is the language_code of ended turns with
	// language_detection=true when the recognizer does not say. Default
	// the recognizer's first language, else "en".
	Language string

	// OnSession and OnTranscript receive the same events as the v2
	// Handler's hooks (the server's metrics): session begin and end, and
	// first-partial and endpointed end-of-turn latencies.
	OnSession    func(realtime.SessionEvent)
	OnTranscript func(realtime.TranscriptEvent)
}

func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	c.Engine.Now = c.Now
	if c.NewID == nil {
		c.NewID = uuid.NewString
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.State == nil {
		c.State = realtime.NewMemoryState()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.MaxSessionDuration, 3*time.Hour)
	def(&c.IdleTimeout, time.Minute)
	def(&c.RateLimitLead, time.Minute)
	def(&c.StreamWait, 10*time.Second)
	def(&c.TickInterval, 100*time.Millisecond)
	def(&c.WriteTimeout, 10*time.Second)
	if c.MaxSessionsPerProject == 0 {
		c.MaxSessionsPerProject = 32
	}
	if c.ProcessID == "" {
		c.ProcessID = uuid.NewString()
	}
	if c.Language == "" && c.Engine.Recognizer != nil {
		if l := c.Engine.Recognizer.Features().Languages; len(l) > 0 {
			c.Language = l[0]
		}
	}
	if c.Language == "" {
		c.Language = "en"
	}
	if c.Engine.TurnEnd == nil {
		if m, err := punctmodel.Default(); err == nil {
			c.Engine.TurnEnd = modelTurnEnd(m)
		} else {
			c.Logger.Warn("v3 turn ends on pauses alone: the punctuation model did not load", "err", err.Error())
		}
	}
	// Streams opened for an admitted session report their calls to its
	// Ticket, as v2's do (realtime.Meter, realtime.WithTicket).
	c.Engine.Recognizer = realtime.Meter(c.Engine.Recognizer)
	return c
}

func (c Config) validate() error {
	switch {
	case c.Authenticate == nil:
		return errors.New("universal: Config.Authenticate is required")
	case c.MaxSessionDuration < 0 || c.IdleTimeout < 0 || c.RateLimitLead < 0 || c.StreamWait < 0 || c.TickInterval < 0 || c.WriteTimeout < 0:
		return errors.New("universal: Config durations must not be negative")
	case c.MaxSessionsPerProject < 0:
		return errors.New("universal: Config.MaxSessionsPerProject must not be negative")
	}
	return c.Engine.Validate()
}

// endpointing is the engine's endpointing for a session's settings: a
// turn ends after MinTurnSilence when the end-of-turn confidence reaches
// the threshold, after MaxTurnSilence whatever it is.
func endpointing(s Settings) engine.Endpointing {
	return engine.Endpointing{MinSilence: s.MinTurnSilence, MaxSilence: s.MaxTurnSilence, Confidence: s.EndOfTurnConfidenceThreshold}
}
