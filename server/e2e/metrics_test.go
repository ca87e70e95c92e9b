package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// These tests run the reference server binary with EARSHOT_METRICS_ADDR
// and EARSHOT_LOG_FORMAT=json, drive it with real speech (a batch job
// through the Go SDK, a webhook, a streaming session), then read what an
// operator reads: /metrics, /healthz, /readyz, the X-Request-Id headers and
// the JSON log lines.

// opsGet fetches path from the operations listener.
func opsGet(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	res, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// metricValue returns the value of the sample whose name and labels are
// exactly series (as the text format writes it, labels sorted), or fails.
func metricValue(t *testing.T, body, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: value %q", series, v)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s", series)
	return 0
}

// jsonLogs parses the server's log: every line must be one JSON object.
func jsonLogs(t *testing.T, s *server) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.logs()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("EARSHOT_LOG_FORMAT=json, yet a log line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// apiRequest sends one API request with an X-Request-Id and returns the
// response's body and X-Request-Id.
func apiRequest(t *testing.T, s *server, method, path, key, requestID string, body io.Reader) (int, []byte, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", key)
	if requestID != "" {
		req.Header.Set("X-Request-Id", requestID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header.Get("X-Request-Id")
}

func TestMetricsHealthAndRequestIDs(t *testing.T) {
	wav := testaudio.Speech(t, "slt", speechText)
	samples, rate, err := transcribetest.ReadWAV16(wav)
	if err != nil || rate != 16000 {
		t.Fatalf("test audio: %v (rate %d)", err, rate)
	}
	opsAddr := freeAddr(t)
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p", "EARSHOT_WORKERS=1",
		"EARSHOT_METRICS_ADDR="+opsAddr, "EARSHOT_LOG_FORMAT=json", "EARSHOT_WEBHOOK_RETRY_INTERVAL=100ms")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// Liveness and readiness.
	if code, body := opsGet(t, opsAddr, "/healthz"); code != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	// Ready once the engines are loaded: the streaming engine's first
	// worker process loads on the first probe, so a probe may find it
	// still loading, and nothing else.
	var ready struct {
		Status string
		Checks map[string]string
	}
	var code int
	var body string
	for deadline := time.Now().Add(time.Minute); ; {
		code, body = opsGet(t, opsAddr, "/readyz")
		ready.Checks = nil
		if err := json.Unmarshal([]byte(body), &ready); err != nil {
			t.Fatalf("/readyz: %d %s", code, body)
		}
		if code == 200 && ready.Status == "ready" {
			break
		}
		for name, reason := range ready.Checks {
			if reason != "ok" && (!strings.HasPrefix(name, "engine ") || reason != "the model is still loading") {
				t.Fatalf("/readyz after start: %d %s", code, body)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready within a minute: %d %s", code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, c := range []string{"store", "blobs", "engine pocketsphinx", "engine streaming"} {
		if ready.Checks[c] != "ok" {
			t.Errorf("/readyz check %q: %q (all: %v)", c, ready.Checks[c], ready.Checks)
		}
	}

	// A webhook receiver on loopback.
	hooked := make(chan string, 4)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hooked <- string(b)
	}))
	defer hook.Close()

	// Upload and submit with our own request ids, then wait with the SDK.
	f, err := os.Open(wav)
	if err != nil {
		t.Fatal(err)
	}
	code, b, rid := apiRequest(t, s, "POST", "/v2/upload", keyK, "upload-req-1", f)
	f.Close()
	if code != 200 || rid != "upload-req-1" {
		t.Fatalf("upload: %d %s, X-Request-Id %q", code, b, rid)
	}
	var up struct {
		UploadURL string `json:"upload_url"`
	}
	json.Unmarshal(b, &up)
	code, b, rid = apiRequest(t, s, "POST", "/v2/transcript", keyK, "submit-req-1",
		strings.NewReader(fmt.Sprintf(`{"audio_url":%q,"webhook_url":%q}`, up.UploadURL, hook.URL+"/done")))
	var sub struct{ ID string }
	json.Unmarshal(b, &sub)
	if code != 200 || rid != "submit-req-1" || sub.ID == "" {
		t.Fatalf("submit: %d %s, X-Request-Id %q", code, b, rid)
	}
	tr, err := client(s, keyK).Transcripts.Wait(ctx, sub.ID)
	if err != nil || tr.Status != "completed" {
		t.Fatalf("wait: %v %+v", err, tr)
	}
	audioSecs := *tr.AudioDuration
	select {
	case got := <-hooked:
		if !strings.Contains(got, sub.ID) {
			t.Fatalf("webhook body %s", got)
		}
	case <-ctx.Done():
		t.Fatal("no webhook")
	}
	// A request with no key is refused, with an id all the same; an id
	// the server cannot accept is replaced.
	code, _, unauthID := apiRequest(t, s, "GET", "/v2/transcript/"+sub.ID, "", "", nil)
	if code != 401 || unauthID == "" {
		t.Fatalf("unauthenticated: %d, X-Request-Id %q", code, unauthID)
	}
	if _, _, got := apiRequest(t, s, "GET", "/v2/transcript", keyK, "bad id with spaces", nil); got == "" || got == "bad id with spaces" {
		t.Errorf("an unacceptable X-Request-Id came back as %q", got)
	}

	// A streaming session: speech, then a pause that ends the utterance.
	streamSession(ctx, t, s, append(samples, make([]int16, 16000*3/2)...))

	// The metrics, as a scrape sees them once the work is done (the
	// webhook's outcome and the WebSocket request are recorded just after
	// the answer and the close).
	var m string
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, m = opsGet(t, opsAddr, "/metrics")
		if strings.Contains(m, `earshot_webhook_deliveries_total{outcome="delivered"} 1`) &&
			strings.Contains(m, `earshot_http_requests_total{method="GET",route="/v2/realtime/ws",status="101"} 1`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range []struct {
		series string
		want   float64
	}{
		{`earshot_jobs_total{engine="pocketsphinx",outcome="completed"}`, 1},
		{`earshot_jobs_total{engine="pocketsphinx",outcome="error"}`, 0},
		{`earshot_jobs_submitted_total{engine="pocketsphinx"}`, 1},
		{`earshot_job_processing_seconds_count{engine="pocketsphinx"}`, 1},
		{`earshot_job_turnaround_seconds_count{engine="pocketsphinx"}`, 1},
		{`earshot_realtime_factor_count{engine="pocketsphinx"}`, 1},
		{`earshot_jobs{status="queued"}`, 0},
		{`earshot_jobs{status="processing"}`, 0},
		{`earshot_http_requests_total{method="POST",route="/v2/upload",status="200"}`, 1},
		{`earshot_http_requests_total{method="POST",route="/v2/transcript",status="200"}`, 1},
		{`earshot_http_requests_total{method="GET",route="/v2/transcript/{id}",status="401"}`, 1},
		{`earshot_http_requests_total{method="GET",route="/v2/realtime/ws",status="101"}`, 1},
		{`earshot_webhook_deliveries_total{outcome="delivered"}`, 1},
		{`earshot_webhook_deliveries_total{outcome="failed"}`, 0},
		{`earshot_realtime_sessions_total{state="terminated"}`, 1},
		{`earshot_realtime_sessions_active`, 0},
		{`earshot_decoders{pool="batch"}`, 1},
		{`earshot_decoders_in_use{pool="batch"}`, 0},
		{`earshot_decoders_in_use{pool="stream"}`, 0},
	} {
		if got := metricValue(t, m, c.series); got != c.want {
			t.Errorf("%s = %v, want %v", c.series, got, c.want)
		}
	}
	if got := metricValue(t, m, `earshot_audio_seconds_total{engine="pocketsphinx"}`); got < audioSecs-0.01 || got > audioSecs+0.01 {
		t.Errorf("earshot_audio_seconds_total = %v, want the clip's %v s", got, audioSecs)
	}
	if got := metricValue(t, m, `earshot_job_processing_seconds_sum{engine="pocketsphinx"}`); got <= 0 || got > 60 {
		t.Errorf("processing seconds %v", got)
	}
	if got := metricValue(t, m, `earshot_http_requests_total{method="GET",route="/v2/transcript/{id}",status="200"}`); got < 1 {
		t.Errorf("the SDK's polls were not counted: %v", got)
	}
	if got := metricValue(t, m, `earshot_realtime_audio_seconds_total`); got < 3 {
		t.Errorf("streamed audio %v s, want the clip and its pause", got)
	}
	if got := metricValue(t, m, `earshot_realtime_final_latency_seconds_count`); got < 1 {
		t.Errorf("no endpointed final's latency: %v", got)
	}
	if got := metricValue(t, m, `earshot_realtime_partial_latency_seconds_count`); got < 1 {
		t.Errorf("no partial latency: %v", got)
	}
	if got := metricValue(t, m, `earshot_engine_processes{pool="batch"}`); got < 1 {
		t.Errorf("no batch worker process alive: %v", got)
	}
	if regexp.MustCompile(`route="/v2/transcript/[0-9a-f-]{36}`).MatchString(m) {
		t.Error("a transcript id became a label")
	}

	// The JSON log: every request's line has its id, the submission ties
	// the request id to the transcript id, every job line has the id.
	logs := jsonLogs(t, s)
	find := func(match func(map[string]any) bool) map[string]any {
		for _, l := range logs {
			if match(l) {
				return l
			}
		}
		return nil
	}
	for _, c := range []struct{ id, route string }{{"upload-req-1", "/v2/upload"}, {"submit-req-1", "/v2/transcript"}, {unauthID, "/v2/transcript/{id}"}} {
		l := find(func(l map[string]any) bool { return l["msg"] == "request" && l["request_id"] == c.id })
		if l == nil || l["route"] != c.route || l["level"] != "INFO" {
			t.Errorf("access log line of %s: %v", c.id, l)
		}
	}
	if l := find(func(l map[string]any) bool { return l["msg"] == "transcript queued" }); l == nil || l["request_id"] != "submit-req-1" || l["id"] != sub.ID {
		t.Errorf("queued line %v: want request_id submit-req-1 and id %s", l, sub.ID)
	}
	for _, msg := range []string{"processing", "finished"} {
		if l := find(func(l map[string]any) bool { return l["msg"] == msg }); l == nil || l["id"] != sub.ID {
			t.Errorf("job line %q: %v", msg, l)
		}
	}
	if l := find(func(l map[string]any) bool { return l["msg"] == "operations listening" }); l == nil || l["addr"] != opsAddr {
		t.Errorf("operations listener line: %v", l)
	}

	// Readiness follows the blob directory: replaced by a file, the server
	// is not ready and says why; restored, it is ready again.
	blobs := filepath.Join(s.Data, "blobs")
	if err := os.Rename(blobs, blobs+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blobs, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, body = opsGet(t, opsAddr, "/readyz")
	json.Unmarshal([]byte(body), &ready)
	if code != 503 || ready.Status != "not ready" || !strings.Contains(ready.Checks["blobs"], "not a directory") || ready.Checks["store"] != "ok" {
		t.Errorf("/readyz without the blob directory: %d %s", code, body)
	}
	if code, _ := opsGet(t, opsAddr, "/healthz"); code != 200 {
		t.Errorf("/healthz while unready: %d (the process is alive)", code)
	}
	os.Remove(blobs)
	if err := os.Rename(blobs+".away", blobs); err != nil {
		t.Fatal(err)
	}
	if code, body := opsGet(t, opsAddr, "/readyz"); code != 200 {
		t.Errorf("/readyz with the directory back: %d %s", code, body)
	}
	logs = jsonLogs(t, s)
	if l := find(func(l map[string]any) bool { return l["msg"] == "not ready" && l["check"] == "blobs" }); l == nil || l["level"] != "WARN" {
		t.Errorf("no WARN line for the blob check failing: %v", l)
	}
}

// streamSession streams samples at real-time speed in 100 ms chunks to
// the server's realtime endpoint with the Go SDK and terminates the
// session.
func streamSession(ctx context.Context, t *testing.T, s *server, samples []int16) {
	t.Helper()
	var mu sync.Mutex
	var finals []string
	partials := 0
	rt := aai.NewRealTimeClientWithOptions(aai.WithRealTimeBaseURL("ws"+strings.TrimPrefix(s.URL, "http")+"/v2/realtime/ws"),
		aai.WithRealTimeAPIKey(keyK), aai.WithRealTimeSampleRate(16000),
		aai.WithRealTimeTranscriber(&aai.RealTimeTranscriber{
			OnFinalTranscript: func(f aai.FinalTranscript) { mu.Lock(); finals = append(finals, f.Text); mu.Unlock() },
			// The SDK asks for no partials unless it has a handler.
			OnPartialTranscript: func(aai.PartialTranscript) { mu.Lock(); partials++; mu.Unlock() },
		}))
	if err := rt.Connect(ctx); err != nil {
		t.Fatalf("realtime connect: %v", err)
	}
	start := time.Now()
	for i := 0; i < len(samples); i += 1600 {
		chunk := samples[i:min(i+1600, len(samples))]
		buf := make([]byte, 2*len(chunk))
		for j, v := range chunk {
			buf[2*j], buf[2*j+1] = byte(v), byte(uint16(v)>>8)
		}
		if err := rt.Send(ctx, buf); err != nil {
			t.Fatalf("realtime send: %v", err)
		}
		time.Sleep(time.Until(start.Add(time.Duration(i/1600+1) * 100 * time.Millisecond)))
	}
	if err := rt.Disconnect(ctx, true); err != nil {
		t.Fatalf("realtime disconnect: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(finals) == 0 || !strings.Contains(strings.ToLower(strings.Join(finals, " ")), "transcription") || partials == 0 {
		t.Fatalf("realtime finals %q after %d partials", finals, partials)
	}
}

// TestOperationsConfiguration: without EARSHOT_METRICS_ADDR the text log
// still carries request ids; a taken metrics address or an unknown log
// format stops the start with the setting's name.
func TestOperationsConfiguration(t *testing.T) {
	t.Run("text logs", func(t *testing.T) {
		s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p", "EARSHOT_WORKERS=1")
		code, _, rid := apiRequest(t, s, "GET", "/v2/transcript", keyK, "text-req-7", nil)
		if code != 200 || rid != "text-req-7" {
			t.Fatalf("list: %d, X-Request-Id %q", code, rid)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(s.logs(), "request_id=text-req-7") {
			if time.Now().After(deadline) {
				t.Fatalf("no text log line with request_id=text-req-7:\n%s", s.logs())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if strings.Contains(s.logs(), "operations listening") {
			t.Error("an operations listener started without EARSHOT_METRICS_ADDR")
		}
	})
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct {
		name, env, want string
	}{
		{"taken metrics address", "EARSHOT_METRICS_ADDR=" + taken.Addr().String(), "EARSHOT_METRICS_ADDR"},
		{"unknown log format", "EARSHOT_LOG_FORMAT=xml", `EARSHOT_LOG_FORMAT: "xml" is not text or json`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(serverBinary(t))
			cmd.Env = append(os.Environ(), "EARSHOT_ADDR="+freeAddr(t), "EARSHOT_DATA="+t.TempDir(), "EARSHOT_API_KEYS="+keyK+":p", c.env)
			out, err := runWithTimeout(cmd, 60*time.Second)
			if err == nil || !strings.Contains(out, c.want) {
				t.Fatalf("want a failed start naming %q; err %v, output:\n%s", c.want, err, out)
			}
		})
	}
}

// runWithTimeout runs cmd and returns its combined output.
func runWithTimeout(cmd *exec.Cmd, d time.Duration) (string, error) {
	var out strings.Builder
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
		}
		close(done)
	}()
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait(); pw.Close() }()
	select {
	case err := <-errc:
		<-done
		return out.String(), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-errc
		<-done
		return out.String(), fmt.Errorf("still running after %v", d)
	}
}
