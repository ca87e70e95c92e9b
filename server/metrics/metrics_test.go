package metrics_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/server/metrics"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/storage/sqlite"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// scrape returns what /metrics serves.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// compare checks the named metrics against want in the text format.
func compare(t *testing.T, m *metrics.Metrics, want string, names ...string) {
	t.Helper()
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestJobMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Config{Engines: []string{"pocketsphinx", "openai"}})
	ev := func(e transcribe.JobEvent) transcribe.JobEvent { return e }
	for _, e := range []transcribe.JobEvent{
		ev(transcribe.JobEvent{Kind: transcribe.JobSubmitted, Engine: "pocketsphinx"}),
		ev(transcribe.JobEvent{Kind: transcribe.JobSubmitted, Engine: "pocketsphinx"}),
		ev(transcribe.JobEvent{Kind: transcribe.JobClaimed, Engine: "pocketsphinx", Claim: 1, Waited: 300 * time.Millisecond}),
		ev(transcribe.JobEvent{Kind: transcribe.JobFinished, Engine: "pocketsphinx", Outcome: transcribe.JobCompleted,
			Processing: 2 * time.Second, Turnaround: 3 * time.Second, Audio: 10 * time.Second}),
		ev(transcribe.JobEvent{Kind: transcribe.JobClaimed, Engine: "pocketsphinx", Claim: 1, Waited: 2 * time.Second}),
		ev(transcribe.JobEvent{Kind: transcribe.JobFinished, Engine: "pocketsphinx", Outcome: transcribe.JobRetried, Processing: time.Second}),
		ev(transcribe.JobEvent{Kind: transcribe.JobClaimed, Engine: "pocketsphinx", Claim: 2, Waited: 5 * time.Second}),
		ev(transcribe.JobEvent{Kind: transcribe.JobFinished, Engine: "pocketsphinx", Outcome: transcribe.JobFailed,
			Processing: 400 * time.Millisecond, Turnaround: 8 * time.Second, Audio: 4 * time.Second}),
		ev(transcribe.JobEvent{Kind: transcribe.JobClaimed, Claim: 1}),
		ev(transcribe.JobEvent{Kind: transcribe.JobFinished, Outcome: transcribe.JobFailed}),
	} {
		m.Job(e)
	}
	compare(t, m, `
# HELP earshot_jobs_submitted_total Transcription jobs queued by this process, by the engine chosen.
# TYPE earshot_jobs_submitted_total counter
earshot_jobs_submitted_total{engine="openai"} 0
earshot_jobs_submitted_total{engine="pocketsphinx"} 2
# HELP earshot_audio_seconds_total Seconds of media in completed jobs.
# TYPE earshot_audio_seconds_total counter
earshot_audio_seconds_total{engine="openai"} 0
earshot_audio_seconds_total{engine="pocketsphinx"} 10
`, "earshot_jobs_submitted_total", "earshot_audio_seconds_total")
	for _, c := range []struct {
		outcome, engine string
		want            float64
	}{
		{"completed", "pocketsphinx", 1}, {"retried", "pocketsphinx", 1}, {"error", "pocketsphinx", 1},
		{"interrupted", "pocketsphinx", 0}, {"lost", "pocketsphinx", 0}, {"completed", "openai", 0}, {"error", "unknown", 1},
	} {
		if got := testutil.ToFloat64(m.JobsTotal(c.outcome, c.engine)); got != c.want {
			t.Errorf("earshot_jobs_total{outcome=%q,engine=%q} = %v, want %v", c.outcome, c.engine, got, c.want)
		}
	}
	body := scrape(t, m)
	for _, line := range []string{
		// Three claims waited; only the claims that ended a job count in
		// processing and turnaround; the real-time factor is 2 s / 10 s.
		`earshot_job_queue_wait_seconds_count{engine="pocketsphinx"} 3`,
		`earshot_job_queue_wait_seconds_sum{engine="pocketsphinx"} 7.3`,
		`earshot_job_processing_seconds_count{engine="pocketsphinx"} 2`,
		`earshot_job_processing_seconds_sum{engine="pocketsphinx"} 2.4`,
		`earshot_job_turnaround_seconds_sum{engine="pocketsphinx"} 11`,
		`earshot_realtime_factor_count{engine="pocketsphinx"} 1`,
		`earshot_realtime_factor_sum{engine="pocketsphinx"} 0.2`,
		`earshot_realtime_factor_bucket{engine="pocketsphinx",le="0.2"} 1`,
		`earshot_realtime_factor_bucket{engine="pocketsphinx",le="0.1"} 0`,
		`earshot_job_processing_seconds_count{engine="unknown"} 1`,
		`go_goroutines `, `process_cpu_seconds_total `,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}

func TestRealtimeMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Config{})
	m.Session(realtime.SessionEvent{Kind: realtime.SessionBegan})
	m.Session(realtime.SessionEvent{Kind: realtime.SessionBegan})
	m.Session(realtime.SessionEvent{Kind: realtime.SessionBegan})
	m.Session(realtime.SessionEvent{Kind: realtime.SessionEnded, State: realtime.StateTerminated, Audio: 90 * time.Second})
	m.Transcript(realtime.TranscriptEvent{Latency: 120 * time.Millisecond})
	m.Transcript(realtime.TranscriptEvent{Latency: 80 * time.Millisecond})
	m.Transcript(realtime.TranscriptEvent{Final: true, Latency: 850 * time.Millisecond})
	compare(t, m, `
# HELP earshot_realtime_sessions_active Streaming sessions that hold a recognizer stream (streaming, or waiting for a resume).
# TYPE earshot_realtime_sessions_active gauge
earshot_realtime_sessions_active 2
# HELP earshot_realtime_sessions_total Streaming sessions that ended, by final state (terminated or expired).
# TYPE earshot_realtime_sessions_total counter
earshot_realtime_sessions_total{state="expired"} 0
earshot_realtime_sessions_total{state="terminated"} 1
# HELP earshot_realtime_audio_seconds_total Seconds of audio received by streaming sessions that ended.
# TYPE earshot_realtime_audio_seconds_total counter
earshot_realtime_audio_seconds_total 90
`, "earshot_realtime_sessions_active", "earshot_realtime_sessions_total", "earshot_realtime_audio_seconds_total")
	body := scrape(t, m)
	for _, line := range []string{
		"earshot_realtime_partial_latency_seconds_count 2",
		"earshot_realtime_partial_latency_seconds_sum 0.2",
		`earshot_realtime_partial_latency_seconds_bucket{le="0.1"} 1`,
		"earshot_realtime_final_latency_seconds_count 1",
		`earshot_realtime_final_latency_seconds_bucket{le="0.9"} 1`,
		`earshot_realtime_final_latency_seconds_bucket{le="0.75"} 0`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}

func TestWebhookMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Config{})
	for _, e := range []webhook.AttemptEvent{
		{Event: transcribe.EventTranscript, Attempt: 1, Outcome: webhook.Retry, Code: 500, Duration: 100 * time.Millisecond},
		{Event: transcribe.EventTranscript, Attempt: 2, Outcome: webhook.Delivered, Code: 200, Duration: 50 * time.Millisecond},
		{Event: transcribe.EventTranscript, Attempt: 1, Outcome: webhook.Fail},
		{Attempt: 0, Outcome: webhook.Fail}, // unreadable: nothing was sent
	} {
		m.Attempt(e)
	}
	compare(t, m, `
# HELP earshot_webhook_deliveries_total Webhook delivery attempts, by outcome: delivered, retry (another attempt is scheduled) or failed (given up).
# TYPE earshot_webhook_deliveries_total counter
earshot_webhook_deliveries_total{outcome="delivered"} 1
earshot_webhook_deliveries_total{outcome="failed"} 2
earshot_webhook_deliveries_total{outcome="retry"} 1
`, "earshot_webhook_deliveries_total")
	body := scrape(t, m)
	for _, line := range []string{
		"earshot_webhook_attempt_seconds_count 3",
		"earshot_webhook_delivery_attempts_count 3",
		"earshot_webhook_delivery_attempts_sum 3",
		`earshot_webhook_delivery_attempts_bucket{le="1"} 2`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}

func TestHTTPMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Config{})
	for _, i := range []httpapi.RequestInfo{
		{Method: "GET", Route: "/v2/transcript/{id}", Path: "/v2/transcript/a", Status: 200, Duration: 10 * time.Millisecond},
		{Method: "GET", Route: "/v2/transcript/{id}", Path: "/v2/transcript/b", Status: 200, Duration: 20 * time.Millisecond},
		{Method: "GET", Route: "/v2/transcript/{id}", Path: "/v2/transcript/c", Status: 404},
		{Method: "BREW", Route: "/", Path: "/coffee", Status: 404},
		{Method: "GET", Route: "/v2/realtime/ws", Status: 101, Duration: time.Hour},
		{Method: "GET", Route: "", Status: 400},
	} {
		m.Request(i)
	}
	compare(t, m, `
# HELP earshot_http_requests_total API requests, by route pattern, method and status code.
# TYPE earshot_http_requests_total counter
earshot_http_requests_total{method="GET",route="/v2/realtime/ws",status="101"} 1
earshot_http_requests_total{method="GET",route="/v2/transcript/{id}",status="200"} 2
earshot_http_requests_total{method="GET",route="/v2/transcript/{id}",status="404"} 1
earshot_http_requests_total{method="GET",route="unmatched",status="400"} 1
earshot_http_requests_total{method="other",route="/",status="404"} 1
`, "earshot_http_requests_total")
	body := scrape(t, m)
	if !strings.Contains(body, `earshot_http_request_duration_seconds_count{method="GET",route="/v2/transcript/{id}"} 3`) {
		t.Error("request durations of /v2/transcript/{id} not counted")
	}
	if strings.Contains(body, `route="/v2/realtime/ws"}`) && strings.Contains(body, `earshot_http_request_duration_seconds_count{method="GET",route="/v2/realtime/ws"}`) {
		t.Error("a WebSocket session's length counted as request latency")
	}
	if strings.Contains(body, "/v2/transcript/a") || strings.Contains(body, "/coffee") {
		t.Error("a raw path became a label")
	}
}

// TestWatchJobs: the queue depth comes from the store every process
// shares: a Service that runs no workers and one that only submits see
// the same counts; a store that cannot answer leaves the metric out of
// that scrape (logged) and the rest is still served.
func TestWatchJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "earshot.db")
	submitter := openService(t, path)
	watched := openService(t, path) // another process on the same database
	for range 3 {
		if _, err := submitter.svc.Submit(ctx, "p", transcribe.SubmitRequest{Params: transcribe.TranscriptParams{AudioURL: "https://media.example/a.wav"}}); err != nil {
			t.Fatal(err)
		}
	}
	var logs syncBuffer
	m := metrics.New(metrics.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	m.WatchJobs(watched.svc.JobCounts)
	compare(t, m, `
# HELP earshot_jobs Transcription jobs in the shared store by status (queued: waiting for a worker; processing: claimed), across every process.
# TYPE earshot_jobs gauge
earshot_jobs{status="processing"} 0
earshot_jobs{status="queued"} 3
`, "earshot_jobs")
	if _, err := watched.store.ClaimJob(ctx, driver.Claim{Owner: "w", Now: time.Now(), Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	compare(t, m, `
# HELP earshot_jobs Transcription jobs in the shared store by status (queued: waiting for a worker; processing: claimed), across every process.
# TYPE earshot_jobs gauge
earshot_jobs{status="processing"} 1
earshot_jobs{status="queued"} 2
`, "earshot_jobs")
	watched.store.Close()
	body := scrape(t, m)
	if strings.Contains(body, "earshot_jobs{") || !strings.Contains(body, "go_goroutines") {
		t.Errorf("with the store closed: earshot_jobs must be left out and the rest served:\n%.400s", body)
	}
	if !strings.Contains(logs.String(), "counting queued jobs") {
		t.Errorf("the failed count was not logged: %q", logs.String())
	}
}

type service struct {
	svc   *transcribe.Service
	store *sqlite.Store
}

func openService(t *testing.T, path string) service {
	t.Helper()
	store, err := sqlite.Open(sqlite.Config{Path: path, Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc, err := transcribe.NewService(transcribe.Config{Store: store, Blobs: memory.NewBlobStore(), Recognizer: &stubRecognizer{},
		Decoder: nopDecoder{}, Key: bytes.Repeat([]byte{7}, 32), Workers: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return service{svc, store}
}

type nopDecoder struct{}

func (nopDecoder) Decode(context.Context, string, int, bool) (*transcribe.PCM, error) {
	return nil, errors.New("not used")
}

// stubRecognizer is a batch recognizer whose calls block until release
// is closed (nil: return at once).
type stubRecognizer struct {
	release chan struct{}
	closed  bool
}

func (s *stubRecognizer) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	if s.release != nil {
		<-s.release
	}
	return &transcribe.Recognition{}, nil
}

func (s *stubRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000}
}

func (s *stubRecognizer) Close() error { return nil }

type stubStreamRecognizer struct{ stubRecognizer }

func (s *stubStreamRecognizer) NewStream(ctx context.Context, o transcribe.StreamOptions) (transcribe.Stream, error) {
	if s.closed {
		return nil, transcribe.ErrClosed
	}
	return stubStream{}, nil
}

type stubStream struct{}

func (stubStream) Write([]int16) error                          { return nil }
func (stubStream) Partial() (transcribe.Hypothesis, error)      { return transcribe.Hypothesis{}, nil }
func (stubStream) EndUtterance() (transcribe.Hypothesis, error) { return transcribe.Hypothesis{}, nil }
func (stubStream) Close() error                                 { return nil }

type stubFileRecognizer struct{ stubRecognizer }

func (s *stubFileRecognizer) AcceptsFile(f string) bool { return f == "mp3" }
func (s *stubFileRecognizer) RecognizeFile(ctx context.Context, path string, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	return s.Recognize(ctx, nil, o)
}

// TestInstrumentPool: recognitions in flight and open streams count as
// decoders in use until they end (a stream on its first Close only); the
// wrapper has exactly the optional interfaces of what it wraps.
func TestInstrumentPool(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Config{})
	inUse := func(pool string) float64 { return testutil.ToFloat64(m.DecodersInUse(pool)) }

	batch := &stubRecognizer{release: make(chan struct{})}
	wb := m.InstrumentPool("batch", 2, batch)
	if _, ok := wb.(transcribe.StreamRecognizer); ok {
		t.Error("a batch recognizer's wrapper claims to stream")
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); wb.Recognize(context.Background(), nil, transcribe.RecognizeOptions{}) }()
	}
	waitFor(t, func() bool { return inUse("batch") == 2 })
	close(batch.release)
	wg.Wait()
	if got := inUse("batch"); got != 0 {
		t.Errorf("batch in use after the calls: %v", got)
	}

	sr := &stubStreamRecognizer{}
	ws, ok := m.InstrumentPool("stream", 4, sr).(transcribe.StreamRecognizer)
	if !ok {
		t.Fatal("a streaming recognizer's wrapper does not stream")
	}
	s1, _ := ws.NewStream(context.Background(), transcribe.StreamOptions{})
	s2, _ := ws.NewStream(context.Background(), transcribe.StreamOptions{})
	if got := inUse("stream"); got != 2 {
		t.Errorf("two open streams: in use %v", got)
	}
	s1.Close()
	s1.Close()
	if got := inUse("stream"); got != 1 {
		t.Errorf("after closing one stream twice: in use %v", got)
	}
	s2.Close()
	sr.closed = true
	if _, err := ws.NewStream(context.Background(), transcribe.StreamOptions{}); !errors.Is(err, transcribe.ErrClosed) {
		t.Errorf("NewStream error not passed through: %v", err)
	}
	if got := inUse("stream"); got != 0 {
		t.Errorf("a stream that failed to open counts: %v", got)
	}

	wf, ok := m.InstrumentPool("files", 1, &stubFileRecognizer{}).(transcribe.FileRecognizer)
	if !ok || !wf.AcceptsFile("mp3") || wf.AcceptsFile("wav") {
		t.Fatal("a file recognizer's wrapper lost AcceptsFile")
	}
	if _, err := wf.RecognizeFile(context.Background(), "x.mp3", transcribe.RecognizeOptions{}); err != nil {
		t.Fatal(err)
	}
	compare(t, m, `
# HELP earshot_decoders The most decoders a pool may hold, by pool.
# TYPE earshot_decoders gauge
earshot_decoders{pool="batch"} 2
earshot_decoders{pool="files"} 1
earshot_decoders{pool="stream"} 4
`, "earshot_decoders")
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWatchWorkers(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Config{})
	batch := isolate.Stats{Processes: 3, Idle: 1, Started: 5, Crashes: 2, Restarts: 1}
	m.WatchWorkers("batch", func() isolate.Stats { return batch })
	m.WatchWorkers("stream", func() isolate.Stats { return isolate.Stats{Processes: 1, Idle: 1, Started: 1} })
	batch.Crashes = 3 // read at scrape time
	compare(t, m, `
# HELP earshot_engine_process_crashes_total Engine worker processes that died while holding a request or stream, by pool.
# TYPE earshot_engine_process_crashes_total counter
earshot_engine_process_crashes_total{pool="batch"} 3
earshot_engine_process_crashes_total{pool="stream"} 0
# HELP earshot_engine_processes Engine worker processes alive, by pool.
# TYPE earshot_engine_processes gauge
earshot_engine_processes{pool="batch"} 3
earshot_engine_processes{pool="stream"} 1
# HELP earshot_engine_processes_idle Engine worker processes waiting for work, by pool.
# TYPE earshot_engine_processes_idle gauge
earshot_engine_processes_idle{pool="batch"} 1
earshot_engine_processes_idle{pool="stream"} 1
`, "earshot_engine_processes", "earshot_engine_processes_idle", "earshot_engine_process_crashes_total")
}
