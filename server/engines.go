package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/adapters/enginepool"
	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/adapters/whispercpp"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// localEngines are the engines this process runs itself: pocketsphinx
// for batch jobs and, in a pool of its own, for streaming sessions; and
// the media decoder (ffmpeg) that turns uploads into audio.
type localEngines struct {
	decoders      int // batch decoders: batchDecoders
	batch, stream localEngine
	media         *media.Decoder
}

// openLocalEngines starts pocketsphinx (pocketsphinxEngines) and loads
// one batch decoder now, so that a missing library or model fails at
// start-up with the packages to install, not on the first job; then makes
// the media decoder (EARSHOT_MAX_DURATION).
func openLocalEngines(ctx context.Context, cfg *Config, log *slog.Logger) (*localEngines, error) {
	l := &localEngines{decoders: batchDecoders(cfg)}
	var err error
	if l.batch, l.stream, err = pocketsphinxEngines(cfg, l.decoders, log); err != nil {
		return nil, err
	}
	if err := l.batch.Warm(ctx, 1); err != nil {
		l.close()
		return nil, err
	}
	if l.media, err = media.NewDecoder(media.Config{MaxDuration: cfg.MaxDuration}); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// close stops the engines' decoders (their worker processes), streaming
// first.
func (l *localEngines) close() {
	l.stream.Close()
	l.batch.Close()
}

// batchDecoders is EARSHOT_DECODERS, or EARSHOT_WORKERS by default; 0
// means one per CPU in both.
func batchDecoders(cfg *Config) int {
	if cfg.Decoders != 0 {
		return cfg.Decoders
	}
	return cfg.Workers
}

// engineSet is what the Services and realtime transcribe with.
type engineSet struct {
	list   []transcribe.Engine         // the engines speech_model chooses from, the default first
	stream transcribe.StreamRecognizer // the streaming pool
}

// openEngines counts the local pools in the metrics (ops.pool; as they
// are without) and adds the remote engines configured (buildEngines),
// the default first.
func openEngines(cfg *Config, local *localEngines, ops *ops) (*engineSet, error) {
	batch := ops.pool("batch", local.decoders, local.batch)
	stream := ops.pool("stream", streamSessions(cfg), local.stream)
	list, err := buildEngines(cfg, batch, ops.serverHook)
	if err != nil {
		return nil, err
	}
	return &engineSet{list: list, stream: stream}, nil
}

// buildEngines returns the configured speech engines, the default first:
// pocketsphinx (always; it also serves streaming), whisper.cpp servers
// (EARSHOT_WHISPERCPP_URL) and OpenAI-compatible servers
// (EARSHOT_OPENAI_URL), each named after its kind so that speech_model
// selects it ("pocketsphinx", "whispercpp", "openai"). Each URL variable
// takes a comma-separated list: the servers form a pool
// (adapters/enginepool), each given EARSHOT_WHISPERCPP_CONCURRENCY
// (default 1) or EARSHOT_OPENAI_CONCURRENCY (default 0, no limit)
// requests at once, with per-server metrics from hook(engine) when it
// gives one. Language detection on the OpenAI-compatible server sends
// EARSHOT_OPENAI_DETECT_LANGUAGE as the language (default: none; see
// openai.Config.DetectLanguage).
func buildEngines(cfg *Config, pocket transcribe.Recognizer, hook func(engine string) func(enginepool.Event)) ([]transcribe.Engine, error) {
	var langs []string
	for _, l := range strings.Split(cfg.EngineLanguages, ",") {
		if l = strings.TrimSpace(l); l != "" {
			langs = append(langs, l)
		}
	}
	engines := []transcribe.Engine{{Name: "pocketsphinx", Recognizer: pocket}}
	if cfg.WhisperCppURL != "" {
		r, err := whispercpp.New(whispercpp.Config{URLs: urlList(cfg.WhisperCppURL), Languages: langs, Concurrency: max(cfg.WhisperCppConcurrency, 1),
			OnServer: hook("whispercpp")})
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_WHISPERCPP_URL: %w", err)
		}
		engines = append(engines, transcribe.Engine{Name: "whispercpp", Recognizer: r})
	}
	if cfg.OpenAIURL != "" {
		r, err := openai.New(openai.Config{BaseURLs: urlList(cfg.OpenAIURL), Model: cfg.OpenAIModel, APIKey: cfg.OpenAIKey, Languages: langs,
			DetectLanguage: strings.TrimSpace(cfg.OpenAIDetect), Concurrency: cfg.OpenAIConcurrency, OnServer: hook("openai")})
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_OPENAI_URL: %w", err)
		}
		engines = append(engines, transcribe.Engine{Name: "openai", Recognizer: r})
	}
	// The default engine goes first.
	for i, e := range engines {
		if e.Name == cfg.Engine && i > 0 {
			engines[0], engines[i] = engines[i], engines[0]
		}
	}
	return engines, nil
}

// urlList splits a comma-separated list of URLs; an empty item stays, so
// that the adapter names it ("a,,b" is a mistake, not two servers).
func urlList(s string) []string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// serverHook is the per-server metrics hook of a remote engine's pool;
// nil without metrics.
func (o *ops) serverHook(engine string) func(enginepool.Event) {
	if o.m == nil {
		return nil
	}
	return o.m.EngineServers(engine)
}

// jobWorkers is how many jobs the Service runs at once: EARSHOT_WORKERS,
// or one per CPU, or the capacity of the remote engines' pools when that
// is more (a job on a remote engine mostly waits for it, and fewer
// workers would leave servers idle).
func jobWorkers(cfg *Config, engines []transcribe.Engine) int {
	if cfg.Workers != 0 {
		return cfg.Workers
	}
	n := 0
	for _, e := range engines {
		if c, ok := e.Recognizer.(interface{ Capacity() int }); ok {
			n += c.Capacity()
		}
	}
	return max(runtime.NumCPU(), n)
}

// The pocketsphinx engine is registered for isolated worker processes in
// every binary that links this package; such a binary's main must call
// isolate.Main first (server/cmd/earshot-server and server/cmd/earshot do).
func init() {
	err := isolate.Register("pocketsphinx", isolate.JSONFactory(func(c pocketsphinx.Config) (transcribe.Recognizer, error) {
		return pocketsphinx.New(c)
	}))
	if err != nil {
		panic(err)
	}
}

// localEngine is pocketsphinx in process or in isolated workers.
type localEngine interface {
	transcribe.StreamRecognizer
	Warm(ctx context.Context, n int) error
}

// streamSessions is EARSHOT_STREAM_DECODERS, or as many sessions as the
// cores could carry at 0.1 CPU-second per audio second (measured 0.13-0.2
// with the isolated engine; 18 on 2 cores). The admission refuses before
// the pool runs out; decoders start on demand.
func streamSessions(cfg *Config) int {
	if cfg.StreamDecoders > 0 {
		return cfg.StreamDecoders
	}
	return realtime.CapacityFor(runtime.NumCPU(), 0.1)
}

// streamIdle frees a streaming decoder unused for this long: a new session
// within a minute finds one warm (starting one takes ~0.5 s before
// SessionBegins), and a burst's memory is handed back within about
// 75 s.
const streamIdle = time.Minute

// pocketsphinxEngines returns the batch engine (decoders at once) and the
// streaming engine (one decoder per live session, streamSessions),
// each in supervised worker processes (one decoder each: a native crash
// fails only the work that process held), or in this process with
// EARSHOT_ENGINE_IN_PROCESS.
func pocketsphinxEngines(cfg *Config, decoders int, log *slog.Logger) (batch, stream localEngine, err error) {
	streams := streamSessions(cfg)
	if cfg.InProcessEngine {
		b, err := pocketsphinx.New(pocketsphinx.Config{ModelDir: cfg.ModelDir, Decoders: decoders})
		if err != nil {
			return nil, nil, err
		}
		// Streaming sessions hold a decoder for their whole life, so they
		// get their own pool and never starve batch jobs (or the reverse).
		st, err := pocketsphinx.New(pocketsphinx.Config{ModelDir: cfg.ModelDir, Decoders: streams, IdleTimeout: streamIdle, SinglePass: cfg.StreamSinglePass})
		if err != nil {
			b.Close()
			return nil, nil, err
		}
		return b, st, nil
	}
	ps := pocketsphinx.Config{ModelDir: cfg.ModelDir, Decoders: 1}
	b, err := isolate.New(isolate.Config{Engine: "pocketsphinx", EngineConfig: ps, Processes: decoders, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	// A streaming final waits for the end of its utterance's decoding:
	// EARSHOT_STREAM_SINGLE_PASS leaves out the second search
	// (pocketsphinx.Config.SinglePass).
	sps := ps
	sps.SinglePass = cfg.StreamSinglePass
	st, err := isolate.New(isolate.Config{Engine: "pocketsphinx", EngineConfig: sps, Processes: streams, IdleTimeout: streamIdle, Logger: log})
	if err != nil {
		b.Close()
		return nil, nil, err
	}
	return b, st, nil
}
