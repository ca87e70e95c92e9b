package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

// Config configures Metrics. The zero value is usable.
type Config struct {
	// Engines are the speech engine names whose job series exist (at 0)
	// before their first job, so rates and alerts work from the start.
	// Default: none (series appear with their first job).
	Engines []string
	// Logger receives errors met while gathering (a job count that could
	// not be read). Default slog.Default().
	Logger *slog.Logger
	// CountTimeout bounds the job count made at each scrape. Default 2s.
	CountTimeout time.Duration
}

// Metrics holds Earshot's Prometheus collectors on a registry of its own
// and implements the libraries' observer hooks (Job, Session, Transcript,
// Attempt, Request). Safe for concurrent use.
type Metrics struct {
	cfg Config
	reg *prometheus.Registry

	jobsSubmitted *prometheus.CounterVec
	jobs          *prometheus.CounterVec
	queueWait     *prometheus.HistogramVec
	processing    *prometheus.HistogramVec
	turnaround    *prometheus.HistogramVec
	audio         *prometheus.CounterVec
	rtf           *prometheus.HistogramVec

	sessionsActive prometheus.Gauge
	sessions       *prometheus.CounterVec
	streamAudio    prometheus.Counter
	partial        prometheus.Histogram
	final          prometheus.Histogram

	webhookAttempts  *prometheus.CounterVec
	webhookTries     prometheus.Histogram
	webhookDurations prometheus.Histogram

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec

	poolInUse *prometheus.GaugeVec
	poolSize  *prometheus.GaugeVec

	servers serverVecs // servers.go
}

// Latency buckets, in seconds.
var (
	jobBuckets      = []float64{0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000}
	waitBuckets     = []float64{0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600}
	rtfBuckets      = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 5}
	partialBuckets  = []float64{0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5}
	finalBuckets    = []float64{0.1, 0.25, 0.5, 0.75, 0.9, 1, 1.25, 1.5, 2, 3, 5, 10}
	attemptsBuckets = []float64{1, 2, 3, 4, 5, 6, 8, 11}
)

// New returns Metrics on a new registry that also holds the Go runtime and
// process collectors.
func New(cfg Config) *Metrics {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CountTimeout <= 0 {
		cfg.CountTimeout = 2 * time.Second
	}
	m := &Metrics{cfg: cfg, reg: prometheus.NewRegistry()}
	f := factory{m.reg}
	m.jobsSubmitted = f.counterVec("earshot_jobs_submitted_total", "Transcription jobs queued by this process, by the engine chosen.", "engine")
	m.jobs = f.counterVec("earshot_jobs_total", "Claims of transcription jobs by this process's workers that ended, by outcome (completed, error, retried after an engine crash, interrupted, lost) and engine.", "outcome", "engine")
	m.queueWait = f.histogramVec("earshot_job_queue_wait_seconds", "Time from a job's creation to each of its claims.", waitBuckets, "engine")
	m.processing = f.histogramVec("earshot_job_processing_seconds", "Time from claim to outcome of the claims that ended a job (completed or error): fetch, decode, recognition and stages.", jobBuckets, "engine")
	m.turnaround = f.histogramVec("earshot_job_turnaround_seconds", "Time from a job's creation to its completion (completed or error), queueing and earlier claims included.", jobBuckets, "engine")
	m.audio = f.counterVec("earshot_audio_seconds_total", "Seconds of media in completed jobs.", "engine")
	m.rtf = f.histogramVec("earshot_realtime_factor", "Processing time divided by media length of completed jobs (below 1 is faster than real time).", rtfBuckets, "engine")

	m.sessionsActive = f.gauge("earshot_realtime_sessions_active", "Streaming sessions that hold a recognizer stream (streaming, or waiting for a resume).")
	m.sessions = f.counterVec("earshot_realtime_sessions_total", "Streaming sessions that ended, by final state (terminated or expired).", "state")
	m.streamAudio = f.counter("earshot_realtime_audio_seconds_total", "Seconds of audio received by streaming sessions that ended.")
	m.partial = f.histogram("earshot_realtime_partial_latency_seconds", "Time from receiving the audio that ends a word to the first partial transcript showing it.", partialBuckets)
	m.final = f.histogram("earshot_realtime_final_latency_seconds", "Time from receiving the audio that ends speech to the final transcript, the endpointing pause included.", finalBuckets)

	m.webhookAttempts = f.counterVec("earshot_webhook_deliveries_total", "Webhook delivery attempts, by outcome: delivered, retry (another attempt is scheduled) or failed (given up).", "outcome")
	m.webhookTries = f.histogram("earshot_webhook_delivery_attempts", "Attempts each finished webhook delivery took (delivered or failed).", attemptsBuckets)
	m.webhookDurations = f.histogram("earshot_webhook_attempt_seconds", "Time each webhook request took, until the answer or the failure.", prometheus.DefBuckets)

	m.httpRequests = f.counterVec("earshot_http_requests_total", "API requests, by route pattern, method and status code.", "route", "method", "status")
	m.httpDuration = f.histogramVec("earshot_http_request_duration_seconds", "API request latency by route pattern and method (WebSocket upgrades excluded).", prometheus.DefBuckets, "route", "method")

	m.poolInUse = f.gaugeVec("earshot_decoders_in_use", "Recognizer decoders serving a recognition or stream now, by pool.", "pool")
	m.poolSize = f.gaugeVec("earshot_decoders", "The most decoders a pool may hold, by pool.", "pool")

	m.AddEngines(cfg.Engines...)
	for _, o := range []webhook.Outcome{webhook.Delivered, webhook.Retry, webhook.Fail} {
		m.webhookAttempts.WithLabelValues(o.String())
	}
	for _, s := range []realtime.State{realtime.StateTerminated, realtime.StateExpired} {
		m.sessions.WithLabelValues(string(s))
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// AddEngines makes the job series of the named engines exist (at 0)
// before their first job, like Config.Engines.
func (m *Metrics) AddEngines(names ...string) {
	for _, e := range names {
		for _, o := range transcribe.JobOutcomes() {
			m.jobs.WithLabelValues(string(o), e)
		}
		m.jobsSubmitted.WithLabelValues(e)
		m.audio.WithLabelValues(e)
	}
}

// factory makes collectors registered on reg.
type factory struct{ reg *prometheus.Registry }

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.reg.MustRegister(g)
	return g
}

func (f factory) gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(g)
	return g
}

func (f factory) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	f.reg.MustRegister(h)
	return h
}

func (f factory) histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}

// Registry returns the registry the collectors are on (to add more).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus exposition formats (the
// /metrics endpoint). A collector that fails (a job count the store could
// not answer) is logged and left out; the rest is still served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(m.cfg.Logger.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.reg, // promhttp_metric_handler_* about the scrapes themselves
	})
}

func engineLabel(name string) string {
	if name == "" {
		return "unknown"
	}
	return name
}

// Job implements transcribe.Config.OnJob.
func (m *Metrics) Job(e transcribe.JobEvent) {
	eng := engineLabel(e.Engine)
	switch e.Kind {
	case transcribe.JobSubmitted:
		m.jobsSubmitted.WithLabelValues(eng).Inc()
	case transcribe.JobClaimed:
		m.queueWait.WithLabelValues(eng).Observe(max(e.Waited.Seconds(), 0))
	case transcribe.JobFinished:
		m.jobs.WithLabelValues(string(e.Outcome), eng).Inc()
		if e.Outcome != transcribe.JobCompleted && e.Outcome != transcribe.JobFailed {
			return
		}
		m.processing.WithLabelValues(eng).Observe(max(e.Processing.Seconds(), 0))
		m.turnaround.WithLabelValues(eng).Observe(max(e.Turnaround.Seconds(), 0))
		if e.Outcome == transcribe.JobCompleted && e.Audio > 0 {
			m.audio.WithLabelValues(eng).Add(e.Audio.Seconds())
			m.rtf.WithLabelValues(eng).Observe(max(e.Processing.Seconds(), 0) / e.Audio.Seconds())
		}
	}
}

// Session implements realtime.Config.OnSession.
func (m *Metrics) Session(e realtime.SessionEvent) {
	switch e.Kind {
	case realtime.SessionBegan:
		m.sessionsActive.Inc()
	case realtime.SessionEnded:
		m.sessionsActive.Dec()
		m.sessions.WithLabelValues(string(e.State)).Inc()
		m.streamAudio.Add(e.Audio.Seconds())
	}
}

// Transcript implements realtime.Config.OnTranscript.
func (m *Metrics) Transcript(e realtime.TranscriptEvent) {
	if e.Final {
		m.final.Observe(max(e.Latency.Seconds(), 0))
	} else {
		m.partial.Observe(max(e.Latency.Seconds(), 0))
	}
}

// Attempt implements webhook.Config.OnAttempt.
func (m *Metrics) Attempt(e webhook.AttemptEvent) {
	m.webhookAttempts.WithLabelValues(e.Outcome.String()).Inc()
	if e.Event != "" { // an unreadable delivery sent nothing
		m.webhookDurations.Observe(max(e.Duration.Seconds(), 0))
	}
	if e.Outcome != webhook.Retry {
		m.webhookTries.Observe(float64(e.Attempt))
	}
}

// methods are the method label values; anything else is "other", so a
// client cannot grow the label set.
var methods = map[string]bool{"GET": true, "POST": true, "PUT": true, "DELETE": true, "PATCH": true, "HEAD": true, "OPTIONS": true}

// Request implements httpapi.Config.OnRequest.
func (m *Metrics) Request(i httpapi.RequestInfo) {
	method := i.Method
	if !methods[method] {
		method = "other"
	}
	route := i.Route
	if route == "" {
		route = "unmatched"
	}
	m.httpRequests.WithLabelValues(route, method, strconv.Itoa(i.Status)).Inc()
	if i.Status != http.StatusSwitchingProtocols {
		m.httpDuration.WithLabelValues(route, method).Observe(i.Duration.Seconds())
	}
}

// WatchJobs adds earshot_jobs{status="queued"|"processing"}: the jobs
// waiting for and in the hands of a worker, read at each scrape from
// counts (transcribe.Service.JobCounts, which asks the shared Store, so
// every process of a deployment reports the same, whole-deployment
// figure: take max, not sum, across instances). A count that fails is
// logged and left out of that scrape. Call it once.
func (m *Metrics) WatchJobs(counts func(ctx context.Context) (queued, processing int, err error)) {
	m.reg.MustRegister(&jobCollector{counts: counts, timeout: m.cfg.CountTimeout,
		desc: prometheus.NewDesc("earshot_jobs", "Transcription jobs in the shared store by status (queued: waiting for a worker; processing: claimed), across every process.", []string{"status"}, nil)})
}

type jobCollector struct {
	counts  func(ctx context.Context) (int, int, error)
	timeout time.Duration
	desc    *prometheus.Desc
}

func (c *jobCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *jobCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	q, p, err := c.counts(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(q), string(transcribe.StatusQueued))
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(p), string(transcribe.StatusProcessing))
}

// WatchWorkers adds the worker processes of an engine run in isolated
// processes (adapters/isolate), read at each scrape from stats:
// earshot_engine_processes{pool} alive, earshot_engine_processes_idle{pool}
// waiting for work, earshot_engine_process_crashes_total{pool} (workers
// that died holding a request or stream) and
// earshot_engine_process_restarts_total{pool}. Call it once per pool.
func (m *Metrics) WatchWorkers(pool string, stats func() isolate.Stats) {
	l := prometheus.Labels{"pool": pool}
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "earshot_engine_processes", Help: "Engine worker processes alive, by pool.", ConstLabels: l},
			func() float64 { return float64(stats().Processes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "earshot_engine_processes_idle", Help: "Engine worker processes waiting for work, by pool.", ConstLabels: l},
			func() float64 { return float64(stats().Idle) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "earshot_engine_process_crashes_total", Help: "Engine worker processes that died while holding a request or stream, by pool.", ConstLabels: l},
			func() float64 { return float64(stats().Crashes) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "earshot_engine_process_restarts_total", Help: "Engine worker processes started to replace lost ones, by pool.", ConstLabels: l},
			func() float64 { return float64(stats().Restarts) }),
	)
}
