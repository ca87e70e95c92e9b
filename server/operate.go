package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/earshot-dev/earshot/console"
)

// running is the assembled server: what serve starts, watches and stops.
type running struct {
	stores  *stores
	lns     *listeners
	regions []*regionService // the main region's first
	engines *engineSet
	rt      *streaming
	front   *front // its servers in the order of lns: main, EU
	ops     *ops
	worker  string // processID
	devKey  string // dataDir.devKey
}

// shutdownGrace bounds the graceful shutdown: requests finishing, jobs
// handing back their leases.
const shutdownGrace = 20 * time.Second

// serve starts the server r and runs it until ctx is done or a listener
// fails, then shuts it down (shutdown). It starts, in order: the S3
// janitors, each region's job workers and webhook notifier, the
// operations listener, and the API listeners; then logs where it
// listens, calls cfg.Ready and prints the development key.
func serve(ctx context.Context, cfg *Config, log *slog.Logger, r *running) error {
	jctx, stopJanitors := context.WithCancel(context.Background())
	defer stopJanitors()
	for _, reg := range r.stores.all() {
		go reg.janitor(jctx, cfg.UploadTTL, log)
	}
	for _, rs := range r.regions {
		rs.svc.Start()
	}
	for _, rs := range r.regions {
		rs.hooks.Start()
	}
	main := r.regions[0]
	r.ops.start(main.svc, main.region.store, main.region.blobs, r.engines.list, r.engines.stream)
	lns := []net.Listener{r.lns.main}
	if r.lns.eu != nil {
		lns = append(lns, r.lns.eu)
	}
	errc := make(chan error, len(r.front.servers))
	for i, srv := range r.front.servers {
		ln := lns[i]
		go func() { errc <- srv.Serve(ln) }()
		if i == 0 {
			log.Info("earshot listening", append([]any{"addr", ln.Addr().String(), "public_url", main.urls.Origin(), "data", cfg.Data,
				"workers", main.svc.Workers(), "tls", cfg.TLSCert != "", "process", r.worker}, main.region.where(cfg)...)...)
		} else {
			rs := r.regions[i]
			log.Info("EU region listening", append([]any{"addr", ln.Addr().String(), "public_url", rs.urls.Origin()}, rs.region.where(cfg)...)...)
		}
	}
	log.Info("web console", "url", main.urls.Origin()+console.Prefix)
	if cfg.Ready != nil {
		cfg.Ready(r.lns.main.Addr().String())
	}
	if r.devKey != "" && !cfg.Quiet {
		fmt.Fprintf(os.Stderr, "\n  Development API key (kept in %s): %s\n\n", filepath.Join(cfg.Data, "dev-api-key"), r.devKey)
	}

	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			log.Error("serving", "err", err)
		}
	}
	shutdown(r, log)
	return nil
}

// shutdown stops r within shutdownGrace: requests waiting for
// OpenAI-style transcriptions end first (503, their transcripts deleted),
// so they do not hold the rest up; then the API listeners stop accepting
// and finish their requests; the realtime v2 sessions end (resumable
// elsewhere); the job workers hand back what they could not finish (it
// resumes after the next start); the notifiers stop. Run's deferred
// closes do the rest, the operations listener last.
func shutdown(r *running, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	_ = r.front.oai.Close(sctx)
	for _, s := range r.front.servers {
		_ = s.Shutdown(sctx)
	}
	_ = r.rt.v2.Close()
	for _, rs := range r.regions {
		if err := rs.svc.Close(sctx); err != nil {
			log.Warn("jobs still running at shutdown; they resume after restart", "err", err)
		}
	}
	for _, rs := range r.regions {
		_ = rs.hooks.Close()
	}
}
