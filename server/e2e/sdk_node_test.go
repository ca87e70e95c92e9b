package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/nodetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
)

// The file is not named sdk_js_test.go: a _js suffix is a GOOS=js build
// constraint, and the go tool would silently ignore it.

// restJSReport is what jstest/rest.cjs prints.
type restJSReport struct {
	Failures           []string `json:"failures"`
	Fatal              string   `json:"fatal"`
	Uploads            []string `json:"uploads"`
	ID                 string   `json:"id"`
	Text               string   `json:"text"`
	TranscribeText     string   `json:"transcribeText"`
	PIIText            string   `json:"piiText"`
	Words              int      `json:"words"`
	Speakers           []string `json:"speakers"`
	Sentences          int      `json:"sentences"`
	Paragraphs         int      `json:"paragraphs"`
	SRTCues            int      `json:"srtCues"`
	VTTCues            int      `json:"vttCues"`
	Listed             []string `json:"listed"`
	PrevURLs           []string `json:"prevURLs"`
	RedactedAudioBytes int      `json:"redactedAudioBytes"`
	NotFoundMessage    string   `json:"notFoundMessage"`
	WordSearch         struct {
		Total   int `json:"total"`
		Hello   int `json:"hello"`
		NewYork int `json:"newYork"`
	} `json:"wordSearch"`
	ElapsedMs int64 `json:"elapsedMs"`
}

// TestJSSDKREST runs the official JS SDK 4.41.5 REST client against the
// server (wire-format.md section 7, JS items 1 to 7): uploads from a path
// and a Buffer, submit and waitUntilReady with speaker labels, transcribe,
// sentences, paragraphs, srt and vtt subtitles, word search with a phrase,
// list paging through prev_url, list with an empty after_id, redacted audio
// and its download, delete, and the error message for an unknown id.
// jstest/rest.cjs does the checks that need the SDK's own objects (Dates,
// rejected promises); this side checks the exit status, the report, and
// what only the server knows.
func TestJSSDKREST(t *testing.T) {
	dir := nodetest.Dir(t, "jstest", "assemblyai")
	wav := testaudio.Speech(t, "slt", "hello from new york this is a test of the transcription service")
	piiWav := testaudio.Speech(t, "slt", "hi my name is sarah johnson and my number is five five five one two three four")
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyJS+":jsproject")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "rest.cjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EARSHOT_URL="+s.URL, "EARSHOT_KEY="+keyJS, "EARSHOT_WAV="+wav, "EARSHOT_PII_WAV="+piiWav)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var r restJSReport
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r); err != nil {
		t.Fatalf("node rest.cjs: %v; its output is not a JSON report (%v)\nstdout: %s\nstderr: %s", runErr, err, stdout.String(), stderr.String())
	}
	if r.Fatal != "" {
		t.Fatalf("rest.cjs crashed: %s\nreport: %s", r.Fatal, stdout.String())
	}
	for _, f := range r.Failures {
		t.Errorf("JS SDK check failed: %s", f)
	}
	if runErr != nil && len(r.Failures) == 0 {
		t.Errorf("node rest.cjs: %v with no failures reported\nstderr: %s", runErr, stderr.String())
	}
	if runErr == nil && len(r.Failures) != 0 {
		t.Errorf("node rest.cjs exited 0 with %d failures", len(r.Failures))
	}
	if t.Failed() {
		t.Logf("report: %s", stdout.String())
		return
	}
	t.Logf("JS SDK REST suite took %d ms: text %q (%d words, %d sentences, %d paragraphs, speakers %v), transcribe() text %q, pii %q, word search %+v, %d srt / %d vtt cues, listed %v, %d bytes of redacted audio",
		r.ElapsedMs, r.Text, r.Words, r.Sentences, r.Paragraphs, r.Speakers, r.TranscribeText, r.PIIText, r.WordSearch, r.SRTCues, r.VTTCues, r.Listed, r.RedactedAudioBytes)

	// Recognition: the words the SDK got back are the ones that were said.
	for _, text := range []string{r.Text, r.TranscribeText} {
		low := strings.ToLower(text)
		for _, w := range []string{"hello", "new york", "test", "transcription"} {
			if !strings.Contains(low, w) {
				t.Errorf("text %q lacks %q", text, w)
			}
		}
	}
	// prev_url must be usable as given: on the server's own origin (or a /v2 path).
	if len(r.PrevURLs) != 2 {
		t.Errorf("followed %d prev_urls for 3 transcripts at limit 1, want 2: %v", len(r.PrevURLs), r.PrevURLs)
	}
	for _, u := range r.PrevURLs {
		if !strings.HasPrefix(u, s.URL+"/v2/transcript?") && !strings.HasPrefix(u, "/v2/transcript?") {
			t.Errorf("prev_url %q is neither on %s nor a /v2 path", u, s.URL)
		}
	}
	// The message the SDK surfaced is the server's error string.
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/v2/transcript/does-not-exist", nil)
	req.Header.Set("Authorization", keyJS)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 404 || body.Error == "" {
		t.Fatalf("GET unknown id: %d %v %+v", resp.StatusCode, err, body)
	}
	if r.NotFoundMessage != body.Error {
		t.Errorf("JS e.message %q, server error %q", r.NotFoundMessage, body.Error)
	}
	// Uploads are deleted once their transcripts are done.
	if files := listFiles(t, s.Data); containsPrefix(files, "blobs/uploads/") {
		t.Errorf("uploads still on disk: %v", files)
	}
}
