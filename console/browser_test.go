package console

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/buildtest"
	"github.com/earshot-dev/earshot/internal/nodetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
)

// The browser tests drive the console in Debian's headless Chromium with
// playwright-core (browsertest/run.cjs, installed by npm ci from the
// committed lock file). TestBrowser runs a fixture API and the real
// reference server; TestWorkletResampler runs the audio worklet's
// resampler in Node.

var (
	updateScreenshot = flag.Bool("update-screenshot", false, "rewrite ../docs/console.png from the end-to-end test's screenshot of the playing transcript")
	screenshotDir    = flag.String("screenshots", "", "directory for the browser tests' screenshots (default: a temporary directory, named in the log)")
)

const chromiumPath = "/usr/bin/chromium"

// browserDir returns browsertest with node_modules installed (npm ci from
// the committed package-lock.json when missing: a fresh clone), after
// checking that Debian's chromium is there when needChromium.
func browserDir(t *testing.T, needChromium bool) string {
	t.Helper()
	if needChromium {
		if _, err := os.Stat(chromiumPath); err != nil {
			t.Fatalf("%s is missing: install Debian's chromium (apt-get install -y chromium; scripts/setup.sh does it)", chromiumPath)
		}
	}
	return nodetest.Dir(t, "browsertest", "playwright-core")
}

func shotsDir(t *testing.T) string {
	t.Helper()
	if *screenshotDir != "" {
		if err := os.MkdirAll(*screenshotDir, 0o755); err != nil {
			t.Fatal(err)
		}
		return *screenshotDir
	}
	return t.TempDir()
}

// runNode runs browsertest/run.cjs scenario and decodes its report into v;
// it fails t for a crash or a failed check inside the script.
func runNode(t *testing.T, dir, scenario string, timeout time.Duration, env []string, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "run.cjs", scenario)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "EARSHOT_TMP="+t.TempDir(), "EARSHOT_CHROMIUM="+chromiumPath)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var base struct {
		Failures      []string         `json:"failures"`
		Fatal         string           `json:"fatal"`
		ConsoleErrors []string         `json:"consoleErrors"`
		Shots         []string         `json:"shots"`
		Phases        map[string]int64 `json:"phases"`
		ElapsedMs     int64            `json:"elapsedMs"`
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if err := json.Unmarshal(out, &base); err != nil {
		t.Fatalf("node run.cjs %s: %v; its output is not a JSON report (%v)\nstdout: %s\nstderr: %s", scenario, runErr, err, out, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("report: %v", err)
	}
	t.Logf("run.cjs %s took %d ms (steps in ms: %v); screenshots: %v", scenario, base.ElapsedMs, base.Phases, base.Shots)
	if base.Fatal != "" {
		t.Fatalf("run.cjs %s stopped: %s\nreport: %s\nstderr: %s", scenario, base.Fatal, out, stderr.String())
	}
	for _, f := range base.Failures {
		t.Errorf("in the browser: %s", f)
	}
	for _, e := range base.ConsoleErrors {
		// The only errors the console may log are the browser's own notes
		// on requests the test makes fail on purpose (a wrong key).
		if !strings.Contains(e, "status of 401") {
			t.Errorf("browser console error: %s", e)
		}
	}
	if runErr != nil && len(base.Failures) == 0 {
		t.Errorf("node run.cjs %s: %v with no failure reported\nstderr: %s", scenario, runErr, stderr.String())
	}
}

// The reference server, built from server/cmd/earshot-server and run on loopback.

type serverProc struct {
	URL    string
	cmd    *exec.Cmd
	mu     sync.Mutex
	log    bytes.Buffer
	exited chan struct{}
}

func (s *serverProc) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

func startServer(t *testing.T, env ...string) *serverProc {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &serverProc{URL: "http://" + addr, exited: make(chan struct{})}
	s.cmd = exec.Command(buildtest.Binary(t, "github.com/earshot-dev/earshot/server/cmd/earshot-server"))
	s.cmd.Env = append(os.Environ(), append([]string{"EARSHOT_ADDR=" + addr, "EARSHOT_DATA=" + t.TempDir()}, env...)...)
	pr, pw := io.Pipe()
	s.cmd.Stdout, s.cmd.Stderr = pw, pw
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
	}()
	go func() { s.cmd.Wait(); pw.Close(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.exited:
			case <-time.After(20 * time.Second):
				s.cmd.Process.Kill()
				<-s.exited
			}
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.logs())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			t.Fatalf("server exited early:\n%s", s.logs())
		default:
		}
		if resp, err := http.Get(s.URL + "/console/"); err == nil {
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("GET /console/ on the reference server: %d (is the console mounted in server/cmd/earshot-server/main.go?)", resp.StatusCode)
			}
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("server did not start:\n%s", s.logs())
	return nil
}

func apiGet(t *testing.T, url, key string, v any) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
	return string(b)
}

// wireTranscript is the part of the API's transcript the checks read.
type wireTranscript struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Text   string `json:"text"`
	Words  []struct {
		Text  string `json:"text"`
		Start int64  `json:"start"`
		End   int64  `json:"end"`
	} `json:"words"`
	Utterances []struct {
		Speaker string `json:"speaker"`
		Text    string `json:"text"`
	} `json:"utterances"`
	Entities    []struct{ Text string } `json:"entities"`
	RedactPII   bool                    `json:"redact_pii"`
	IsDeleted   bool                    `json:"is_deleted"`
	SpeakerLbls bool                    `json:"speaker_labels"`
}

// expectedPanels says which analysis panels the console must show for a
// transcript, from the API's JSON: a result that is present (an array, a
// non-empty summary, or a result object with a status), never one that is
// null or the pending {}.
func expectedPanels(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	isArray := func(k string) bool { return len(m[k]) > 0 && m[k][0] == '[' }
	isTrue := func(k string) bool { return string(m[k]) == "true" }
	hasStatus := func(k string) bool {
		var r struct {
			Status  string          `json:"status"`
			Results json.RawMessage `json:"results"`
		}
		_ = json.Unmarshal(m[k], &r)
		return r.Status == "success" || r.Status == "unavailable" || (len(r.Results) > 0 && r.Results[0] == '[')
	}
	var out []string
	var summary string
	_ = json.Unmarshal(m["summary"], &summary)
	if summary != "" {
		out = append(out, "summary")
	}
	if isArray("chapters") {
		out = append(out, "chapters")
	}
	if isArray("entities") {
		out = append(out, "entities")
	}
	if isTrue("redact_pii") {
		out = append(out, "redaction")
	}
	if hasStatus("auto_highlights_result") {
		out = append(out, "key-phrases")
	}
	if hasStatus("iab_categories_result") {
		out = append(out, "topics")
	}
	if isArray("sentiment_analysis_results") && (string(m["sentiment_analysis_results"]) != "[]" || isTrue("sentiment_analysis")) {
		out = append(out, "sentiment")
	}
	if hasStatus("content_safety_labels") {
		out = append(out, "content-safety")
	}
	return out
}

// TestBrowser drives the console in one headless Chromium: first against
// a fixture API (checkPanels), then against the real reference server
// with pocketsphinx (checkEndToEnd). One browser, not one per scenario: on
// a busy 2-core machine its start is the slowest step.
func TestBrowser(t *testing.T) {
	t.Parallel()
	dir := browserDir(t, true)
	turns := []struct{ voice, text string }{
		{"slt", "hi my name is sarah johnson and my number is five five five one two three four"},
		{"rms", "sounds good i will call you back tomorrow morning about the budget for the new office"},
	}
	silence := testaudio.SoxEffects(t, "wav", []string{"-n", "-r", "16000", "-c", "1", "-b", "16"}, "trim", "0", "0.6")
	wav := testaudio.Sox(t, "wav", testaudio.Speech(t, turns[0].voice, turns[0].text), silence, testaudio.Speech(t, turns[1].voice, turns[1].text))
	// The fake microphone loops its file: speech, then a pause long enough to end the utterance.
	liveWav := testaudio.SoxEffects(t, "wav", []string{testaudio.Speech(t, "slt", liveText)}, "pad", "0.3", "1.5")
	// A name the user recognizes in the list and the downloads.
	named := filepath.Join(t.TempDir(), "meeting.wav")
	if b, err := os.ReadFile(wav); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(named, b, 0o644); err != nil {
		t.Fatal(err)
	}

	const key, fixtureKey = "console-key-0123456789", "fixture-key"
	fixture := fixtureServer(t, fixtureKey)
	s := startServer(t, "EARSHOT_API_KEYS="+key+":console")
	shots := shotsDir(t)
	var r struct {
		e2eReport
		panelsReport
	}
	runNode(t, dir, "browser", 5*time.Minute, []string{
		"EARSHOT_URL=" + s.URL, "EARSHOT_KEY=" + key, "EARSHOT_WAV=" + named, "EARSHOT_LIVE_WAV=" + liveWav, "EARSHOT_SHOTS=" + shots,
		"EARSHOT_FIXTURE_URL=" + fixture.URL, "EARSHOT_FIXTURE_KEY=" + fixtureKey,
	}, &r)
	if t.Failed() {
		return
	}
	t.Run("Panels", func(t *testing.T) { checkPanels(t, r.panelsReport, fixture.URL) })
	t.Run("EndToEnd", func(t *testing.T) { checkEndToEnd(t, r.e2eReport, s.URL, key, shots, liveWav) })
}

// TestWorkletResampler runs live-worklet.js's processor in Node on tones
// at 48 and 44.1 kHz (stereo, mixed down) and 16 kHz: the output is 16 kHz
// in 100 ms chunks, speech-band tones keep their frequency and level, and
// tones above the new Nyquist frequency (8 kHz) are filtered out instead
// of folding back into the speech band.
func TestWorkletResampler(t *testing.T) {
	t.Parallel()
	dir := browserDir(t, false)
	var r struct {
		Cases []struct {
			Rate, Freq    float64
			Samples       int
			ChunkSizes    []int   `json:"chunkSizes"`
			Flushed       bool    `json:"flushed"`
			GainDb        float64 `json:"gainDb"`
			EstimatedFreq float64 `json:"estimatedFreq"`
		} `json:"cases"`
	}
	runNode(t, dir, "resampler", time.Minute, nil, &r)
	if len(r.Cases) != 6 {
		t.Fatalf("%d cases", len(r.Cases))
	}
	for _, c := range r.Cases {
		t.Logf("%5.0f Hz tone at %5.0f Hz: %d samples out, gain %6.1f dB, frequency %7.1f Hz", c.Freq, c.Rate, c.Samples, c.GainDb, c.EstimatedFreq)
		if want := 32000; math.Abs(float64(c.Samples-want)) > 40 {
			t.Errorf("%v Hz in: %d samples for 2 s, want about %d", c.Rate, c.Samples, want)
		}
		if !slices.Equal(c.ChunkSizes, []int{1600}) || !c.Flushed {
			t.Errorf("%v Hz in: chunk sizes %v (want 1600), flushed %v", c.Rate, c.ChunkSizes, c.Flushed)
		}
		if c.Freq < 8000 {
			if math.Abs(c.GainDb) > 0.5 || math.Abs(c.EstimatedFreq-c.Freq) > c.Freq*0.01 {
				t.Errorf("%v Hz tone at %v Hz: gain %.2f dB, frequency %.1f Hz", c.Freq, c.Rate, c.GainDb, c.EstimatedFreq)
			}
		} else if c.GainDb > -40 {
			t.Errorf("%v Hz tone at %v Hz (above 8 kHz) comes out at %.1f dB, want below -40 dB", c.Freq, c.Rate, c.GainDb)
		}
	}
}
