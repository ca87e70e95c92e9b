package openai

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

func raws(text string) []rawWord {
	var out []rawWord
	for i, f := range strings.Fields(text) {
		out = append(out, rawWord{text: " " + f, start: int64(i) * 500, end: int64(i)*500 + 400, conf: 0.9})
	}
	return out
}

func TestNormalizeWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want string
		english  bool
	}{
		{"Hello, world!", "hello world", true},
		{"Don’t stop 'em — now.", "don't stop em now", true},
		{"[BLANK_AUDIO]", "", true},
		{"Yes. [Music playing] (laughs) *door closes* ♪ la la ♪ no.", "yes la la no", true},
		{"It costs $3.50 today.", "it costs three dollars and fifty cents today", true},
		{"It costs $1.", "it costs one dollar", true},
		{"We raised $5 million.", "we raised five million dollars", true},
		{"Growth was 10% in 1999 and 2005, not 2000.", "growth was ten percent in nineteen ninety nine and twenty oh five not two thousand", true},
		{"About 1,250 people, 3.14 pi, 21st place, the 1990s.", "about one thousand two hundred fifty people three point one four pi twenty first place the nineteen nineties", true},
		{"Meet at 10:30 or 9:05 or 7:00.", "meet at ten thirty or nine oh five or seven", true},
		{"Call 555-1234 or 007.", "call five five five one two three four or zero zero seven", true},
		{"Visit example.com, e.g. with node.js, mail a@b.io & C++.", "visit example dot com e g with node dot js mail a at b dot io and c plus plus", true},
		{"The well-known mp3 of 24/7 fame.", "the well known mp three of twenty four seven fame", true},
		{"Ich habe 3,5 Äpfel.", "ich habe 3 5 äpfel", false},
		{"東京で 2024年", "東京で 2024年", false},
		{"12345678901234567", "one two three four five six seven eight nine zero one two three four five six seven", true},
		{"£20 and €3", "twenty pounds and three euros", true},
	} {
		got := texts(normalizeWords(raws(c.in), c.english, false))
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestNormalizeTimes: a word that becomes several shares its time by
// length; a scale word after money joins it.
func TestNormalizeTimes(t *testing.T) {
	t.Parallel()
	ws := normalizeWords([]rawWord{{text: " $5", start: 1000, end: 1400, conf: 0.8}, {text: " million.", start: 1400, end: 2000, conf: 0.6}}, true, false)
	if texts(ws) != "five million dollars" {
		t.Fatalf("got %q", texts(ws))
	}
	if ws[0].Start != 1000 || ws[2].End != 2000 || ws[0].End > ws[1].Start || ws[1].End > ws[2].Start {
		t.Errorf("times %+v", ws)
	}
	for _, w := range ws {
		if w.Confidence != 0.7 {
			t.Errorf("confidence %v, want the mean 0.7", w.Confidence)
		}
	}
}

// TestNormalizeRoundTrip: the spoken forms given to the Service come back
// as the engine wrote them from the formatting stage that writes numbers
// (textfmt.ITN), so whisper's written numbers survive the pipeline.
func TestNormalizeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"It costs $3.50", "it costs $3.50"},
		{"We raised $25", "we raised $25"},
		{"growth of 10%", "growth of 10%"},
		{"in 1999", "in 1999"},
		{"it was 2024", "it was 2024"},
		{"about 1,250 people", "about 1,250 people"},
		{"3.14 and 0.5", "3.14 and 0.5"},
		{"the 21st time", "the 21st time"},
		{"call 555-1234", "call 555-1234"},
		{"at 10:30", "at 10:30"},
		{"24/7", "24/7"},
	} {
		ws := textfmt.ITN{}.Format(normalizeWords(raws(c.in), true, false))
		if got := wordsText(ws); got != c.want {
			t.Errorf("%q -> %q -> %q, want %q", c.in, texts(normalizeWords(raws(c.in), true, false)), got, c.want)
		}
	}
}

func wordsText(ws []transcribe.Word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Text
	}
	return strings.Join(s, " ")
}

func TestLanguageCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"english": "en", "English": "en", "en": "en", "EN": "en", "en-US": "en", "en_uk": "en",
		"haitian creole": "ht", "Cantonese": "yue", "yue": "yue", "mandarin": "zh", "jv": "jw", "javanese": "jw",
		"unknown": "", "": "", "auto": "", "klingon": "", "x-y": "",
	} {
		if got := LanguageCode(in); got != want {
			t.Errorf("LanguageCode(%q) = %q, want %q", in, got, want)
		}
	}
	codes := map[string]bool{}
	for _, c := range transcribe.LanguageCodes() {
		codes[c] = true
	}
	for _, c := range WhisperLanguages() {
		if !codes[c] && c != "yue" {
			t.Errorf("whisper language %q is not a transcribe language code", c)
		}
	}
}

func TestBuildPrompt(t *testing.T) {
	t.Parallel()
	if got := buildPrompt("", nil, false, 224); got != "" {
		t.Errorf("empty: %q", got)
	}
	if got := buildPrompt("  Quarterly   review ", []string{"Kubernetes", "kubernetes", " ", "TensorFlow"}, false, 224); got != "Kubernetes, TensorFlow. Quarterly review" {
		t.Errorf("got %q", got)
	}
	// Terms alone may use the whole budget; the list is cut at the end.
	terms := make([]string, 300)
	for i := range terms {
		terms[i] = "term"
	}
	for i := range terms {
		terms[i] += string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	got := buildPrompt("", terms, false, 224)
	if n := estimateTokens(got); n > 224 || n < 200 || !strings.HasPrefix(got, "termaa, termba,") {
		t.Errorf("%d tokens: %q", n, got)
	}
	// With long text, terms get half and the text keeps its end.
	text := strings.Repeat("lorem ipsum dolor ", 200) + "the final words"
	got = buildPrompt(text, terms, false, 224)
	if n := estimateTokens(got); n > 224 || !strings.HasSuffix(got, "the final words") || !strings.Contains(got, "termaa") {
		t.Errorf("%d tokens: %q", n, got)
	}
	if n := estimateTokens(got[:strings.Index(got, ".")+1]); n > 112 {
		t.Errorf("terms took %d of 224 tokens with text present", n)
	}
	if got := buildPrompt("x", nil, true, 224); got != disfluencyPrompt+" x" {
		t.Errorf("disfluencies: %q", got)
	}
	if got := buildPrompt("some words", []string{"a"}, true, 0); got != "" {
		t.Errorf("no budget: %q", got)
	}
	// Estimates never undercount common words and count non-ASCII heavily.
	for s, want := range map[string]int{"the": 1, "Kubernetes": 3, "TensorFlow.": 4, "東京": 4, "a, b": 3} {
		if got := estimateTokens(s); got != want {
			t.Errorf("estimateTokens(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"error":"no 'file' field in the request"}`:                       "no 'file' field in the request",
		`{"error":{"message":"bad model","type":"x"}}`:                     "bad model",
		`{"detail":"Unknown model 'x'. Available: fun-asr-nano"}`:          "Unknown model 'x'. Available: fun-asr-nano",
		`{"detail":[{"loc":["body","file"],"msg":"Field required"}]}`:      "body.file: Field required",
		`{"object":"error","message":"old vLLM","type":"BadRequestError"}`: "old vLLM",
		"Invalid request":                     "Invalid request",
		"<!DOCTYPE html><html>502</html>":     "",
		`{"nothing": 1}`:                      "",
		"500 Internal Server Error\nboom\n\n": "500 Internal Server Error boom",
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%q) = %q, want %q", body, got, want)
		}
	}
	if got := errorMessage([]byte(strings.Repeat("x", 1000))); len(got) > 310 {
		t.Errorf("long text not clipped: %d bytes", len(got))
	}
}
