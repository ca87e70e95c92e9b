package openaiapi

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/transcribe"
)

// Defaults of Config.
const (
	// DefaultModel is OpenAI's whisper model name, the one most tools send
	// (Open WebUI, AnythingLLM, Dify's default); it selects the default
	// engine unless Config.Aliases says otherwise.
	DefaultModel = "whisper-1"
	// DefaultPollInterval is the longest wait between two looks at a
	// running transcript.
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultMaxFormBytes caps the form's fields other than the file.
	DefaultMaxFormBytes = 256 << 10
	// DefaultBodyIdleTimeout cuts off a request body that stops flowing.
	DefaultBodyIdleTimeout = 30 * time.Second
	// DefaultAuthFailureRate is the sustained rate of failed
	// authentications allowed per client address (per second).
	DefaultAuthFailureRate = 5
)

// Config configures a Handler. Service, Auth and Engines are required;
// zero values of the other fields mean the documented default.
type Config struct {
	// Service does the work. Required.
	Service *transcribe.Service
	// Auth maps the key of "Authorization: Bearer <key>" to its project:
	// the same API keys as the AssemblyAI API. Required.
	Auth httpapi.Authenticator
	// Engines are the Service's engines, the same slice (in the same
	// order) as transcribe.Config.Engines: the first is the default. The
	// request's model names an engine by Name or one of its Aliases; GET
	// /v1/models lists the keys of Aliases below, then the engines' names
	// and aliases.
	// For a Service built with Config.Recognizer, pass
	// []transcribe.Engine{{Name: "best", Recognizer: rec}}. Required.
	Engines []transcribe.Engine
	// Aliases are more model names, each mapped to the Name of an engine:
	// the OpenAI names clients send. Default {"whisper-1": Engines[0].Name}.
	// Give an empty, non-nil map for none.
	Aliases map[string]string
	// MaxUploadBytes caps the file (413 beyond it); the Service's own cap
	// (transcribe.Config.MaxUploadBytes) applies too, so set both alike.
	// Default transcribe.DefaultMaxMediaBytes, the Service's default.
	MaxUploadBytes int64
	// MaxFormBytes caps all fields but the file together (400 beyond it).
	// Default DefaultMaxFormBytes.
	MaxFormBytes int64
	// PollInterval is the longest wait between two looks at a running
	// transcript; the wait starts at 20ms and doubles up to it, so short
	// clips answer quickly and long ones cost few store reads. Default
	// DefaultPollInterval.
	PollInterval time.Duration
	// Timeout is the longest a request waits for its transcript; past it
	// the client gets a 504 and the transcript is deleted when it
	// finishes. Default 0: as long as the client waits.
	Timeout time.Duration
	// BodyIdleTimeout is how long the request body may go without a byte
	// before it is cut off (an upload of any size goes through while it
	// flows). Default DefaultBodyIdleTimeout.
	BodyIdleTimeout time.Duration
	// AuthFailureRate is the sustained rate of failed authentications
	// allowed per client address (per second, burst 10 times that);
	// beyond it the address gets 429 before its key is looked at (keys
	// that authenticated from that address before excepted). 0 means
	// DefaultAuthFailureRate; negative disables the limit. Ignored when
	// Guard is set.
	AuthFailureRate float64
	// Guard applies the per-project request limit and the failed-auth
	// limit (httpapi.Guard): give it the Guard of the httpapi.API (and
	// realtime Handler) beside it, so that a project and a client address
	// have one budget across /v1 and /v2. Every request is counted when
	// it arrives, before its file is read: a client that goes away after
	// sending its file has spent its request all the same. Default: a
	// Guard of this Handler's own (httpapi.GuardConfig's default request
	// limit, AuthFailureRate).
	Guard *httpapi.Guard
	// Now is the clock (the models' created time is New's). Default
	// time.Now.
	Now func() time.Time
	// Logger receives server-side errors. Default slog.Default().
	Logger *slog.Logger
}

// withDefaults checks c and returns it with defaults filled in.
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Service == nil:
		return c, errors.New("openaiapi: Config.Service is required")
	case c.Auth == nil:
		return c, errors.New("openaiapi: Config.Auth is required")
	case len(c.Engines) == 0:
		return c, errors.New("openaiapi: Config.Engines is required (the Service's engines, default first)")
	case c.MaxUploadBytes < 0:
		return c, fmt.Errorf("openaiapi: Config.MaxUploadBytes must not be negative, got %d", c.MaxUploadBytes)
	case c.MaxFormBytes < 0:
		return c, fmt.Errorf("openaiapi: Config.MaxFormBytes must not be negative, got %d", c.MaxFormBytes)
	case c.PollInterval < 0, c.Timeout < 0, c.BodyIdleTimeout < 0:
		return c, errors.New("openaiapi: Config.PollInterval, Timeout and BodyIdleTimeout must not be negative")
	}
	names := map[string]bool{}
	owner := map[string]string{} // engine names and aliases → engine name
	for i, e := range c.Engines {
		if strings.TrimSpace(e.Name) == "" {
			return c, fmt.Errorf("openaiapi: Config.Engines[%d] has no Name", i)
		}
		if e.Recognizer == nil {
			return c, fmt.Errorf("openaiapi: Config.Engines[%d] (%q) has no Recognizer", i, e.Name)
		}
		names[e.Name] = true
		for _, n := range append([]string{e.Name}, e.Aliases...) {
			if _, ok := owner[n]; !ok {
				owner[n] = e.Name
			}
		}
	}
	if c.Aliases == nil {
		c.Aliases = map[string]string{DefaultModel: c.Engines[0].Name}
	}
	for alias, target := range c.Aliases {
		if strings.TrimSpace(alias) == "" {
			return c, errors.New("openaiapi: Config.Aliases has an empty model name")
		}
		if !names[target] {
			return c, fmt.Errorf("openaiapi: Config.Aliases[%q] is %q, which is not the Name of an engine (%s)", alias, target, strings.Join(slices.Sorted(maps.Keys(names)), ", "))
		}
		if o, ok := owner[alias]; ok && o != target {
			return c, fmt.Errorf("openaiapi: Config.Aliases[%q] is %q, but engine %q already answers to that name", alias, target, o)
		}
	}
	if c.MaxUploadBytes == 0 {
		c.MaxUploadBytes = transcribe.DefaultMaxMediaBytes
	}
	if c.MaxFormBytes == 0 {
		c.MaxFormBytes = DefaultMaxFormBytes
	}
	if c.PollInterval == 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.BodyIdleTimeout == 0 {
		c.BodyIdleTimeout = DefaultBodyIdleTimeout
	}
	if c.AuthFailureRate == 0 {
		c.AuthFailureRate = DefaultAuthFailureRate
	}
	if c.Guard == nil {
		g, err := httpapi.NewGuard(httpapi.GuardConfig{AuthFailureRate: c.AuthFailureRate})
		if err != nil {
			return c, fmt.Errorf("openaiapi: %w", err)
		}
		c.Guard = g
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}
