package openaiapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/transcribe"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from Render's output")

// handMade is a completed transcript of two speakers and two sentences,
// as the Service's stages leave it: punctuated words, utterances,
// audio_duration in whole seconds.
func handMade() *transcribe.Transcript {
	a, b := "A", "B"
	w := func(text string, start, end int64, conf float64, sp *string) transcribe.Word {
		return transcribe.Word{Text: text, Start: start, End: end, Confidence: conf, Speaker: sp}
	}
	words := []transcribe.Word{
		w("Hello,", 120, 480, 0.98, &a), w("world.", 520, 900, 0.91, &a),
		w("Don't", 2100, 2350, 0.7, &b), w("pay", 2350, 2600, 0.88, &b), w("$25", 2600, 3100, 0.5, &b), w("\"today\"?", 3100, 3600, 0.95, &b),
	}
	text := "Hello, world. Don't pay $25 \"today\"?"
	dur, lang := 4.0, "en_us"
	return &transcribe.Transcript{
		ID: "5551722f-0fbd-4a6a-a7a8-2c4e7bb6e1f5", Status: transcribe.StatusCompleted, Text: &text, Words: words,
		AudioDuration: &dur, TranscriptParams: transcribe.TranscriptParams{LanguageCode: &lang},
		Utterances: []transcribe.Utterance{
			{Text: "Hello, world.", Start: 120, End: 900, Confidence: 0.945, Speaker: a, Words: words[:2]},
			{Text: "Don't pay $25 \"today\"?", Start: 2100, End: 3600, Confidence: 0.76, Speaker: b, Words: words[2:]},
		},
	}
}

// TestRender checks Render's output for every format and granularity
// against testdata/render_*.golden (go test -run TestRender -update
// rewrites them; review the diff), and that the JSON forms decode into
// the exported types.
func TestRender(t *testing.T) {
	t.Parallel()
	tr := handMade()
	for _, c := range []struct {
		name  string
		o     openaiapi.RenderOptions
		ctype string
	}{
		{"json", openaiapi.RenderOptions{}, "application/json"},
		{"text", openaiapi.RenderOptions{Format: openaiapi.FormatText}, "text/plain; charset=utf-8"},
		{"srt", openaiapi.RenderOptions{Format: openaiapi.FormatSRT}, "text/plain; charset=utf-8"},
		{"vtt", openaiapi.RenderOptions{Format: openaiapi.FormatVTT}, "text/plain; charset=utf-8"},
		{"verbose_json", openaiapi.RenderOptions{Format: openaiapi.FormatVerboseJSON}, "application/json"},
		{"verbose_json_segment", openaiapi.RenderOptions{Format: openaiapi.FormatVerboseJSON, Segments: true, Temperature: 0.4}, "application/json"},
		{"verbose_json_word", openaiapi.RenderOptions{Format: openaiapi.FormatVerboseJSON, Words: true}, "application/json"},
		{"verbose_json_word_segment", openaiapi.RenderOptions{Format: openaiapi.FormatVerboseJSON, Words: true, Segments: true}, "application/json"},
		{"diarized_json", openaiapi.RenderOptions{Format: openaiapi.FormatDiarizedJSON}, "application/json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ct, body, err := openaiapi.Render(tr, c.o)
			if err != nil || ct != c.ctype {
				t.Fatalf("%q %v", ct, err)
			}
			if c.ctype == "application/json" {
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, body, "", "  "); err != nil {
					t.Fatal(err)
				}
				body = append(pretty.Bytes(), '\n')
			}
			golden := filepath.Join("testdata", "render_"+c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("%s differs:\n got %s\nwant %s", golden, body, want)
			}
		})
	}
	if _, _, err := openaiapi.Render(tr, openaiapi.RenderOptions{Format: "xml"}); err == nil {
		t.Error("an unknown format rendered")
	}
	// A transcript without words: empty lists, never null.
	empty, zero := "", 1.0
	_, body, err := openaiapi.Render(&transcribe.Transcript{Status: transcribe.StatusCompleted, Text: &empty, Words: []transcribe.Word{}, AudioDuration: &zero},
		openaiapi.RenderOptions{Format: openaiapi.FormatVerboseJSON, Words: true, Segments: true})
	if err != nil || string(body) != `{"task":"transcribe","language":"","duration":1,"text":"","words":[],"segments":[],"usage":{"type":"duration","seconds":1}}` {
		t.Errorf("empty transcript: %s %v", body, err)
	}
}
