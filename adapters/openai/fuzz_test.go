package openai

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		ws := normalizeWords(res.words, english, false)
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
		// The engine's text kept, with and without punctuation: words are
		// never empty or padded, and times stay in order within the limit.
		for _, punct := range []bool{true, false} {
			kw, _ := wordsFor(res.words, english, punct, true)
			prev = 0
			for i, w := range kw {
				if w.Text == "" || strings.TrimSpace(w.Text) != w.Text || w.Start < prev || w.End < w.Start || (limit >= 0 && w.End > limit) {
					t.Fatalf("kept word %d %+v after %d (limit %d)", i, w, prev, limit)
				}
				prev = w.Start
			}
		}
	})
}

// BenchmarkParseResponse reads a five-minute whisper.cpp-style answer (60
// segments of BPE tokens) into normalized words, and reports the cost
// relative to decoding the same body into a generic Go value with
// encoding/json (the least any reader must do).
func BenchmarkParseResponse(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"task":"transcribe","language":"english","duration":300.0,"text":"x","segments":[`)
	for s := range 60 {
		if s > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"id":%d,"text":"x","start":%d,"end":%d,"tokens":[1],"words":[`, s, s*5, s*5+5)
		for w := range 15 {
			if w > 0 {
				sb.WriteString(",")
			}
			t := float64(s*5) + float64(w)/3
			fmt.Fprintf(&sb, `{"word":" mee","start":%.2f,"end":%.2f,"t_dtw":-1,"probability":0.8},{"word":"ting,","start":%.2f,"end":%.2f,"t_dtw":-1,"probability":0.7}`, t, t+0.1, t+0.1, t+0.3)
		}
		sb.WriteString(`],"temperature":0.0,"avg_logprob":-0.3,"no_speech_prob":0.01}`)
	}
	sb.WriteString(`]}`)
	body := []byte(sb.String())
	start := time.Now()
	for range 20 {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	}
	base := time.Since(start) / 20
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	start = time.Now()
	for range b.N {
		res, err := parseResponse(body, 300000)
		if err != nil {
			b.Fatal(err)
		}
		if len(normalizeWords(res.words, true, false)) != 900 {
			b.Fatal("wrong word count")
		}
	}
	b.ReportMetric(float64(time.Since(start)/time.Duration(b.N))/float64(base), "x_json_decode")
}
