package openaiapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/nodetest"
)

// The file is not named sdk_js_test.go: a _js suffix is a GOOS=js build
// constraint, and the go tool would silently ignore it.

// sdkFormat is one format's result in jstest/sdk.cjs's report.
type sdkFormat struct {
	Text         string   `json:"text"`
	Keys         []string `json:"keys"`
	UsageSeconds int      `json:"usageSeconds"`
	Language     string   `json:"language"`
	Duration     float64  `json:"duration"`
	Words        []string `json:"words"`
	Segments     []struct {
		ID    int     `json:"id"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Text  string  `json:"text"`
	} `json:"segments"`
	Speakers []string `json:"speakers"`
}

// sdkReport is what jstest/sdk.cjs prints.
type sdkReport struct {
	Failures     []string             `json:"failures"`
	Fatal        string               `json:"fatal"`
	Formats      map[string]sdkFormat `json:"formats"`
	BufferText   string               `json:"bufferText"`
	Models       []string             `json:"models"`
	WrongKey     string               `json:"wrongKey"`
	BadModel     string               `json:"badModel"`
	BadFormat    string               `json:"badFormat"`
	UnknownModel string               `json:"unknownModel"`
	ElapsedMs    int64                `json:"elapsedMs"`
}

// TestOpenAINodeSDK runs the official openai npm package (6.49.0) against
// the handler on a real loopback server: client.audio.transcriptions.create
// in every response format (the file as a stream and through toFile, with
// language, prompt and both timestamp granularities), client.models.list
// and retrieve, and the SDK's typed errors for a wrong key, an unknown
// model, a bad format and an unknown model id. jstest/sdk.cjs makes the
// checks that need the SDK's own objects; this side checks the words.
func TestOpenAINodeSDK(t *testing.T) {
	t.Parallel()
	dir := nodetest.Dir(t, "jstest", "openai")
	f := newFixture(t, fixtureOptions{})
	wavPath := filepath.Join(t.TempDir(), "sentence.wav")
	if err := os.WriteFile(wavPath, sentence(t), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "sdk.cjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EARSHOT_URL="+f.srv.URL, "EARSHOT_KEY="+key1, "EARSHOT_WAV="+wavPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var r sdkReport
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r); err != nil {
		t.Fatalf("node sdk.cjs: %v; its output is not a JSON report (%v)\nstdout: %s\nstderr: %s", runErr, err, stdout.String(), stderr.String())
	}
	if r.Fatal != "" {
		t.Fatalf("sdk.cjs crashed: %s\nreport: %s", r.Fatal, stdout.String())
	}
	for _, msg := range r.Failures {
		t.Errorf("OpenAI SDK check failed: %s", msg)
	}
	if (runErr == nil) != (len(r.Failures) == 0) {
		t.Errorf("node exited with %v and %d failures\nstderr: %s", runErr, len(r.Failures), stderr.String())
	}
	t.Logf("openai SDK suite: %d ms", r.ElapsedMs)

	for _, name := range []string{"default", "json", "text", "srt", "vtt", "verbose_json", "diarized_json"} {
		got, ok := r.Formats[name]
		if !ok {
			t.Errorf("%s: no result", name)
			continue
		}
		checkText(t, got.Text, sentenceWords)
		t.Logf("%s: %q", name, got.Text)
	}
	if got := r.Formats["json"]; !slices.Equal(got.Keys, []string{"text", "usage"}) || got.UsageSeconds != int(wholeSeconds(sentence(t))) {
		t.Errorf("json: keys %v, usage %d s", got.Keys, got.UsageSeconds)
	}
	if got := r.Formats["srt"].Text; !regexp.MustCompile(`^1\n00:00:0\d,\d{3} --> `).MatchString(got) {
		t.Errorf("srt %q", got)
	}
	if got := r.Formats["vtt"].Text; !strings.HasPrefix(got, "WEBVTT\n\n00:0") {
		t.Errorf("vtt %q", got)
	}
	v := r.Formats["verbose_json"]
	if v.Language != "english" || v.Duration != wholeSeconds(sentence(t)) || len(v.Segments) == 0 || len(v.Words) < 8 {
		t.Errorf("verbose_json: language %q duration %g, %d segments, %d words", v.Language, v.Duration, len(v.Segments), len(v.Words))
	}
	checkText(t, strings.Join(v.Words, " "), sentenceWords)
	if d := r.Formats["diarized_json"]; len(d.Speakers) == 0 || d.Speakers[0] != "A" {
		t.Errorf("diarized_json speakers %v", d.Speakers)
	}
	checkText(t, r.BufferText, sentenceWords)
	if !slices.Equal(r.Models, []string{"whisper-1", "pocketsphinx"}) {
		t.Errorf("models %v", r.Models)
	}
	for name, msg := range map[string]string{"wrong key": r.WrongKey, "bad model": r.BadModel, "bad format": r.BadFormat, "unknown model": r.UnknownModel} {
		if msg == "" {
			t.Errorf("%s: no message", name)
		}
	}
	if !strings.Contains(r.BadModel, "gpt-9") {
		t.Errorf("bad model message %q does not name the model", r.BadModel)
	}
	f.expectNothingKept(t)
}
