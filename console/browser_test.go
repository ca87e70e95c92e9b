package console

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// The reference server, built from ../examples/server and run on loopback.

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

type e2eReport struct {
	RedirectedTo       string            `json:"redirectedTo"`
	WrongKeyMessage    string            `json:"wrongKeyMessage"`
	StoredKey          string            `json:"storedKey"`
	LocalStorageHasKey bool              `json:"localStorageHasKey"`
	ConflictMessage    string            `json:"conflictMessage"`
	JobsAfterConflict  int               `json:"jobsAfterConflict"`
	SubmittedParams    map[string]any    `json:"submittedParams"`
	DropHighlighted    bool              `json:"dropHighlighted"`
	Upload             map[string]string `json:"upload"`
	ID                 string            `json:"id"`
	ListStatuses       []string          `json:"listStatuses"`
	ListAudio          string            `json:"listAudio"`
	Words              [][2]any          `json:"words"`
	Speakers           []string          `json:"speakers"`
	BlockSpeakers      []string          `json:"blockSpeakers"`
	Panels             []string          `json:"panels"`
	EntityChips        []string          `json:"entityChips"`
	RedactedCount      int               `json:"redactedCount"`
	AudioSource        string            `json:"audioSource"`
	AudioNote          string            `json:"audioNote"`
	Playback           [][2]int64        `json:"playback"`
	Seek               struct {
		Index, Time, Current int64
	} `json:"seek"`
	KeyboardFocus int64 `json:"keyboardFocus"`
	KeyboardPlay  struct {
		Time   int64 `json:"time"`
		Paused bool  `json:"paused"`
	} `json:"keyboardPlay"`
	SRT         string  `json:"srt"`
	SRTName     string  `json:"srtName"`
	TXT         string  `json:"txt"`
	SearchTerm  string  `json:"searchTerm"`
	SearchTotal string  `json:"searchTotal"`
	SearchHits  []int64 `json:"searchHits"`
	Live        struct {
		Partials  []string `json:"partials"`
		Finals    []string `json:"finals"`
		Formatted []bool   `json:"formatted"`
		Status    string   `json:"status"`
		Error     string   `json:"error"`
	} `json:"live"`
	WS struct {
		URL      string            `json:"url"`
		Sent     []json.RawMessage `json:"sent"`     // binary frame sizes, or text frames
		Received []string          `json:"received"` // message types
		Turns    []liveTurn        `json:"turns"`
		Closed   bool              `json:"closed"`
		PCM      []byte            `json:"pcm"` // the binary frames, concatenated
		// Requests to a .../token endpoint while the live page ran.
		TokenRequests []struct {
			Method string `json:"method"`
			Path   string `json:"path"`
			HasKey bool   `json:"hasKey"`
		} `json:"tokenRequests"`
	} `json:"ws"`
	ListedAfterDelete []string `json:"listedAfterDelete"`
	RedactedAudio     struct {
		Src      string  `json:"src"`
		Duration float64 `json:"duration"`
		Error    string  `json:"error"`
	} `json:"redactedAudio"`
	// Fetched from the API directly (not through the console) before the deletion.
	APITranscript string `json:"apiTranscript"`
	APISRT        string `json:"apiSRT"`
	APISearch     struct {
		TotalCount int `json:"total_count"`
		Matches    []struct {
			Indexes []int64 `json:"indexes"`
		} `json:"matches"`
	} `json:"apiSearch"`
	Shots []string `json:"shots"`
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

// checkEndToEnd: sign in (a wrong key first), choose features, drop
// a two-speaker recording on the upload page (throttled, so the progress
// bar shows intermediate values), watch it complete in the list, open it,
// play it and check the highlighted word follows the audio, click a word
// to seek, download SRT and text, search a word, stream the live page from
// Chromium's fake microphone, and delete the transcript, all against the
// real reference server with pocketsphinx.
func checkEndToEnd(t *testing.T, r e2eReport, serverURL, key, shots, liveWav string) {
	if r.RedirectedTo != "/console/" {
		t.Errorf("/console led to %q", r.RedirectedTo)
	}
	if !strings.Contains(r.WrongKeyMessage, "401") {
		t.Errorf("wrong key message %q does not say the server refused it", r.WrongKeyMessage)
	}
	if r.StoredKey != key || r.LocalStorageHasKey {
		t.Errorf("key kept as %q in sessionStorage (want %q), in localStorage: %v", r.StoredKey, key, r.LocalStorageHasKey)
	}
	if !strings.Contains(r.ConflictMessage, "Chapters and Summary") || r.JobsAfterConflict != 0 {
		t.Errorf("summary+chapters: message %q, %d uploads started", r.ConflictMessage, r.JobsAfterConflict)
	}
	if !r.DropHighlighted {
		t.Error("the drop zone was not highlighted while dragging over it")
	}
	for _, f := range []string{"speaker_labels", "entity_detection", "redact_pii", "redact_pii_audio", "sentiment_analysis", "auto_highlights", "iab_categories", "content_safety", "summarization"} {
		if r.SubmittedParams[f] != true {
			t.Errorf("submitted params lack %s: %v", f, r.SubmittedParams)
		}
	}
	// Progress: intermediate values were shown, and the bar ended full.
	if maxPartial, _ := strconv.Atoi(r.Upload["maxPartial"]); maxPartial <= 0 || maxPartial >= 100 || r.Upload["progressEvents"] == "0" {
		t.Errorf("upload progress: %v", r.Upload)
	}
	if r.ListAudio != "meeting.wav" {
		t.Errorf("the list names the audio %q, want the dropped file's name", r.ListAudio)
	}
	if r.ListStatuses[len(r.ListStatuses)-1] != "completed" {
		t.Fatalf("list statuses %v never reached completed", r.ListStatuses)
	}
	t.Logf("list statuses seen: %v", r.ListStatuses)

	// What the console showed is what the API has.
	var tr wireTranscript
	raw := []byte(r.APITranscript)
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	if len(r.Words) != len(tr.Words) {
		t.Fatalf("console shows %d words, API has %d", len(r.Words), len(tr.Words))
	}
	for _, w := range r.Words {
		i := int(w[0].(float64))
		if w[1] != tr.Words[i].Text {
			t.Errorf("word %d shown as %q, API has %q", i, w[1], tr.Words[i].Text)
		}
	}
	var wantSpeakers []string
	for _, u := range tr.Utterances {
		if !slices.Contains(wantSpeakers, "Speaker "+u.Speaker) {
			wantSpeakers = append(wantSpeakers, "Speaker "+u.Speaker)
		}
	}
	if !slices.Equal(r.Speakers, wantSpeakers) || len(r.BlockSpeakers) != len(tr.Utterances) {
		t.Errorf("speakers shown %v in %d blocks; API utterances have %v in %d", r.Speakers, len(r.BlockSpeakers), wantSpeakers, len(tr.Utterances))
	}
	if len(wantSpeakers) < 2 {
		t.Errorf("the two voices came back as %v", wantSpeakers)
	}
	want := expectedPanels(t, raw)
	if !slices.Equal(r.Panels, want) {
		t.Errorf("panels shown %v, want %v for this transcript", r.Panels, want)
	}
	if len(r.EntityChips) != len(tr.Entities) || len(tr.Entities) == 0 {
		t.Errorf("entity chips %v, API entities %d", r.EntityChips, len(tr.Entities))
	}
	redacted := 0
	for _, w := range tr.Words {
		if strings.HasPrefix(w.Text, "##") {
			redacted++
		}
	}
	if redacted == 0 || r.RedactedCount != redacted {
		t.Errorf("redaction panel counts %d redacted words, the API's words have %d", r.RedactedCount, redacted)
	}
	if r.AudioSource != "local" || !strings.Contains(r.AudioNote, "meeting.wav") {
		t.Errorf("player source %q, note %q: want the dropped file", r.AudioSource, r.AudioNote)
	}

	// Playback: the highlighted word follows the audio.
	checkPlayback(t, r.Playback, tr)

	// Click-to-seek and the keyboard.
	w := tr.Words[r.Seek.Index]
	if r.Seek.Current != r.Seek.Index || r.Seek.Time < w.Start || r.Seek.Time > w.Start+60 {
		t.Errorf("click on word %d [%d,%d): player at %d ms, highlight %d", r.Seek.Index, w.Start, w.End, r.Seek.Time, r.Seek.Current)
	}
	if r.KeyboardFocus != r.Seek.Index+1 {
		t.Errorf("ArrowRight moved focus to word %d, want %d", r.KeyboardFocus, r.Seek.Index+1)
	}
	if next := tr.Words[r.Seek.Index+1]; r.KeyboardPlay.Paused || r.KeyboardPlay.Time < next.Start {
		t.Errorf("Enter on word %d: player at %d ms (paused %v), want playing from %d", r.Seek.Index+1, r.KeyboardPlay.Time, r.KeyboardPlay.Paused, next.Start)
	}

	// Downloads are the API's exports.
	srt := r.APISRT
	if r.SRT != srt || !strings.HasPrefix(r.SRT, "1\n00:00:0") || r.SRTName != "meeting.srt" {
		t.Errorf("downloaded SRT %q (%s), API SRT %q", r.SRT, r.SRTName, srt)
	}
	for _, u := range tr.Utterances {
		if !strings.Contains(r.TXT, "Speaker "+u.Speaker+": "+u.Text) {
			t.Errorf("text download %q lacks %q", r.TXT, u.Text)
		}
	}

	// Word search agrees with the API.
	ws := r.APISearch
	var hits []int64
	for _, m := range ws.Matches {
		hits = append(hits, m.Indexes...)
	}
	slices.Sort(hits)
	slices.Sort(r.SearchHits)
	if r.SearchTerm == "" || ws.TotalCount == 0 || !slices.Equal(hits, r.SearchHits) || !strings.HasPrefix(r.SearchTotal, strconv.Itoa(ws.TotalCount)+" match") {
		t.Errorf("search %q: console %q hits %v; API total %d indexes %v", r.SearchTerm, r.SearchTotal, r.SearchHits, ws.TotalCount, hits)
	}

	// The redacted audio plays in the player (same origin, no auth, as the spec has it).
	var dur struct {
		AudioDuration float64 `json:"audio_duration"`
	}
	_ = json.Unmarshal(raw, &dur)
	if ra := r.RedactedAudio; !strings.HasPrefix(ra.Src, serverURL+"/v2/redacted-audio/") || ra.Error != "" || math.Abs(ra.Duration-dur.AudioDuration) > 0.5 {
		t.Errorf("redacted audio in the player: %+v, want %s/v2/redacted-audio/... of %.1f s", ra, serverURL, dur.AudioDuration)
	}

	// Live: open turns' words replaced in place, then ended turns, each
	// replaced by its formatted copy, from the fake microphone.
	t.Logf("live: %d partial updates (last %q), turns %q (formatted %v), %s", len(r.Live.Partials), last(r.Live.Partials), r.Live.Finals, r.Live.Formatted, r.Live.Status)
	if len(r.Live.Partials) == 0 || len(r.Live.Finals) == 0 {
		t.Errorf("live page: partials %v finals %v", r.Live.Partials, r.Live.Finals)
	}
	for i, f := range r.Live.Finals {
		// format_turns: the line shows the formatted copy (a capital
		// first letter; the recognizer's own words are lower case).
		if i < len(r.Live.Formatted) && r.Live.Formatted[i] && (f == "" || strings.ToUpper(f[:1]) != f[:1]) {
			t.Errorf("formatted turn %d %q does not begin with a capital", i, f)
		}
	}
	if !slices.Contains(r.Live.Formatted, true) {
		t.Errorf("no formatted turn shown on the live page (formatted %v)", r.Live.Formatted)
	}
	// Streaming recognition is not word-perfect: the realtime package's own
	// tests ask for 70% of the words, and so does this one, of some final.
	best := 0.0
	for _, f := range r.Live.Finals {
		best = max(best, wordOverlap(liveText, f))
	}
	if best < 0.7 {
		t.Errorf("no live final has 70%% of the words of %q: %q", liveText, r.Live.Finals)
	}
	t.Logf("live: best final has %.0f%% of the spoken words", best*100)
	if r.Live.Error != "" || !strings.Contains(r.Live.Status, "Session ended") || !strings.Contains(r.Live.Status, "s of audio") {
		t.Errorf("live session ended with status %q error %q", r.Live.Status, r.Live.Error)
	}

	checkLiveFrames(t, r, key)
	checkLiveAudio(t, r.WS.PCM, liveWav)

	// Deleted from the transcript view.
	if slices.Contains(r.ListedAfterDelete, r.ID) {
		t.Errorf("the list still shows %s after Delete", r.ID)
	}
	apiGet(t, serverURL+"/v2/transcript/"+r.ID, key, &tr)
	if !tr.IsDeleted {
		t.Errorf("the API's transcript is not deleted: %+v", tr)
	}

	if *updateScreenshot && !t.Failed() {
		src := filepath.Join(shots, "04-playing.png")
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join("..", "docs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", "console.png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote ../docs/console.png from %s", src)
	}
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// checkPlayback: each sample is (player time ms, highlighted word index)
// read in one step in the page; the highlight is at most one animation
// frame old, so it must be a word spanning that time give or take 100 ms
// (or none in a pause), it never goes back, and it moves across words.
func checkPlayback(t *testing.T, samples [][2]int64, tr wireTranscript) {
	t.Helper()
	const slack = 100
	distinct := map[int64]bool{}
	prev := int64(-1)
	moving := 0
	for _, s := range samples {
		ms, i := s[0], s[1]
		if ms == 0 {
			continue
		}
		moving++
		if i < 0 {
			// A pause: no word may span this time.
			for _, w := range tr.Words {
				if w.Start+slack <= ms && ms < w.End-slack {
					t.Errorf("at %d ms no word is highlighted, but %q spans [%d,%d)", ms, w.Text, w.Start, w.End)
				}
			}
			continue
		}
		w := tr.Words[i]
		if ms < w.Start-slack || ms >= w.End+slack {
			t.Errorf("at %d ms word %d %q [%d,%d) is highlighted", ms, i, w.Text, w.Start, w.End)
		}
		if i < prev {
			t.Errorf("highlight went back from word %d to %d at %d ms", prev, i, ms)
		}
		prev = i
		distinct[i] = true
	}
	if moving < 10 || len(distinct) < 4 {
		t.Errorf("playback: %d samples while playing, %d distinct words highlighted: %v", moving, len(distinct), samples)
	}
	t.Logf("playback: %d samples, %d distinct words highlighted in order", moving, len(distinct))
}

// The fixture API for checkPanels: the transcript of
// testdata/analysis.json (every analysis result, shapes of wire-format.md
// section 3.4), a variant without results, and a list of 12 for paging.

func fixtureServer(t *testing.T, key string) *httptest.Server {
	t.Helper()
	audio := testaudio.Speech(t, "slt", "good morning and welcome to the planning meeting")
	full, err := os.ReadFile(filepath.Join("testdata", "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(full, &m); err != nil {
		t.Fatal(err)
	}
	// The same words with nothing analysed: nulls, and the "unavailable"
	// results the service gives analyses it could not produce.
	// Paragraphs for it (it has no utterances): one per utterance of the full one.
	var paragraphs []any
	for _, u := range m["utterances"].([]any) {
		u := u.(map[string]any)
		paragraphs = append(paragraphs, map[string]any{"text": u["text"], "start": u["start"], "end": u["end"], "confidence": u["confidence"], "words": u["words"]})
	}
	paragraphsJSON, _ := json.Marshal(map[string]any{"id": "fixture-null", "confidence": m["confidence"], "audio_duration": m["audio_duration"], "paragraphs": paragraphs})
	m["id"] = "fixture-null"
	m["audio_url"] = "AUDIO_URL" // a real file on the fixture server, filled in per request
	for _, k := range []string{"entities", "sentiment_analysis_results", "summary", "chapters", "utterances"} {
		m[k] = nil
	}
	for _, k := range []string{"entity_detection", "sentiment_analysis", "summarization", "auto_chapters", "redact_pii", "speaker_labels"} {
		m[k] = false
	}
	m["auto_highlights_result"] = map[string]any{"status": "unavailable", "results": []any{}}
	m["iab_categories_result"] = map[string]any{"status": "unavailable", "results": []any{}, "summary": map[string]any{}}
	m["content_safety_labels"] = map[string]any{"status": "unavailable", "results": []any{}, "summary": map[string]any{}, "severity_score_summary": map[string]any{}}
	null, _ := json.Marshal(m)

	var ids []string
	for i := 12; i >= 1; i-- {
		ids = append(ids, fmt.Sprintf("fixture-%02d", i))
	}
	ids[0], ids[1] = "fixture-full", "fixture-null"

	mux := http.NewServeMux()
	mux.Handle(Prefix, Handler())
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if r.Header.Get("Authorization") != key {
				w.WriteHeader(401)
				io.WriteString(w, `{"error":"Authentication error, API token missing/invalid"}`)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /v2/transcript/{id}", auth(func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("id") {
		case "fixture-full":
			w.Write(full)
		case "fixture-null":
			w.Write(bytes.Replace(null, []byte("AUDIO_URL"), []byte("http://"+r.Host+"/media/planning.wav"), 1))
		default:
			w.WriteHeader(404)
			io.WriteString(w, `{"error":"Transcript not found"}`)
		}
	}))
	mux.HandleFunc("GET /v2/transcript/{id}/paragraphs", auth(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "fixture-null" {
			w.WriteHeader(404)
			io.WriteString(w, `{"error":"Transcript not found"}`)
			return
		}
		w.Write(paragraphsJSON)
	}))
	// Uploads for the audio-store scenario: accepted and "completed" at
	// once (nothing is transcribed).
	var uploads atomic.Int64
	mux.HandleFunc("POST /v2/upload", auth(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		json.NewEncoder(w).Encode(map[string]any{"upload_url": fmt.Sprintf("http://%s/uploads/%d-%d", r.Host, uploads.Add(1), n)})
	}))
	mux.HandleFunc("POST /v2/transcript", auth(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			AudioURL string `json:"audio_url"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("fixture-upload-%d", uploads.Load()), "status": "completed",
			"audio_url": req.AudioURL, "text": "", "words": []any{}})
	}))
	mux.HandleFunc("GET /media/planning.wav", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, audio)
	})
	mux.HandleFunc("GET /v2/transcript", auth(func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if limit <= 0 {
			limit = 10
		}
		from := 0
		if b := r.URL.Query().Get("before_id"); b != "" {
			from = slices.Index(ids, b) + 1
		}
		page := ids[from:min(from+limit, len(ids))]
		items := []map[string]any{}
		for _, id := range page {
			items = append(items, map[string]any{"id": id, "resource_url": "https://api.example.com/v2/transcript/" + id,
				"status": "completed", "created": "2026-11-20T10:00:00.000000", "completed": "2026-11-20T10:01:00.000000",
				"audio_url": "https://media.example.com/" + id + ".mp3", "error": nil})
		}
		var prev any
		if from+limit < len(ids) {
			// Absolute, on the API's public origin (another host): the console must use only its path.
			prev = fmt.Sprintf("https://api.example.com/v2/transcript?limit=%d&before_id=%s", limit, page[len(page)-1])
		}
		json.NewEncoder(w).Encode(map[string]any{"transcripts": items, "page_details": map[string]any{
			"limit": limit, "result_count": len(items), "current_url": "https://api.example.com" + r.URL.RequestURI(), "prev_url": prev, "next_url": nil}})
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

type panelsReport struct {
	Page1        []string             `json:"page1"`
	Page2        []string             `json:"page2"`
	Page1Again   []string             `json:"page1Again"`
	OlderDisabed bool                 `json:"olderDisabled"`
	Views        map[string]panelView `json:"views"`
}

type panelView struct {
	Panels                   []string `json:"panels"`
	NoAudioVisible           bool     `json:"noAudioVisible"`
	AudioSrc                 string   `json:"audioSrc"`
	AudioDuration            float64  `json:"audioDuration"`
	Blocks                   int      `json:"blocks"`
	EntityTypes              []string `json:"entityTypes"`
	EntityChips              []string `json:"entityChips"`
	Sentiments               []string `json:"sentiments"`
	KeyPhrases               []string `json:"keyPhrases"`
	Topics                   []string `json:"topics"`
	SafetyLabels             []string `json:"safetyLabels"`
	SafetyResults            int      `json:"safetyResults"`
	Summary                  []string `json:"summary"`
	Chapters                 []string `json:"chapters"`
	RedactedCount            int      `json:"redactedCount"`
	Unavailable              []string `json:"unavailable"`
	Speakers                 []string `json:"speakers"`
	SpeakerColours           []string `json:"speakerColours"`
	EntityWords              []string `json:"entityWords"`
	CurrentAfterChapterClick int      `json:"currentAfterChapterClick"`
}

// checkPanels: every analysis panel rendered from a JSON fixture (the
// server does not produce all of them yet), checks each shows exactly
// the fixture's results, that a transcript without results shows none
// (and says "unavailable" where the service said so), the no-audio note
// for a deleted upload, and list paging through an absolute prev_url.
func checkPanels(t *testing.T, r panelsReport, fixtureURL string) {
	if len(r.Page1) != 10 || len(r.Page2) != 2 || r.Page2[1] != "fixture-01" || !slices.Equal(r.Page1, r.Page1Again) || !r.OlderDisabed {
		t.Errorf("paging: page 1 %v, page 2 %v, back %v, older disabled at the end %v", r.Page1, r.Page2, r.Page1Again, r.OlderDisabed)
	}

	var fx struct {
		Entities []struct {
			Type string `json:"entity_type"`
			Text string `json:"text"`
		} `json:"entities"`
		Sentiments []struct{ Sentiment string } `json:"sentiment_analysis_results"`
		Highlights struct {
			Results []struct {
				Text string
				Rank float64
			}
		} `json:"auto_highlights_result"`
		IAB struct {
			Summary map[string]float64
		} `json:"iab_categories_result"`
		CS struct {
			Results []any
			Summary map[string]float64
		} `json:"content_safety_labels"`
		Chapters []struct{ Headline string } `json:"chapters"`
		Words    []struct{ Text string }     `json:"words"`
	}
	b, _ := os.ReadFile(filepath.Join("testdata", "analysis.json"))
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	full := r.Views["fixture-full"]
	if want := expectedPanels(t, b); !slices.Equal(full.Panels, want) {
		t.Errorf("full fixture panels %v, want %v", full.Panels, want)
	}
	var chips []string
	types := map[string]bool{}
	for _, e := range fx.Entities {
		chips = append(chips, e.Text)
		types[humanize(e.Type)] = true
	}
	sort.Strings(chips)
	got := slices.Clone(full.EntityChips)
	sort.Strings(got)
	if !slices.Equal(got, chips) || len(full.EntityTypes) != len(types) {
		t.Errorf("entities: chips %v types %v; fixture %v", full.EntityChips, full.EntityTypes, chips)
	}
	if len(full.EntityWords) == 0 {
		t.Error("no transcript word is marked as an entity")
	}
	if len(full.Sentiments) != len(fx.Sentiments) {
		t.Errorf("%d sentiment rows, fixture has %d", len(full.Sentiments), len(fx.Sentiments))
	}
	for i, s := range fx.Sentiments {
		if i < len(full.Sentiments) && full.Sentiments[i] != "sent-"+strings.ToLower(s.Sentiment) {
			t.Errorf("sentiment row %d has class %q, want sent-%s", i, full.Sentiments[i], strings.ToLower(s.Sentiment))
		}
	}
	hl := slices.Clone(fx.Highlights.Results)
	sort.Slice(hl, func(i, j int) bool { return hl[i].Rank > hl[j].Rank })
	var wantPhrases []string
	for _, h := range hl {
		wantPhrases = append(wantPhrases, h.Text)
	}
	if !slices.Equal(full.KeyPhrases, wantPhrases) {
		t.Errorf("key phrases %v, want by rank %v", full.KeyPhrases, wantPhrases)
	}
	if len(full.Topics) != len(fx.IAB.Summary) || !strings.Contains(full.Topics[0], "Data Storage") || !strings.Contains(full.Topics[0], " › ") {
		t.Errorf("topics %v from summary %v", full.Topics, fx.IAB.Summary)
	}
	if len(full.SafetyLabels) != len(fx.CS.Summary) || full.SafetyResults != len(fx.CS.Results) || full.SafetyLabels[0] != "Negative news" {
		t.Errorf("content safety labels %v results %d", full.SafetyLabels, full.SafetyResults)
	}
	if len(full.Summary) != 3 || !strings.Contains(full.Summary[0], "data center") {
		t.Errorf("summary bullets %v", full.Summary)
	}
	if len(full.Chapters) != len(fx.Chapters) || full.Chapters[0] != fx.Chapters[0].Headline {
		t.Errorf("chapters %v", full.Chapters)
	}
	if full.RedactedCount != 2 {
		t.Errorf("redacted words counted %d, the fixture has 2 (#### #######)", full.RedactedCount)
	}
	if !slices.Equal(full.Speakers, []string{"Speaker A", "Speaker B"}) || len(full.SpeakerColours) != 4 ||
		full.SpeakerColours[0] == full.SpeakerColours[1] || full.SpeakerColours[0] != full.SpeakerColours[2] {
		t.Errorf("speakers %v colours %v: want A and B in two colours, alternating", full.Speakers, full.SpeakerColours)
	}
	if !full.NoAudioVisible || full.AudioSrc != "" {
		t.Errorf("the deleted upload's transcript: no-audio note visible %v, src %q", full.NoAudioVisible, full.AudioSrc)
	}
	if full.CurrentAfterChapterClick < 0 {
		t.Error("a chapter's time button did not mark its first word")
	}

	null := r.Views["fixture-null"]
	if want := []string{"key-phrases", "topics", "content-safety"}; !slices.Equal(null.Panels, want) || !slices.Equal(null.Unavailable, want) {
		t.Errorf("transcript without results: panels %v (unavailable %v), want only %v saying unavailable", null.Panels, null.Unavailable, want)
	}
	if null.NoAudioVisible || null.AudioSrc != fixtureURL+"/media/planning.wav" || null.AudioDuration < 2 {
		t.Errorf("a remote audio_url is not the player's source: src %q (duration %.1f s), no-audio note %v", null.AudioSrc, null.AudioDuration, null.NoAudioVisible)
	}
	if null.Blocks != 4 {
		t.Errorf("the transcript without utterances shows %d paragraphs, want the 4 of /paragraphs", null.Blocks)
	}
	if len(null.Speakers) != 0 {
		t.Errorf("speakers %v without utterances", null.Speakers)
	}
}

// humanize is util.js's humanize: "person_name" -> "Person name", "us_social_security_number" -> "US social security number".
func humanize(s string) string {
	ws := strings.Split(s, "_")
	for i, w := range ws {
		if slices.Contains([]string{"us", "ip", "cvv", "url", "id", "pii", "iab"}, w) {
			ws[i] = strings.ToUpper(w)
		}
	}
	s = strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:]
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
