// Package server assembles Earshot's reference server from the library:
// the AssemblyAI v2 REST and realtime API on embedded defaults (SQLite and
// files in the data directory, Debian's pocketsphinx as the recognizer),
// configured by EARSHOT_* environment variables or flags of the same
// meaning. examples/server and the earshot command's serve run it.
//
// Start-up order matters for data safety: everything that can fail (the
// data-directory lock, keys, store, engines, the listener and its TLS
// files) is set up before any worker claims a job, so a start that fails
// leaves queued work untouched. SIGINT and SIGTERM shut the server down
// gracefully; jobs cut off resume after the next start.
package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/earshot-dev/earshot/console"
	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/storage/localfs"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/llm"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
	"github.com/earshot-dev/earshot/webhook"
)

// Main parses args and the environment and runs the server until SIGINT
// or SIGTERM.
func Main(args []string) error {
	cfg, err := ParseConfig(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return Run(ctx, cfg)
}

// deriveKey derives a purpose-bound key from the content key, so each part
// (webhook sealing, URL signing) has its own.
func deriveKey(content []byte, purpose string) []byte {
	m := hmac.New(sha256.New, content)
	m.Write([]byte("earshot " + purpose))
	return m.Sum(nil)
}

// Run runs the server described by cfg until ctx is done, then shuts it
// down gracefully.
func Run(ctx context.Context, cfg *Config) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return fmt.Errorf("EARSHOT_LOG_LEVEL: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	unlock, err := lockDataDir(cfg.Data)
	if err != nil {
		return err
	}
	defer unlock()
	key, err := contentKey(cfg)
	if err != nil {
		return err
	}
	keys, devKey, err := apiKeys(cfg)
	if err != nil {
		return err
	}
	store, err := sqlite.Open(sqlite.Config{Path: filepath.Join(cfg.Data, "earshot.db")})
	if err != nil {
		return err
	}
	defer store.Close()
	blobs, err := localfs.New(filepath.Join(cfg.Data, "blobs"))
	if err != nil {
		return err
	}
	// This process owns the data directory (the lock above): a fragment
	// of an upload is always a leftover of a crashed run.
	if n, err := blobs.RemoveStale(ctx, 0); err != nil {
		log.Warn("removing upload fragments of an earlier run", "err", err)
	} else if n > 0 {
		log.Info("removed upload fragments of an earlier run", "count", n)
	}
	decoders := cfg.Decoders
	if decoders == 0 {
		decoders = cfg.Workers // 0 means one per CPU in both
	}
	rec, streamRec, err := pocketsphinxEngines(cfg, decoders, log)
	if err != nil {
		return err
	}
	defer rec.Close()
	defer streamRec.Close()
	// Load one decoder now so a missing library or model fails at start-up
	// with the packages to install, not on the first job.
	if err := rec.Warm(ctx, 1); err != nil {
		return err
	}
	dec, err := media.NewDecoder(media.Config{MaxDuration: cfg.MaxDuration})
	if err != nil {
		return err
	}
	// Every temporary file (downloads, ffmpeg intermediates of redacted
	// audio) stays inside the 0700 data directory; the Service sweeps what
	// a crashed run left there.
	tmp, err := filepath.Abs(filepath.Join(cfg.Data, "tmp"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}

	// Bind and load the TLS files before any worker starts: a second
	// process on the same address, or a bad certificate, must fail here
	// without touching queued jobs.
	ln, err := listen(cfg)
	if err != nil {
		return err
	}
	defer ln.Close()
	public := cfg.PublicURL
	if public == "" {
		scheme := "http"
		if cfg.TLSCert != "" {
			scheme = "https"
		}
		public = scheme + "://" + ln.Addr().String()
	}
	// NewURLs derives its signing key from what it is given (here the
	// content key), so URLs signed before a restart stay valid.
	urls, err := httpapi.NewURLs(public, key)
	if err != nil {
		return fmt.Errorf("EARSHOT_PUBLIC_URL: %w", err)
	}
	hooks, err := webhook.New(webhook.Config{
		Queue: store, Key: deriveKey(key, "webhook deliveries"), AllowPrivate: cfg.AllowPrivate, Logger: log,
		RedactedAudioURL: urls.RedactedAudio,
		OnStatus:         store.SetWebhookStatus,
		Policy:           webhook.Policy{Backoff: webhook.ConstantBackoff(cfg.WebhookRetry)},
	})
	if err != nil {
		return err
	}
	engines, err := buildEngines(cfg, rec, dec)
	if err != nil {
		return err
	}
	popts := pipeline.Options{TempDir: tmp}
	if cfg.LLMURL != "" {
		gen, err := llm.New(llm.Config{BaseURL: cfg.LLMURL, Model: cfg.LLMModel, APIKey: cfg.LLMKey})
		if err != nil {
			return fmt.Errorf("EARSHOT_LLM_URL: %w", err)
		}
		popts.Summaries.Generator = gen
		log.Info("summaries and chapter titles use a language model; transcript text (already redacted) is sent to it", "url", cfg.LLMURL, "model", cfg.LLMModel)
	}
	svc, err := transcribe.NewService(transcribe.Config{
		Store: store, Blobs: blobs, Engines: engines, Decoder: dec, Key: key, Notifier: hooks,
		Stages:           pipeline.Default(popts),
		AllowPrivateURLs: cfg.AllowPrivate,
		Workers:          cfg.Workers,
		Lease:            cfg.JobLease,
		Retention:        cfg.Retention,
		UploadTTL:        cfg.UploadTTL,
		MaxUploadBytes:   cfg.MaxUpload,
		MaxMediaDuration: cfg.MaxDuration,
		TempDir:          tmp,
		Logger:           log,
	})
	if err != nil {
		return err
	}
	auth := httpapi.Keys(keys)
	rt, err := realtime.NewHandler(realtime.Config{
		Recognizer:            streamRec,
		Authenticate:          httpapi.AuthFunc(auth),
		Format:                func(ws []transcribe.Word) []transcribe.Word { return textfmt.Format(ws, nil) },
		MaxSessionsPerProject: cfg.RealtimeLimit,
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	api, err := httpapi.New(httpapi.Config{
		Service: svc, Auth: auth, URLs: urls, Realtime: rt, RealtimeToken: rt.TokenHandler(),
		RateLimit: cfg.RateLimit, Logger: log,
	})
	if err != nil {
		return err
	}

	// The web console at /console/ (the mux redirects /console there), a
	// bare / to the console, the API everywhere else.
	mux := http.NewServeMux()
	mux.Handle(console.Prefix, console.Handler())
	mux.Handle("GET /{$}", http.RedirectHandler(console.Prefix, http.StatusFound))
	mux.Handle("/", api)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	svc.Start()
	hooks.Start()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("earshot listening", "addr", ln.Addr().String(), "public_url", urls.Origin(), "data", cfg.Data,
		"workers", svc.Workers(), "tls", cfg.TLSCert != "")
	log.Info("web console", "url", urls.Origin()+console.Prefix)
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr().String())
	}
	if devKey != "" && !cfg.Quiet {
		fmt.Fprintf(os.Stderr, "\n  Development API key (kept in %s): %s\n\n", filepath.Join(cfg.Data, "dev-api-key"), devKey)
	}

	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			log.Error("serving", "err", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	_ = rt.Close()
	if err := svc.Close(sctx); err != nil {
		log.Warn("jobs still running at shutdown; they resume after restart", "err", err)
	}
	_ = hooks.Close()
	return nil
}

// listen binds cfg.Addr, with TLS when configured.
func listen(cfg *Config) (net.Listener, error) {
	var tcfg *tls.Config
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_TLS_CERT/EARSHOT_TLS_KEY: %w", err)
		}
		tcfg = &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("EARSHOT_ADDR: %w", err)
	}
	if tcfg != nil {
		ln = tls.NewListener(ln, tcfg)
	}
	return ln, nil
}

// lockDataDir takes an exclusive lock on the data directory, so a second
// process cannot run on it (its SQLite database may be shared, but its
// temporary files and upload fragments are swept at start as this
// process's own).
func lockDataDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data directory lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("data directory %s is in use by another earshot process (it holds %s); give each process its own EARSHOT_DATA", dir, path)
		}
		return nil, fmt.Errorf("data directory lock: %w", err)
	}
	return func() { f.Close() }, nil
}
