package openaiapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/httpapi/openaiapi"
)

// sentenceWords and speechWords are words of sentence() and speech() that
// pocketsphinx recognizes from flite's slt voice.
var (
	sentenceWords = []string{"hello", "new york", "test", "transcription"}
	speechWords   = append(slices.Clone(sentenceWords), "quick", "brown", "fox", "lazy", "dog")
)

func checkText(t *testing.T, text string, words []string) {
	t.Helper()
	low := strings.ToLower(text)
	for _, w := range words {
		if !strings.Contains(low, w) {
			t.Errorf("text %q lacks %q", text, w)
		}
	}
}

// TestResponseFormats transcribes real speech with real pocketsphinx
// through the handler in every response format, over loopback HTTP, and
// checks each answer's content type, shape and content, and that nothing
// is kept afterwards. (Every granularity combination of verbose_json is
// covered by TestRender.)
func TestResponseFormats(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	short := string(sentence(t))

	t.Run("json", func(t *testing.T) {
		t.Parallel()
		r := f.transcribe(t, field{"file", short}, field{"model", "whisper-1"})
		if r.status != 200 || r.ctype != "application/json" {
			t.Fatalf("%d %s: %s", r.status, r.ctype, r.body)
		}
		var v openaiapi.Transcription
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatal(err)
		}
		checkText(t, v.Text, sentenceWords)
		if v.Usage.Type != "duration" || float64(v.Usage.Seconds) != wholeSeconds([]byte(short)) {
			t.Errorf("usage %+v", v.Usage)
		}
		checkKeys(t, r.body, "text", "usage")
	})
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		// Fields after the file, as some clients send them.
		r := f.transcribe(t, field{"file", short}, field{"model", "whisper-1"}, field{"response_format", "text"})
		if r.status != 200 || r.ctype != "text/plain; charset=utf-8" {
			t.Fatalf("%d %s: %s", r.status, r.ctype, r.body)
		}
		checkText(t, string(r.body), sentenceWords)
		if !strings.HasSuffix(string(r.body), "\n") || strings.Count(string(r.body), "\n") != 1 {
			t.Errorf("text answer %q is not one line", r.body)
		}
	})
	t.Run("srt", func(t *testing.T) {
		t.Parallel()
		r := f.transcribe(t, field{"model", "pocketsphinx"}, field{"response_format", "srt"}, field{"file", short})
		if r.status != 200 || r.ctype != "text/plain; charset=utf-8" {
			t.Fatalf("%d %s: %s", r.status, r.ctype, r.body)
		}
		if !regexp.MustCompile(`^1\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\n\S`).Match(r.body) {
			t.Errorf("srt does not start with a cue: %q", r.body)
		}
		checkText(t, string(r.body), sentenceWords)
	})
	t.Run("vtt", func(t *testing.T) {
		t.Parallel()
		r := f.transcribe(t, field{"model", "whisper-1"}, field{"response_format", "vtt"}, field{"file", short})
		if r.status != 200 || r.ctype != "text/plain; charset=utf-8" {
			t.Fatalf("%d %s: %s", r.status, r.ctype, r.body)
		}
		if !regexp.MustCompile(`^WEBVTT\n\n00:0\d\.\d{3} --> 00:0\d\.\d{3}\n\S`).Match(r.body) {
			t.Errorf("vtt does not start with WEBVTT and a cue: %q", r.body)
		}
		checkText(t, string(r.body), sentenceWords)
	})
	t.Run("diarized_json", func(t *testing.T) {
		t.Parallel()
		r := f.transcribe(t, field{"model", "whisper-1"}, field{"response_format", "diarized_json"}, field{"file", short})
		if r.status != 200 || r.ctype != "application/json" {
			t.Fatalf("%d %s: %s", r.status, r.ctype, r.body)
		}
		var v openaiapi.TranscriptionDiarized
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatal(err)
		}
		checkText(t, v.Text, sentenceWords)
		if len(v.Segments) == 0 {
			t.Fatalf("no segments: %s", r.body)
		}
		var joined []string
		for i, s := range v.Segments {
			if s.Type != "transcript.text.segment" || s.ID != fmt.Sprintf("seg_%d", i) || s.Speaker != "A" || s.End <= s.Start {
				t.Errorf("segment %d: %+v (one voice: speaker A)", i, s)
			}
			joined = append(joined, s.Text)
		}
		checkText(t, strings.Join(joined, " "), sentenceWords)
		checkKeys(t, r.body, "task", "duration", "text", "segments", "usage")
	})
	t.Run("verbose_json", func(t *testing.T) {
		t.Parallel()
		// Two sentences a second apart: two segments. No granularity:
		// segments only, OpenAI's default.
		wav := speech(t)
		r := f.transcribe(t, field{"model", "whisper-1"}, field{"response_format", "verbose_json"}, field{"file", string(wav)})
		v := verbose(t, r, wav)
		checkSegments(t, v.Segments, wavSeconds(wav))
		checkKeys(t, r.body, "task", "language", "duration", "text", "segments", "usage")
	})
	// After the subtests: every answer was sent after its transcript was
	// deleted.
	t.Cleanup(func() { f.expectNothingKept(t) })
}

// verbose decodes and checks a verbose_json answer for speech().
func verbose(t *testing.T, r response, wav []byte) openaiapi.TranscriptionVerbose {
	t.Helper()
	if r.status != 200 || r.ctype != "application/json" {
		t.Fatalf("%d %s: %s", r.status, r.ctype, r.body)
	}
	var v openaiapi.TranscriptionVerbose
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatal(err)
	}
	checkText(t, v.Text, speechWords)
	if v.Task != "transcribe" || v.Language != "english" || v.Duration != wholeSeconds(wav) || v.Usage.Type != "duration" || v.Usage.Seconds != int64(math.Ceil(v.Duration)) {
		t.Errorf("header: task %q language %q duration %g usage %+v", v.Task, v.Language, v.Duration, v.Usage)
	}
	return v
}

// checkKeys checks that the JSON object body has exactly keys.
func checkKeys(t *testing.T, body []byte, keys ...string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Errorf("keys %v, want %v", got, keys)
	}
}

func checkWords(t *testing.T, ws []openaiapi.Word, dur float64) {
	t.Helper()
	if len(ws) < 15 {
		t.Fatalf("%d words, want about 19: %+v", len(ws), ws)
	}
	var text []string
	for i, w := range ws {
		if w.Start < 0 || w.End < w.Start || w.End > dur+0.01 || (i > 0 && w.Start < ws[i-1].Start) {
			t.Errorf("word %d %+v: times out of order or range", i, w)
		}
		if strings.ContainsAny(w.Word, " .,?!") || w.Word == "" {
			t.Errorf("word %d %q has spaces or punctuation", i, w.Word)
		}
		text = append(text, w.Word)
	}
	checkText(t, strings.Join(text, " "), speechWords)
}

func checkSegments(t *testing.T, ss []openaiapi.Segment, dur float64) {
	t.Helper()
	if len(ss) < 2 {
		t.Fatalf("%d segments for two sentences a second apart: %+v", len(ss), ss)
	}
	for i, s := range ss {
		if s.ID != i || s.Start < 0 || s.End <= s.Start || s.End > dur+0.01 || (i > 0 && s.Start < ss[i-1].End) {
			t.Errorf("segment %d: id or times wrong: %+v", i, s)
		}
		if !strings.HasPrefix(s.Text, " ") || strings.TrimSpace(s.Text) == "" {
			t.Errorf("segment %d text %q: want whisper's leading space", i, s.Text)
		}
		if s.Seek != int64(math.Round(s.Start*100)) || s.Tokens == nil || len(s.Tokens) != 0 || s.Temperature != 0 || s.NoSpeechProb != 0 {
			t.Errorf("segment %d: seek/tokens/temperature/no_speech_prob %+v", i, s)
		}
		if s.AvgLogprob > 0 || s.AvgLogprob < -5 || s.CompressionRatio < 0.5 || s.CompressionRatio > 2.4 {
			t.Errorf("segment %d: avg_logprob %g, compression_ratio %g out of range", i, s.AvgLogprob, s.CompressionRatio)
		}
	}
	// The pause ends the first sentence: "fox" is in a later segment.
	if strings.Contains(ss[0].Text, "fox") {
		t.Errorf("first segment %q runs into the second sentence", ss[0].Text)
	}
}

// TestVerboseJSONShape checks a verbose_json answer with both
// granularities on real speech, and compares its JSON structure (paths
// and value types) with OpenAI's, as
// recorded from openai-python's types in
// adapters/openai/testdata/openai_verbose.json.
func TestVerboseJSONShape(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../adapters/openai/testdata/openai_verbose.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex enginetest.Exchange
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	want, err := enginetest.Structure([]byte(ex.Body))
	if err != nil {
		t.Fatal(err)
	}
	// The one difference: tokens are always empty here (no engine has
	// whisper's token ids), so they have no element type.
	want = slices.DeleteFunc(want, func(p string) bool { return p == "segments[].tokens[] number" })
	f := newFixture(t, fixtureOptions{})
	wav := speech(t)
	r := f.transcribe(t, field{"model", "whisper-1"}, field{"response_format", "verbose_json"},
		field{"timestamp_granularities[]", "word"}, field{"timestamp_granularities[]", "segment"}, field{"file", string(wav)})
	v := verbose(t, r, wav)
	checkWords(t, v.Words, wavSeconds(wav))
	checkSegments(t, v.Segments, wavSeconds(wav))
	got, err := enginetest.Structure(r.body)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("structure differs from OpenAI's:\n got %v\nwant %v", got, want)
	}
}
