package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/server/metrics"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// Operations: logs as text or JSON lines in which every request and job
// carries its id, and, on a listener of their own (EARSHOT_METRICS_ADDR,
// off by default), Prometheus metrics at /metrics, liveness at /healthz
// and readiness at /readyz. The listener is separate so that neither the
// metrics nor the readiness reasons (which name paths and errors) are
// served to API clients.

// newLogger returns the server's logger writing to w: text (format "" or
// "text") or one JSON object per line ("json"), at level (debug, info,
// warn, error) and above. A record logged with a request's context
// carries the request's id as request_id.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("EARSHOT_LOG_LEVEL: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler
	switch strings.ToLower(format) {
	case "", "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, fmt.Errorf("EARSHOT_LOG_FORMAT: %q is not text or json", format)
	}
	return slog.New(httpapi.LogHandler(h)), nil
}

// ops is the server's operational side. Without EARSHOT_METRICS_ADDR it
// only writes the access log; its hooks are then nil, which the libraries
// take as "nothing to report".
type ops struct {
	log *slog.Logger
	m   *metrics.Metrics // nil without EARSHOT_METRICS_ADDR
	ln  net.Listener     // nil without EARSHOT_METRICS_ADDR
	srv *http.Server
}

// newOps binds addr (EARSHOT_METRICS_ADDR) when it is set, so that a
// taken address fails the start before any worker claims a job, and makes
// the metrics.
func newOps(addr string, log *slog.Logger) (*ops, error) {
	o := &ops{log: log}
	if addr == "" {
		return o, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("EARSHOT_METRICS_ADDR: %w", err)
	}
	o.ln = ln
	o.m = metrics.New(metrics.Config{Logger: log})
	return o, nil
}

// Hooks for the libraries' configs: nil without metrics.

func (o *ops) jobHook() func(transcribe.JobEvent) {
	if o.m == nil {
		return nil
	}
	return o.m.Job
}

func (o *ops) attemptHook() func(webhook.AttemptEvent) {
	if o.m == nil {
		return nil
	}
	return o.m.Attempt
}

func (o *ops) sessionHook() func(realtime.SessionEvent) {
	if o.m == nil {
		return nil
	}
	return o.m.Session
}

func (o *ops) transcriptHook() func(realtime.TranscriptEvent) {
	if o.m == nil {
		return nil
	}
	return o.m.Transcript
}

// request is httpapi.Config.OnRequest: one access-log line per request,
// with its id (also in the response's X-Request-Id), and the request
// metrics.
func (o *ops) request(i httpapi.RequestInfo) {
	o.log.LogAttrs(context.Background(), slog.LevelInfo, "request",
		slog.String("request_id", i.RequestID), slog.String("method", i.Method), slog.String("path", i.Path),
		slog.String("route", i.Route), slog.Int("status", i.Status),
		slog.Float64("ms", float64(i.Duration.Microseconds())/1000), slog.Int64("bytes", i.Written))
	if o.m != nil {
		o.m.Request(i)
	}
}

// pool returns rec counted as the decoder pool name of size decoders (0:
// one per CPU, the engines' default), with the worker processes of an
// isolated engine watched; rec itself without metrics.
func (o *ops) pool(name string, size int, rec localEngine) transcribe.StreamRecognizer {
	if o.m == nil {
		return rec
	}
	if size <= 0 {
		size = runtime.NumCPU()
	}
	if ir, ok := rec.(*isolate.Recognizer); ok {
		o.m.WatchWorkers(name, ir.Stats)
	}
	return o.m.InstrumentPool(name, size, rec).(transcribe.StreamRecognizer)
}

// start serves /metrics, /healthz and /readyz on the operations listener,
// with the queue depth read from the store and readiness checks of the
// store, the blob store and every engine (stream is the streaming one).
// It returns at once; without EARSHOT_METRICS_ADDR it does nothing.
func (o *ops) start(svc *transcribe.Service, store driver.Store, blobs driver.BlobStore, engines []transcribe.Engine, stream transcribe.Recognizer) {
	if o.ln == nil {
		return
	}
	checks := []metrics.Check{metrics.StoreCheck("store", store), metrics.BlobCheck("blobs", blobs)}
	for _, e := range engines {
		o.m.AddEngines(e.Name)
		c := metrics.EngineCheck("engine "+e.Name, e.Recognizer)
		o.m.WatchEngine(e.Name, c) // earshot_engine_up, from the same (cached) check
		checks = append(checks, c)
	}
	checks = append(checks, metrics.EngineCheck("engine streaming", stream))
	if _, ok := store.(driver.JobCounter); ok {
		o.m.WatchJobs(svc.JobCounts)
	} else {
		o.log.Info("the store does not count jobs: no queue depth metric", "store", fmt.Sprintf("%T", store))
	}
	health := metrics.NewHealth(metrics.HealthConfig{Checks: checks, Logger: o.log})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", o.m.Handler())
	mux.Handle("GET /healthz", health.Live())
	mux.Handle("GET /readyz", health.Ready())
	o.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(o.log.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := o.srv.Serve(o.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.log.Error("operations listener", "err", err)
		}
	}()
	o.log.Info("operations listening", "addr", o.ln.Addr().String(), "paths", "/metrics /healthz /readyz")
}

// close stops the operations listener (last, so the shutdown can be
// watched to the end).
func (o *ops) close() {
	if o.ln == nil {
		return
	}
	if o.srv == nil {
		o.ln.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = o.srv.Shutdown(ctx)
}
