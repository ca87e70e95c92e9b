// Command server is Earshot's reference server: the AssemblyAI v2 REST and
// realtime API on embedded defaults (SQLite and files in the data
// directory, Debian's pocketsphinx as the recognizer), configured by
// EARSHOT_* environment variables or flags of the same meaning (-h lists
// them). SIGINT and SIGTERM shut it down gracefully; jobs cut off resume
// after the next start.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/console"
	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/storage/localfs"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/netguard"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
	"github.com/earshot-dev/earshot/webhook"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "earshot:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cfg, err := parseConfig(args)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return fmt.Errorf("EARSHOT_LOG_LEVEL: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
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
	// Temp files of Puts cut off by a crash are useless; drop them.
	if n, err := blobs.RemoveStale(context.Background(), time.Hour); err != nil {
		log.Warn("removing stale upload fragments", "err", err)
	} else if n > 0 {
		log.Info("removed stale upload fragments", "count", n)
	}
	decoders := cfg.Decoders
	if decoders == 0 {
		decoders = cfg.Workers // 0 means one per CPU in both
	}
	rec, err := pocketsphinx.New(pocketsphinx.Config{ModelDir: cfg.ModelDir, Decoders: decoders})
	if err != nil {
		return err
	}
	defer rec.Close()
	// Streaming sessions hold a decoder for their whole life, so they get
	// their own pool and never starve batch jobs (or the reverse).
	streamRec, err := pocketsphinx.New(pocketsphinx.Config{ModelDir: cfg.ModelDir, Decoders: max(cfg.StreamDecoders, 1)})
	if err != nil {
		return err
	}
	defer streamRec.Close()
	// Load one decoder now so a missing library or model fails at start-up
	// with the packages to install, not on the first job.
	if err := rec.Warm(context.Background(), 1); err != nil {
		return err
	}
	dec, err := media.NewDecoder(media.Config{MaxDuration: cfg.MaxDuration})
	if err != nil {
		return err
	}
	tmp := filepath.Join(cfg.Data, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	// Every temporary file (downloads, ffmpeg intermediates of redacted
	// audio) stays inside the 0700 data directory.
	if abs, err := filepath.Abs(tmp); err == nil {
		tmp = abs
	}
	os.Setenv("TMPDIR", tmp)

	svcCfg := transcribe.Config{
		Store: store, Blobs: blobs, Recognizer: rec, Decoder: dec, Key: key,
		Stages:           pipeline.Default(),
		PublicURL:        cfg.PublicURL,
		Workers:          cfg.Workers,
		Lease:            cfg.JobLease,
		Retention:        cfg.Retention,
		UploadTTL:        cfg.UploadTTL,
		MaxUploadBytes:   cfg.MaxUpload,
		MaxMediaDuration: cfg.MaxDuration,
		TempDir:          tmp,
		Logger:           log,
		Fetcher: &transcribe.HTTPFetcher{
			Client:   netguard.Client(netguard.Options{AllowPrivate: cfg.AllowPrivate, Timeout: 10 * time.Minute}),
			MaxBytes: cfg.MaxUpload,
		},
	}
	if !cfg.AllowPrivate {
		svcCfg.CheckURL = netguard.CheckLiteral
	}
	// The notifier needs the service's cipher and the service needs the
	// notifier: create the service, then the notifier, and connect them.
	var hooks *webhook.Notifier
	svcCfg.Notifier = transcribe.NotifierFunc(func(ctx context.Context, n transcribe.Notification) error {
		return hooks.Notify(ctx, n)
	})
	svc, err := transcribe.NewService(svcCfg)
	if err != nil {
		return err
	}
	hooks, err = webhook.New(webhook.Config{
		Store: store, Cipher: svc.Cipher(), AllowPrivate: cfg.AllowPrivate, Logger: log,
		OnStatus: svc.SetWebhookStatus,
		Policy:   webhook.Policy{Backoff: webhook.ConstantBackoff(cfg.WebhookRetry)},
	})
	if err != nil {
		return err
	}

	var api *httpapi.API // built below; the realtime handler authenticates through it
	rt, err := realtime.NewHandler(realtime.Config{
		Recognizer:            streamRec,
		Authenticate:          func(r *http.Request) (string, bool) { return api.Authenticate(r) },
		Format:                func(ws []transcribe.Word) []transcribe.Word { return textfmt.Format(ws, nil) },
		MaxSessionsPerProject: cfg.RealtimeLimit,
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	api, err = httpapi.New(httpapi.Config{
		Service: svc, Auth: httpapi.Keys(keys), Realtime: rt, RealtimeToken: rt.TokenHandler(),
		RateLimit: cfg.RateLimit, Logger: log,
	})
	if err != nil {
		return err
	}

	// The web console at /console/ (ServeMux redirects /console there); the API at the root.
	mux := http.NewServeMux()
	mux.Handle(console.Prefix, console.Handler())
	mux.Handle("/", api)
	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	svc.Start()
	hooks.Start()

	errc := make(chan error, 1)
	go func() {
		if cfg.TLSCert != "" {
			errc <- srv.ListenAndServeTLS(cfg.TLSCert, cfg.TLSKey)
		} else {
			errc <- srv.ListenAndServe()
		}
	}()
	log.Info("earshot listening", "addr", cfg.Addr, "public_url", cfg.PublicURL, "data", cfg.Data,
		"workers", svc.Config().Workers, "tls", cfg.TLSCert != "")
	if devKey != "" {
		fmt.Fprintf(os.Stderr, "\n  Development API key (kept in %s): %s\n\n", filepath.Join(cfg.Data, "dev-api-key"), devKey)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case s := <-sig:
		log.Info("shutting down", "signal", s.String())
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	_ = rt.Close()
	if err := svc.Close(ctx); err != nil {
		log.Warn("jobs still running at shutdown; they resume after restart", "err", err)
	}
	_ = hooks.Close()
	return nil
}
