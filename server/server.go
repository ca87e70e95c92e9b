// Package server assembles Earshot's reference server from the library:
// the AssemblyAI v2 REST and realtime API on embedded defaults (SQLite and
// files in the data directory, Debian's pocketsphinx as the recognizer),
// configured by EARSHOT_* environment variables or flags of the same
// meaning. server/cmd/earshot-server and the earshot command's serve run it.
//
// With EARSHOT_DATABASE_URL (PostgreSQL) and EARSHOT_S3_* (an S3 bucket)
// any number of processes, each with its own data directory, share the
// work: jobs, uploads, webhooks (each delivered by one process), realtime
// tokens and sessions (a session resumes on any process) live in the
// database and the bucket; every process needs the same
// EARSHOT_ENCRYPTION_KEY (it also signs redacted-audio URLs) and
// EARSHOT_API_KEYS. EARSHOT_EU_ADDR adds the EU region: a second
// listener serving the spec's EU endpoint set over a store and blobs of
// its own (region.go).
//
// Every front end (/v2 on both listeners, /v1, the realtime token
// endpoint and WebSocket) shares one httpapi.Guard: EARSHOT_RATE_LIMIT and
// EARSHOT_RATE_BURST per project, EARSHOT_AUTH_FAILURE_RATE per client
// address, with the client address taken from X-Forwarded-For only when
// the peer is in EARSHOT_TRUSTED_PROXIES. Streaming sessions of one
// project hold at most EARSHOT_REALTIME_PROJECT_SHARE of the capacity the
// admission measures (default half when the keys name several projects).
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
	"flag"
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
	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/realtime/universal"
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
	if errors.Is(err, flag.ErrHelp) {
		return nil // the help went to standard output
	}
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
	log, err := newLogger(os.Stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return err
	}
	slog.SetDefault(log)
	// ParseConfig checks these too; a Config built by hand gets the same
	// checks (and the EU defaults) here.
	if err := cfg.checkStorage(); err != nil {
		return err
	}

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
	main, err := openRegion(ctx, cfg, "", cfg.Data, cfg.DatabaseSchema, cfg.S3Bucket, cfg.S3Prefix, log)
	if err != nil {
		return err
	}
	defer main.close()
	var eu *region
	if cfg.EUAddr != "" {
		eu, err = openRegion(ctx, cfg, "eu", filepath.Join(cfg.Data, "eu"), cfg.EUDatabaseSchema, cfg.EUS3Bucket, cfg.EUS3Prefix, log)
		if err != nil {
			return err
		}
		defer eu.close()
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
	// audio) stays inside the 0700 data directory; each Service sweeps
	// what a crashed run left in its own directory.
	tmp, err := filepath.Abs(filepath.Join(cfg.Data, "tmp"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(tmp, "eu"), 0o700); err != nil {
		return err
	}

	// Bind and load the TLS files before any worker starts: a second
	// process on the same address, or a bad certificate, must fail here
	// without touching queued jobs.
	ln, err := listen(cfg, cfg.Addr, "EARSHOT_ADDR")
	if err != nil {
		return err
	}
	defer ln.Close()
	var euLn net.Listener
	if eu != nil {
		if euLn, err = listen(cfg, cfg.EUAddr, "EARSHOT_EU_ADDR"); err != nil {
			return err
		}
		defer euLn.Close()
	}
	// Metrics, health and readiness on their own listener (metrics.go).
	ops, err := newOps(cfg.MetricsAddr, log)
	if err != nil {
		return err
	}
	defer ops.close()
	batch := ops.pool("batch", decoders, rec)
	stream := ops.pool("stream", streamSessions(cfg), streamRec)
	// NewURLs derives its signing key from what it is given (here the
	// content key), so URLs signed before a restart, or by another
	// process, stay valid.
	urls, err := httpapi.NewURLs(publicURL(cfg, cfg.PublicURL, ln), key)
	if err != nil {
		return fmt.Errorf("EARSHOT_PUBLIC_URL: %w", err)
	}
	var euURLs *httpapi.URLs
	if eu != nil {
		if euURLs, err = httpapi.NewURLs(publicURL(cfg, cfg.EUPublicURL, euLn), deriveKey(key, "eu region urls")); err != nil {
			return fmt.Errorf("EARSHOT_EU_PUBLIC_URL: %w", err)
		}
	}
	engines, err := buildEngines(cfg, batch, ops.serverHook)
	if err != nil {
		return err
	}
	popts := pipeline.Options{TempDir: tmp, Text: textfmt.Options{PunctuationModel: cfg.PunctuationModel}}
	if cfg.LLMURL != "" {
		gen, err := llm.New(llm.Config{BaseURL: cfg.LLMURL, Model: cfg.LLMModel, APIKey: cfg.LLMKey})
		if err != nil {
			return fmt.Errorf("EARSHOT_LLM_URL: %w", err)
		}
		popts.Summaries.Generator = gen
		log.Info("summaries and chapter titles use a language model; transcript text (already redacted) is sent to it", "url", cfg.LLMURL, "model", cfg.LLMModel)
	}
	me := processID()
	// service returns a region's webhook notifier and Service.
	service := func(r *region, u *httpapi.URLs, tmp string) (*webhook.Notifier, *transcribe.Service, error) {
		rlog := log
		if r.name != "" {
			rlog = log.With("region", r.name)
		}
		hooks, err := webhook.New(webhook.Config{
			Queue: r.store, Key: deriveKey(key, "webhook deliveries"), AllowPrivate: cfg.AllowPrivate, Logger: rlog,
			RedactedAudioURL: u.RedactedAudio,
			OnStatus:         r.store.SetWebhookStatus,
			Policy:           webhook.Policy{Backoff: webhook.ConstantBackoff(cfg.WebhookRetry)},
			Owner:            "webhook-" + me,
			OnAttempt:        ops.attemptHook(),
		})
		if err != nil {
			return nil, nil, err
		}
		po := popts
		po.TempDir = tmp
		svc, err := transcribe.NewService(transcribe.Config{
			Store: r.store, Blobs: r.blobs, Engines: engines, Decoder: dec, Key: key, Notifier: hooks,
			Stages:           pipeline.Default(po),
			AllowPrivateURLs: cfg.AllowPrivate,
			Workers:          jobWorkers(cfg, engines),
			Lease:            cfg.JobLease,
			OutageWindow:     cfg.OutageWindow,
			Retention:        cfg.Retention,
			UploadTTL:        cfg.UploadTTL,
			MaxUploadBytes:   cfg.MaxUpload,
			MaxMediaDuration: cfg.MaxDuration,
			TempDir:          tmp,
			Logger:           rlog,
			WorkerID:         me,
			OnJob:            ops.jobHook(),
		})
		if err != nil {
			return nil, nil, err
		}
		return hooks, svc, nil
	}
	hooks, svc, err := service(main, urls, tmp)
	if err != nil {
		return err
	}
	auth := httpapi.Keys(keys)
	// One Guard for every front end (/v2 on both listeners, /v1, the
	// realtime token endpoint and WebSocket): a project has one request
	// budget and a client address one failed-auth budget, whatever door
	// they use.
	guard, err := newGuard(cfg)
	if err != nil {
		return err
	}
	// Streaming sessions are admitted while the measured load leaves the
	// cores room to keep them at real time (1013 beyond), never more than
	// the stream pool holds.
	adm, err := realtime.NewLoadAdmission(realtime.LoadAdmissionConfig{MaxSessions: streamSessions(cfg)})
	if err != nil {
		return err
	}
	rt, err := realtime.NewHandler(realtime.Config{
		Recognizer:            stream,
		Admission:             adm,
		Authenticate:          httpapi.AuthFunc(auth),
		Format:                func(ws []transcribe.Word) []transcribe.Word { return popts.Text.Format(ws, nil) },
		MaxSessionsPerProject: cfg.RealtimeLimit,
		ProjectShare:          realtimeShare(cfg, keys),
		Guard:                 guard,
		State:                 main.rtState,
		ProcessID:             me,
		OnSession:             ops.sessionHook(),
		OnTranscript:          ops.transcriptHook(),
		Logger:                log,
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	// Universal-Streaming (v3: GET /v3/token, /v3/ws) beside v2 on the
	// same engine, recognizer pool, admission, Guard, state and hooks.
	v3, err := universal.NewHandler(universal.Config{
		Engine:                engine.Config{Recognizer: stream, Format: func(ws []transcribe.Word) []transcribe.Word { return popts.Text.Format(ws, nil) }},
		Authenticate:          httpapi.AuthFunc(auth),
		State:                 main.rtState,
		Admission:             adm,
		Guard:                 guard,
		MaxSessionsPerProject: cfg.RealtimeLimit,
		ProjectSessions:       rt.LiveSessions,
		ProcessID:             me,
		OnSession:             ops.sessionHook(),
		OnTranscript:          ops.transcriptHook(),
		Logger:                log,
	})
	if err != nil {
		return err
	}
	defer v3.Close()
	var other []*httpapi.URLs
	if euURLs != nil {
		other = []*httpapi.URLs{euURLs}
	}
	lem, err := lemurHandler(cfg, svc, main.store, key, log) // LeMUR on EARSHOT_LLM_URL's model, or none
	if err != nil {
		return err
	}
	api, err := httpapi.New(httpapi.Config{
		Service: svc, Auth: auth, URLs: urls, Realtime: rt, RealtimeToken: rt.TokenHandler(), LeMUR: lem,
		Streaming: v3, StreamingToken: v3.TokenHandler(),
		StoreTimeout: storeTimeout(cfg.StoreTimeout), Idempotency: idempotencyStore(main.store),
		Guard: guard, Logger: log, OtherRegions: other, OnRequest: ops.request,
	})
	if err != nil {
		return err
	}
	// OpenAI's audio API (POST /v1/audio/transcriptions, GET /v1/models)
	// on the same engines, keys and Guard; nothing it transcribes is
	// kept, and its transcripts are filed apart from the project's /v2
	// list (openaiapi.JobProject).
	oai, err := openaiapi.New(openaiapi.Config{
		Service: svc, Auth: auth, Engines: engines, MaxUploadBytes: cfg.MaxUpload, Logger: log, Guard: guard,
	})
	if err != nil {
		return err
	}

	// The web console at /console/ (the mux redirects /console there), a
	// bare / to the console, OpenAI's audio API under /v1/, the AssemblyAI
	// API everywhere else.
	mux := http.NewServeMux()
	mux.Handle(console.Prefix, httpapi.WithRequestID(console.Handler()))
	mux.Handle("GET /{$}", http.RedirectHandler(console.Prefix, http.StatusFound))
	mux.Handle("/v1/", httpapi.Instrument(oai, oai.Route, ops.request))
	mux.Handle("/", api)
	srv := newHTTPServer(mux, log)
	servers := []*http.Server{srv}
	services := []*transcribe.Service{svc}
	notifiers := []*webhook.Notifier{hooks}

	// The EU region: its own Service over its own storage, the EU
	// endpoint set only, the same keys.
	if eu != nil {
		euHooks, euSvc, err := service(eu, euURLs, filepath.Join(tmp, "eu"))
		if err != nil {
			return err
		}
		euAPI, err := httpapi.New(httpapi.Config{
			Service: euSvc, Auth: auth, URLs: euURLs, Endpoints: httpapi.EndpointsEU,
			StoreTimeout: storeTimeout(cfg.StoreTimeout), Idempotency: idempotencyStore(eu.store),
			Guard: guard, Logger: log.With("region", "eu"), OtherRegions: []*httpapi.URLs{urls}, OnRequest: ops.request,
		})
		if err != nil {
			return err
		}
		servers = append(servers, newHTTPServer(euAPI, log))
		services = append(services, euSvc)
		notifiers = append(notifiers, euHooks)
	}

	jctx, stopJanitors := context.WithCancel(context.Background())
	defer stopJanitors()
	for _, r := range []*region{main, eu} {
		if r != nil {
			go r.janitor(jctx, cfg.UploadTTL, log)
		}
	}
	for _, s := range services {
		s.Start()
	}
	for _, n := range notifiers {
		n.Start()
	}
	ops.start(svc, main.store, main.blobs, engines, stream)
	errc := make(chan error, len(servers))
	go func() { errc <- srv.Serve(ln) }()
	log.Info("earshot listening", append([]any{"addr", ln.Addr().String(), "public_url", urls.Origin(), "data", cfg.Data,
		"workers", svc.Workers(), "tls", cfg.TLSCert != "", "process", me}, main.where(cfg)...)...)
	if eu != nil {
		go func() { errc <- servers[1].Serve(euLn) }()
		log.Info("EU region listening", append([]any{"addr", euLn.Addr().String(), "public_url", euURLs.Origin()}, eu.where(cfg)...)...)
	}
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
	// Requests waiting for OpenAI-style transcriptions end first (503,
	// their transcripts deleted), so they do not hold the shutdown up.
	_ = oai.Close(sctx)
	for _, s := range servers {
		_ = s.Shutdown(sctx)
	}
	_ = rt.Close()
	for _, s := range services {
		if err := s.Close(sctx); err != nil {
			log.Warn("jobs still running at shutdown; they resume after restart", "err", err)
		}
	}
	for _, n := range notifiers {
		_ = n.Close()
	}
	return nil
}

// newGuard returns the limits every front end shares: EARSHOT_RATE_LIMIT
// and EARSHOT_RATE_BURST per project, EARSHOT_AUTH_FAILURE_RATE per client
// address, the client address read from X-Forwarded-For of
// EARSHOT_TRUSTED_PROXIES only.
func newGuard(cfg *Config) (*httpapi.Guard, error) {
	proxies, err := httpapi.ParseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("EARSHOT_TRUSTED_PROXIES: %w", err)
	}
	g, err := httpapi.NewGuard(httpapi.GuardConfig{RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst,
		AuthFailureRate: cfg.AuthFailures, TrustedProxies: proxies})
	if err != nil {
		return nil, fmt.Errorf("rate limits: %w", err)
	}
	return g, nil
}

// realtimeShare is EARSHOT_REALTIME_PROJECT_SHARE, or by default half of
// the streaming capacity per project when the keys name several projects
// (none can starve the others), all of it with one.
func realtimeShare(cfg *Config, keys map[string]string) float64 {
	if cfg.RealtimeShare > 0 {
		return min(cfg.RealtimeShare, 1)
	}
	projects := map[string]bool{}
	for _, p := range keys {
		projects[p] = true
	}
	if len(projects) > 1 {
		return 0.5
	}
	return 1
}

// newHTTPServer returns the server for one listener.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// publicURL is configured, or http(s):// plus the address ln listens on.
func publicURL(cfg *Config, configured string, ln net.Listener) string {
	if configured != "" {
		return configured
	}
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + ln.Addr().String()
}

// listen binds addr (named by setting in errors), with TLS when
// configured.
func listen(cfg *Config, addr, setting string) (net.Listener, error) {
	var tcfg *tls.Config
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("EARSHOT_TLS_CERT/EARSHOT_TLS_KEY: %w", err)
		}
		tcfg = &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
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
			return nil, &DataDirError{Dir: dir}
		}
		return nil, fmt.Errorf("data directory lock: %w", err)
	}
	return func() { f.Close() }, nil
}
