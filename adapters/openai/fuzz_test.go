package openai

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
)

// FuzzParseResponse feeds arbitrary answers to the response parser and the
// word normalizer: no panic, and whatever they accept follows the
// recognizer contract (lowercase words without punctuation, in time order,
// within the audio, confidences in 0..1).
func FuzzParseResponse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files {
		ex := enginetest.LoadExchange(f, filepath.Base(p))
		f.Add([]byte(ex.Body), int64(3000), true)
	}
	for _, s := range []string{
		`{"text":"x","segments":[{"start":"1e308","end":-5,"words":[{"word":" a","start":null,"end":"NaN"},{"word":"b","probability":7}]}]}`,
		`{"words":[{"text":" $5","start":1,"end":0.5},{"text":" million.","start":0.2,"end":9e9}],"language":"EN-us","language_probability":2}`,
		`"just text, 1,000 words"`,
		`{"segments":[{"text":" [Music] (laughs","start":0,"end":1},{"text":" ok)","start":1,"end":2}]}`,
		`{"text":"","segments":[],"words":[]}`,
	} {
		f.Add([]byte(s), int64(-1), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, audioMS int64, english bool) {
		if audioMS < -1 || audioMS > 1e9 {
			audioMS = -1
		}
		res, err := parseResponse(body, audioMS)
		if err != nil {
			if res != nil {
				t.Fatal("result with an error")
			}
			return
		}
		if res.langConf < 0 || res.langConf > 1 || (res.language != "" && LanguageCode(res.language) != res.language) {
			t.Fatalf("language %q %v", res.language, res.langConf)
		}
		limit := audioMS
		if limit < 0 {
			limit = res.duration
		}
		ws := normalizeWords(res.words, english)
		var prev int64
		for i, w := range ws {
			if w.Text == "" || w.Text != strings.ToLower(w.Text) || strings.IndexFunc(w.Text, func(r rune) bool { return unicode.IsPunct(r) && r != '\'' || unicode.IsSpace(r) }) >= 0 {
				t.Fatalf("word %d %q", i, w.Text)
			}
			if w.Start < prev || w.End < w.Start || w.Start < 0 || (limit >= 0 && w.End > limit) {
				t.Fatalf("word %d %q at %d..%d after %d (limit %d)", i, w.Text, w.Start, w.End, prev, limit)
			}
			if w.Confidence < 0 || w.Confidence > 1 {
				t.Fatalf("word %d confidence %v", i, w.Confidence)
			}
			prev = w.Start
		}
	})
}
