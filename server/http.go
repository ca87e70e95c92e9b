package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/earshot-dev/earshot/console"
	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/transcribe"
)

// access is who may use the server and how much: the API keys and the
// one Guard for every front end (/v2 on both listeners, /v1, the realtime
// token endpoints and WebSockets), so that a project has one request
// budget and a client address one failed-auth budget, whatever door they
// use.
type access struct {
	auth  httpapi.Keys
	guard *httpapi.Guard
}

// newAccess returns the keys (dataDir.keys) as the authenticator, and the
// Guard (newGuard).
func newAccess(cfg *Config, keys map[string]string) (*access, error) {
	g, err := newGuard(cfg)
	if err != nil {
		return nil, err
	}
	return &access{auth: httpapi.Keys(keys), guard: g}, nil
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

// front is the HTTP side: one http.Server per listener (the main one
// first, then the EU region's), and OpenAI's audio API, whose waiting
// requests the shutdown ends first.
type front struct {
	servers []*http.Server
	oai     *openaiapi.Handler
}

// buildHTTP returns the servers of the API listeners. The main listener
// serves the web console at /console/ (the mux redirects /console there),
// a bare / redirected to the console, OpenAI's audio API under /v1/, and
// the AssemblyAI API everywhere else (with LeMUR on EARSHOT_LLM_URL's
// model, realtime v2 and v3, and pointers to the EU region). The EU
// listener serves the spec's EU endpoint set over the EU region's
// Service, with the same keys and Guard. regions are buildServices'.
func buildHTTP(cfg *Config, acc *access, regions []*regionService, rt *streaming, engines []transcribe.Engine, key []byte,
	ops *ops, log *slog.Logger) (*front, error) {
	main := regions[0]
	var other []*httpapi.URLs
	for _, r := range regions[1:] {
		other = append(other, r.urls)
	}
	lem, err := lemurHandler(cfg, main.svc, main.region.store, key, log) // LeMUR on EARSHOT_LLM_URL's model, or none
	if err != nil {
		return nil, err
	}
	api, err := httpapi.New(httpapi.Config{
		Service: main.svc, Auth: acc.auth, URLs: main.urls, Realtime: rt.v2, RealtimeToken: rt.v2.TokenHandler(), LeMUR: lem,
		Streaming: rt.v3, StreamingToken: rt.v3.TokenHandler(),
		StoreTimeout: storeTimeout(cfg.StoreTimeout), Idempotency: idempotencyStore(main.region.store),
		Guard: acc.guard, Logger: log, OtherRegions: other, OnRequest: ops.request,
	})
	if err != nil {
		return nil, err
	}
	// OpenAI's audio API (POST /v1/audio/transcriptions, GET /v1/models)
	// on the same engines, keys and Guard; nothing it transcribes is
	// kept, and its transcripts are filed apart from the project's /v2
	// list (openaiapi.JobProject).
	oai, err := openaiapi.New(openaiapi.Config{
		Service: main.svc, Auth: acc.auth, Engines: engines, MaxUploadBytes: cfg.MaxUpload, Logger: log, Guard: acc.guard,
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(console.Prefix, httpapi.WithRequestID(console.Handler()))
	mux.Handle("GET /{$}", http.RedirectHandler(console.Prefix, http.StatusFound))
	mux.Handle("/v1/", httpapi.Instrument(oai, oai.Route, ops.request))
	mux.Handle("/", api)
	f := &front{servers: []*http.Server{newHTTPServer(mux, log)}, oai: oai}

	// The EU region: its own Service over its own storage, the EU
	// endpoint set only, the same keys.
	for _, r := range regions[1:] {
		euAPI, err := httpapi.New(httpapi.Config{
			Service: r.svc, Auth: acc.auth, URLs: r.urls, Endpoints: httpapi.EndpointsEU,
			StoreTimeout: storeTimeout(cfg.StoreTimeout), Idempotency: idempotencyStore(r.region.store),
			Guard: acc.guard, Logger: log.With("region", r.region.name), OtherRegions: []*httpapi.URLs{main.urls}, OnRequest: ops.request,
		})
		if err != nil {
			return nil, err
		}
		f.servers = append(f.servers, newHTTPServer(euAPI, log))
	}
	return f, nil
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
