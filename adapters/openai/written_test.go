package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/transcribe"
)

func joined(ws []transcribe.Word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Text
	}
	return strings.Join(s, " ")
}

// TestEngineTextKeptInRecordings: with punctuate and format_text (the
// request defaults) every recorded answer that has punctuation keeps the
// engine's text word for word — the OpenAI API's unpunctuated words take
// the text's punctuation — and says so in Written.
func TestEngineTextKeptInRecordings(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai_verbose.json", "speaches_verbose.json", "localai_crispasr.json", "localai_whisper.json",
		"vllm_verbose.json", "funasr_verbose.json"} {
		ex := enginetest.LoadExchange(t, name)
		res, err := parseResponse([]byte(ex.Body), -1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var body struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal([]byte(ex.Body), &body)
		want := strings.Join(strings.Fields(body.Text), " ")
		ws, wr := wordsFor(res.words, true, true, true)
		if got := joined(ws); got != want {
			t.Errorf("%s: words %q\nwant the engine's text %q", name, got, want)
		}
		if !wr.Punctuation || !wr.Casing || !wr.Numbers {
			t.Errorf("%s: Written %+v", name, wr)
		}
	}
}

// writtenEngine answers every request with an OpenAI-shaped verbose_json
// for text: words without punctuation (as the OpenAI API lists them), the
// text with it, 400 ms a word.
func writtenEngine(t *testing.T, text string) *httptest.Server {
	var words []map[string]any
	for i, f := range strings.Fields(text) {
		w := strings.TrimRight(f, ".,?!")
		words = append(words, map[string]any{"word": w, "start": float64(i) * 0.4, "end": float64(i)*0.4 + 0.35})
	}
	body, _ := json.Marshal(map[string]any{"task": "transcribe", "language": "english", "duration": float64(len(words)) * 0.4,
		"text": text, "words": words})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEngineTextKept is issue 21's case through a real HTTP exchange: the
// engine's punctuation, casing, numbers and e-mail address are kept with
// punctuate and format_text; punctuate false trims the punctuation and
// keeps the rest; format_text false gives the spoken form with the
// engine's punctuation; both false give the old lowercase spoken form.
func TestEngineTextKept(t *testing.T) {
	t.Parallel()
	const text = "Is that you, Dr. Miles Dyson? My card is 4111 1111 1111 1111 and my e-mail is sarah75@skynet.com. We live in the US."
	srv := writtenEngine(t, text)
	rec, err := New(Config{BaseURL: srv.URL + "/v1", Languages: []string{"en"}})
	if err != nil {
		t.Fatal(err)
	}
	audio := speech("slt")(t, foxText)
	for _, c := range []struct {
		punctuate, format bool
		want              string
		written           transcribe.Written
	}{
		{true, true, text, transcribe.Written{Punctuation: true, Casing: true, Numbers: true}},
		{false, true, "Is that you Dr Miles Dyson My card is 4111 1111 1111 1111 and my e-mail is sarah75@skynet.com We live in the US", transcribe.Written{Casing: true, Numbers: true}},
		{true, false, "is that you, dr. miles dyson? my card is four thousand one hundred eleven eleven eleven eleven eleven eleven eleven and my e mail is sarah seventy five at skynet dot com. we live in the us.", transcribe.Written{Punctuation: true}},
		{false, false, "is that you dr miles dyson my card is four thousand one hundred eleven eleven eleven eleven eleven eleven eleven and my e mail is sarah seventy five at skynet dot com we live in the us", transcribe.Written{}},
	} {
		opts := transcribe.RecognizeOptions{Punctuate: c.punctuate, FormatText: c.format}
		r, err := rec.Recognize(context.Background(), audio, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := joined(r.Words); got != c.want || r.Written != c.written {
			t.Errorf("punctuate %v format_text %v:\n got %q %+v\nwant %q %+v", c.punctuate, c.format, got, r.Written, c.want, c.written)
		}
	}
}

// TestEngineTextKeptShapes: whisper.cpp's BPE tokens (" Hel",
// "lo", ".") are merged into the engine's words with their punctuation,
// segment by segment, in every shape the test engines write.
func TestEngineTextKeptShapes(t *testing.T) {
	t.Parallel()
	var ws []transcribe.Word
	for i, f := range strings.Fields("is that you miles dyson") {
		ws = append(ws, transcribe.Word{Text: f, Start: int64(i) * 400, End: int64(i)*400 + 350})
	}
	for _, shape := range enginetest.Shapes() {
		body, _ := json.Marshal(enginetest.Render(shape, ws, 2, nil))
		res, err := parseResponse(body, 2000)
		if err != nil {
			t.Fatalf("%s: %v", shape, err)
		}
		got, wr := wordsFor(res.words, true, true, true)
		if joined(got) != "Is that you miles dyson." || !wr.Punctuation || !wr.Casing {
			t.Errorf("%s: %q %+v", shape, joined(got), wr)
		}
	}
}

// TestSpokenEngineStaysSpoken: an engine answering lowercase words
// without punctuation gets the spoken form and Earshot's own formatting
// (Written is zero), whatever the request asks.
func TestSpokenEngineStaysSpoken(t *testing.T) {
	t.Parallel()
	ws, wr := wordsFor(raws("my number is 555-1234 and it costs $5"), true, true, true)
	if got := joined(ws); got != "my number is five five five one two three four and it costs five dollars" || wr != (transcribe.Written{}) {
		t.Errorf("got %q %+v", got, wr)
	}
}

func TestKeepWordsAnnotationsAndLonePunctuation(t *testing.T) {
	t.Parallel()
	ws := keepWords(raws("[BLANK_AUDIO] Well - I think... (laughs) so ♪ . Yes!"), true)
	if got := joined(ws); got != "Well- I think... so. Yes!" {
		t.Errorf("got %q", got)
	}
}
