package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestEngineOutageEndToEnd (issues 21.3, 21.4): the real server runs with
// a whisper.cpp engine (the test engine in whisper.cpp's shape, with its
// GET /health) behind a proxy that can stop it. Three jobs complete, the
// engine stops for 30 s while seven more are submitted, and then comes
// back: all ten complete, each claimed once (no attempt counted), the log
// says why the jobs waited (engine name and reason), /readyz fails naming
// the engine during the outage with earshot_engine_up 0, and recovers
// after.
func TestEngineOutageEndToEnd(t *testing.T) {
	t.Parallel()
	eng := &enginetest.Engine{Shape: enginetest.WhisperCPP, Path: "/inference"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`)
	})
	mux.Handle("/", eng)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	proxy := newFaultProxy(t, srv.Listener.Addr().String())
	opsAddr := freeAddr(t)
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p", "EARSHOT_WORKERS=2",
		"EARSHOT_WHISPERCPP_URL=http://"+proxy.ln.Addr().String(), "EARSHOT_ENGINE=whispercpp",
		"EARSHOT_METRICS_ADDR="+opsAddr)
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	wav := testaudio.Speech(t, "slt", "the weather is lovely today")

	readyz := func() (int, map[string]string) {
		code, body := opsGet(t, opsAddr, "/readyz")
		var r struct{ Checks map[string]string }
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("/readyz: %d %s", code, body)
		}
		return code, r.Checks
	}
	waitReady := func(want int, what string) map[string]string {
		t.Helper()
		var code int
		var checks map[string]string
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
			if code, checks = readyz(); code == want && (want == 200 || checks["engine whispercpp"] != "ok") {
				return checks
			}
		}
		t.Fatalf("/readyz never %s: %d %v", what, code, checks)
		return nil
	}
	engineUp := func() float64 {
		_, body := opsGet(t, opsAddr, "/metrics")
		return metricValue(t, body, `earshot_engine_up{engine="whispercpp"}`)
	}
	submit := func() string {
		f, err := os.Open(wav)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		u, err := c.Upload(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := c.Transcripts.SubmitFromURL(ctx, u, &aai.TranscriptOptionalParams{})
		if err != nil {
			t.Fatalf("submit: %v", err)
		}
		return *tr.ID
	}
	status := func(id string) aai.Transcript {
		tr, err := c.Transcripts.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	waitAll := func(ids []string) {
		t.Helper()
		for _, id := range ids {
			tr, err := c.Transcripts.Wait(ctx, id)
			if err != nil {
				t.Fatalf("wait %s: %v", id, err)
			}
			if tr.Status != "completed" || !strings.Contains(strings.ToLower(deref(tr.Text)), "weather") {
				t.Errorf("%s: status %s, error %q, text %q", id, tr.Status, deref(tr.Error), deref(tr.Text))
			}
		}
	}

	waitReady(200, "ready")
	if up := engineUp(); up != 1 {
		t.Errorf("earshot_engine_up while the engine answers: %v", up)
	}
	var ids []string
	for range 3 {
		ids = append(ids, submit())
	}
	waitAll(ids)

	// The engine stops for 30 s; seven jobs arrive meanwhile.
	proxy.set(proxyDown)
	down := time.Now()
	for range 7 {
		ids = append(ids, submit())
	}
	checks := waitReady(503, "failing")
	if reason := checks["engine whispercpp"]; !strings.Contains(reason, "unreachable") {
		t.Errorf("/readyz reason for the engine: %q, want it unreachable", reason)
	}
	if up := engineUp(); up != 0 {
		t.Errorf("earshot_engine_up during the outage: %v", up)
	}
	time.Sleep(time.Until(down.Add(30 * time.Second)))
	for _, id := range ids[3:] {
		if st := status(id).Status; st != "queued" && st != "processing" {
			t.Fatalf("%s is %s after a 30 s outage, want still queued or processing", id, st)
		}
	}
	proxy.set(proxyUp)
	waitAll(ids)
	waitReady(200, "ready again")
	if up := engineUp(); up != 1 {
		t.Errorf("earshot_engine_up after the outage: %v", up)
	}

	logs := s.logs()
	for _, id := range ids {
		claims := regexp.MustCompile(`msg=processing id=`+id+` claim=(\d+)`).FindAllStringSubmatch(logs, -1)
		if len(claims) != 1 || claims[0][1] != "1" {
			t.Errorf("%s was claimed %d times (%v), want once: the outage counted as an attempt", id, len(claims), claims)
		}
	}
	waited := regexp.MustCompile(`level=WARN msg="waiting for an outage to end" id=\S+ what="the speech engine \\"whispercpp\\"" reason="[^"]*unreachable`).FindAllString(logs, -1)
	if len(waited) < 2 {
		t.Errorf("%d log lines say why a job waited (engine and reason), want one per retry", len(waited))
	}
}
