package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/transcribe"
)

// hugeAnswers are 30 MB answers (under the 32 MiB cap) for 2 s of audio:
// 15 million words of text, and 2.3 million word objects.
func hugeAnswers() map[string][]byte {
	var text bytes.Buffer
	text.WriteString(`{"text":"`)
	for text.Len() < 30<<20 {
		text.WriteString("a a a a a a a a a a a a a a a a ")
	}
	text.WriteString(`"}`)
	var list bytes.Buffer
	list.WriteString(`{"text":"a","words":[`)
	for list.Len() < 30<<20 {
		list.WriteString(`{"word":"a"},`)
	}
	list.WriteString(`{"word":"a"}]}`)
	var escaped bytes.Buffer
	escaped.WriteString(`{"text":"a`)
	for escaped.Len() < 30<<20 {
		escaped.WriteString(`\na\na\na\na\na\na\na\na`)
	}
	escaped.WriteString(`"}`)
	return map[string][]byte{"text": text.Bytes(), "words": list.Bytes(), "escaped": escaped.Bytes()}
}

// TestHugeAnswerRefused is issue 19.7: a broken or hostile engine answers
// 30 MB (millions of words) for 2 s of audio. The answer is refused with
// an engine error naming the bound, whether the audio went as samples or
// as a file, and the client allocates a few megabytes for it, not the
// gigabytes decoding it would take (6 GB RSS before).
func TestHugeAnswerRefused(t *testing.T) {
	answers := hugeAnswers()
	var cur []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(cur)
	}))
	defer srv.Close()
	rec, err := New(Config{BaseURL: srv.URL + "/v1", Languages: []string{"en"}, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	audio := speech("slt")(t, foxText)[:2*SampleRate]
	file := filepath.Join(t.TempDir(), "a.wav")
	if err := os.WriteFile(file, wavBytes(t, audio), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, body := range answers {
		cur = body
		for _, asFile := range []bool{false, true} {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			if asFile {
				_, err = rec.RecognizeFile(context.Background(), file, transcribe.RecognizeOptions{Duration: 2 * time.Second})
			} else {
				_, err = rec.Recognize(context.Background(), audio, transcribe.RecognizeOptions{})
			}
			runtime.ReadMemStats(&after)
			var e *Error
			if !errors.As(err, &e) || e.StatusCode != http.StatusOK || !strings.Contains(err.Error(), "2.0 s of audio") || errors.Is(err, transcribe.ErrUnavailable) {
				t.Errorf("%s (file %v): err %v, want an engine error naming 2.0 s of audio", name, asFile, err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("%s (file %v): %d MB allocated reading the answer", name, asFile, alloc>>20)
			}
		}
	}
}

func wavBytes(t *testing.T, s []int16) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("RIFF")
	le := func(v uint32, n int) {
		for i := 0; i < n; i++ {
			b.WriteByte(byte(v >> (8 * i)))
		}
	}
	le(uint32(36+2*len(s)), 4)
	b.WriteString("WAVEfmt ")
	le(16, 4)
	le(1, 2)
	le(1, 2)
	le(SampleRate, 4)
	le(2*SampleRate, 4)
	le(2, 2)
	le(16, 2)
	b.WriteString("data")
	le(uint32(2*len(s)), 4)
	for _, v := range s {
		le(uint32(uint16(v)), 2)
	}
	return b.Bytes()
}

// TestBoundsHoldRealAnswers: every recorded answer of a real engine, and
// the test engines' answers at seven words a second, are within the bounds
// of their audio.
func TestBoundsHoldRealAnswers(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.Contains(e.Name(), "error") {
			continue
		}
		ex := enginetest.LoadExchange(t, e.Name())
		var d struct {
			Duration number `json:"duration"`
		}
		_ = json.Unmarshal([]byte(ex.Body), &d)
		if !d.Duration.ok {
			continue
		}
		checkBounds(t, e.Name(), []byte(ex.Body), int64(d.Duration.v*1000))
	}
	// Seven words a second for a minute, in every shape.
	var ws []transcribe.Word
	for i := 0; i < 420; i++ {
		ws = append(ws, transcribe.Word{Text: "word", Start: int64(i) * 1000 / 7, End: int64(i)*1000/7 + 120})
	}
	for _, shape := range enginetest.Shapes() {
		body, _ := json.Marshal(enginetest.Render(shape, ws, 60, nil))
		checkBounds(t, string(shape), body, 60000)
	}
}

func checkBounds(t *testing.T, name string, body []byte, ms int64) {
	t.Helper()
	lim := boundsFor(ms, DefaultMaxResponseBytes)
	res, err := parseResponse(body, ms)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if int64(len(body)) > lim.bytes || countValues(body, lim.values) > lim.values || len(res.words) > lim.words {
		t.Errorf("%s: %d bytes, %d values, %d words over the bounds %+v", name, len(body), countValues(body, 1<<62), len(res.words), lim)
	}
}

func TestCountValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int64
	}{
		{`{"text":"Hello there, you."}`, 5},
		{`{"words":[{"word":"a"},{"word":"b"}]}`, 10},
		{`{"text":"a\na\"b\\ c"}`, 6},
		{`["a,b", "c d"]`, 5},
	} {
		if got := countValues([]byte(c.in), 1<<62); got != c.want {
			t.Errorf("%s: %d, want %d", c.in, got, c.want)
		}
	}
}
