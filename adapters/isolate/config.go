package isolate

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/internal/childenv"
)

// Defaults of Config.
const (
	DefaultIdleTimeout  = 5 * time.Minute
	DefaultStartTimeout = 30 * time.Second
	DefaultStopGrace    = 2 * time.Second
)

// Config configures a Recognizer. Only Engine is required; every other
// field's zero value means its default.
type Config struct {
	// Engine names the engine to run, as given to Register. Required.
	Engine string
	// EngineConfig is sent to the engine's Factory in each worker,
	// marshalled with encoding/json (a json.RawMessage or []byte holding
	// JSON is sent as it is). Default nil: the Factory gets JSON null.
	EngineConfig any
	// Processes is the most worker processes alive at once, and so the
	// most concurrent Recognize calls plus open streams; more wait for a
	// free worker, honouring their context. Default runtime.NumCPU().
	Processes int
	// IdleTimeout stops a worker that has served nothing for this long,
	// so that memory returns to the system after a burst. Default
	// DefaultIdleTimeout (5 minutes); negative keeps idle workers until
	// Close.
	IdleTimeout time.Duration
	// StartTimeout bounds starting one worker: executing the binary and
	// building the engine with its Factory. Default DefaultStartTimeout
	// (30 s).
	StartTimeout time.Duration
	// StopGrace is how long a worker gets to finish a cancelled request,
	// or to exit after its request pipe closes (Close, IdleTimeout), before
	// it is killed. A caller whose context is cancelled never waits for
	// it: the call returns ctx.Err() at once. Default DefaultStopGrace
	// (2 s).
	StopGrace time.Duration
	// Logger receives the workers' stderr, line by line, and reports of
	// crashes and restarts. Default slog.Default().
	Logger *slog.Logger
	// Executable is the binary started as a worker; it must call Main
	// first in its main function and register the same engines. Default
	// the running binary itself (/proc/self/exe on Linux, which still
	// names the right file after an upgrade replaced it on disk).
	Executable string
	// Env is added to the workers' environment, which is otherwise
	// minimal (internal/childenv: PATH, LD_LIBRARY_PATH, HOME, TMPDIR, TZ,
	// the Go runtime's settings, LANG=C and LC_ALL=C), never the host's:
	// engines parse untrusted audio and must not hold the server's
	// secrets. Engines get their settings from EngineConfig; put here only
	// what an engine's libraries read from the environment. Default none.
	Env []string
	// Now is the clock used for idle timing. Default time.Now.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Processes == 0 {
		c.Processes = runtime.NumCPU()
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.StopGrace == 0 {
		c.StopGrace = DefaultStopGrace
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Executable == "" {
		c.Executable = selfExecutable()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// validate names the first field that cannot work.
func (c Config) validate() error {
	switch {
	case c.Engine == "":
		return fmt.Errorf("isolate: Config.Engine is required")
	case c.Processes < 0:
		return fmt.Errorf("isolate: Config.Processes must be positive, got %d", c.Processes)
	case c.StartTimeout < 0:
		return fmt.Errorf("isolate: Config.StartTimeout must be positive, got %s", c.StartTimeout)
	case c.StopGrace < 0:
		return fmt.Errorf("isolate: Config.StopGrace must be positive, got %s", c.StopGrace)
	}
	for _, e := range c.Env {
		if !strings.Contains(e, "=") {
			return fmt.Errorf("isolate: Config.Env entry %q is not KEY=value", e)
		}
		if strings.HasPrefix(e, envWorker+"=") {
			return fmt.Errorf("isolate: Config.Env must not set %s", envWorker)
		}
	}
	return nil
}

// engineJSON marshals EngineConfig.
func (c Config) engineJSON() (json.RawMessage, error) {
	switch v := c.EngineConfig.(type) {
	case nil:
		return json.RawMessage("null"), nil
	case json.RawMessage:
		if !json.Valid(v) {
			return nil, fmt.Errorf("isolate: Config.EngineConfig is not valid JSON")
		}
		return v, nil
	case []byte:
		if !json.Valid(v) {
			return nil, fmt.Errorf("isolate: Config.EngineConfig is not valid JSON")
		}
		return v, nil
	}
	b, err := json.Marshal(c.EngineConfig)
	if err != nil {
		return nil, fmt.Errorf("isolate: Config.EngineConfig: %w", err)
	}
	return b, nil
}

// workerEnv is the minimal environment of internal/childenv with env
// added and the worker marker set. Nothing else of the host's environment
// (API keys, the encryption key, database URLs, S3 and LLM credentials)
// reaches a worker.
func (c Config) workerEnv() []string {
	return childenv.Minimal(append(append([]string(nil), c.Env...), envWorker+"="+protocolVersion)...)
}
