package whispercpp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// The exchanges in testdata/f0d2bfbf are real answers of whisper-server
// built at f0d2bfbf (2025-04), an older generation than the recordings in
// testdata (233fe1fc): it answers refusals with 200 and {"error": ...}
// and never sends language probabilities. testdata/f0d2bfbf/README.md says
// how they were made.

// f0Exchange reads testdata/f0d2bfbf/hdr-name.txt (status line and
// headers, as curl -D wrote them) and raw-name.out (the body byte for
// byte) as an exchange served at path.
func f0Exchange(t testing.TB, name, path string) *enginetest.Exchange {
	t.Helper()
	hdr, err := os.ReadFile(filepath.Join("testdata", "f0d2bfbf", "hdr-"+name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("testdata", "f0d2bfbf", "raw-"+name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	// The recorded Content-Length must match the body: ReadResponse reads
	// exactly that many bytes and the rest must be nothing.
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(hdr), bytes.NewReader(body))), nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(got, body) || resp.ContentLength != int64(len(body)) {
		t.Fatalf("%s: recorded headers do not match the body (%v, %d of %d bytes)", name, err, resp.ContentLength, len(body))
	}
	ex := &enginetest.Exchange{Engine: "whisper.cpp examples/server/server.cpp at f0d2bfbf", Status: resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"), Headers: map[string]string{}, Body: string(body)}
	for k := range resp.Header {
		if k != "Content-Length" && k != "Content-Type" {
			ex.Headers[k] = resp.Header.Get(k)
		}
	}
	ex.Request.Method, ex.Request.Path = http.MethodPost, path
	return ex
}

// jfkLength is the length of whisper.cpp's samples/jfk.wav, the audio of
// most exchanges; the replays send speech of that length (the recorded
// answer does not depend on it).
const jfkLength = 11 * openai.SampleRate

func elevenSeconds(t testing.TB) []int16 {
	s := speech(t, "slt", foxText)
	out := make([]int16, jfkLength)
	copy(out[openai.SampleRate:], s)
	return out
}

// TestF0d2bfbfAnswers replays real answers of the older server through
// both of its endpoints: every one is read, with its words, times in
// range and the language it names; none carries a language probability.
func TestF0d2bfbfAnswers(t *testing.T) {
	t.Parallel()
	const v1 = "/v1/audio/transcriptions"
	en := transcribe.RecognizeOptions{LanguageCode: "en"}
	cases := []struct {
		name, path string
		cfg        Config
		opts       transcribe.RecognizeOptions
		seconds    int
		first      string // first word
		nwords     int
		lang       string
	}{
		{"rand-ml-en", DefaultInferencePath, Config{}, en, 11, "supervisors", 33, "en"},
		{"rand-ml-auto", DefaultInferencePath, Config{}, transcribe.RecognizeOptions{}, 11, "motivations", 1, "ne"},
		{"rand-ml-prompt", DefaultInferencePath, Config{}, transcribe.RecognizeOptions{LanguageCode: "en", Prompt: "A meeting."}, 11, "fö", 1, "en"},
		{"rand-ml-maxlen", DefaultInferencePath, Config{ExtraFields: []openai.Field{{Name: "max_len", Value: "8"}}}, en, 11, "algorith", 20, "en"},
		{"rand-ml-notimestamps", DefaultInferencePath, Config{}, en, 11, "נ", 157, "en"},
		{"rand-ml-json", DefaultInferencePath, Config{}, en, 11, "самой", 26, "en"},
		{"rand-ml-long", DefaultInferencePath, Config{}, en, 154, "cats", 258, "en"},
		{"rand-en-earshot", DefaultInferencePath, Config{Languages: []string{"en"}}, transcribe.RecognizeOptions{}, 11, "mau", 60, "en"},
		{"rand-en-verbose", DefaultInferencePath, Config{Languages: []string{"en"}}, en, 11, "mccain", 71, "en"},
		{"earshot-auto", DefaultInferencePath, Config{}, transcribe.RecognizeOptions{}, 11, "", 0, "en"},
		{"rand-oai-auto", v1, Config{}, transcribe.RecognizeOptions{}, 11, "самой只", 10, "ne"},
		{"rand-oai-en", v1, Config{}, en, 11, "аюсь", 13, "en"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rp := enginetest.Replay(t, f0Exchange(t, c.name, c.path), false)
			c.cfg.URL, c.cfg.InferencePath = rp.URL, c.path
			audio := elevenSeconds(t)
			for len(audio) < c.seconds*openai.SampleRate {
				audio = append(audio, elevenSeconds(t)...)
			}
			audio = audio[:c.seconds*openai.SampleRate]
			rec, err := newRec(t, c.cfg).Recognize(context.Background(), audio, c.opts)
			if err != nil {
				t.Fatalf("%v (%d calls)", err, rp.Calls())
			}
			if rp.Calls() != 1 || len(rec.Words) != c.nwords {
				t.Errorf("%d words after %d calls, want %d", len(rec.Words), rp.Calls(), c.nwords)
			}
			if len(rec.Words) > 0 && strings.ToLower(strings.Trim(rec.Words[0].Text, ".,")) != c.first {
				t.Errorf("first word %q, want %q", rec.Words[0].Text, c.first)
			}
			if rec.Language != c.lang || rec.LanguageConfidence != 0 || rec.Model != DefaultName {
				t.Errorf("language %q (%v), model %q; this server gives no probability", rec.Language, rec.LanguageConfidence, rec.Model)
			}
			dur := int64(len(audio)) * 1000 / openai.SampleRate
			var prev int64
			for i, w := range rec.Words {
				if w.Start < prev || w.End < w.Start || w.End > dur || w.Confidence < 0 || w.Confidence > 1 {
					t.Fatalf("word %d %+v out of order or range (%d ms)", i, w, dur)
				}
				prev = w.Start
			}
		})
	}
}

// TestF0d2bfbfMP3AndSilence: an MP3 goes as it is; 3 s of zeros, which
// this server answers with invented words (raw-rand-ml-silence), is
// never sent.
func TestF0d2bfbfMP3AndSilence(t *testing.T) {
	t.Parallel()
	rp := enginetest.Replay(t, f0Exchange(t, "rand-ml-mp3", DefaultInferencePath), false)
	mp3 := testaudio.Convert(t, testaudio.Speech(t, "slt", foxText), "mp3", "-b:a", "64k")
	rec, err := newRec(t, Config{URL: rp.URL}).RecognizeFile(context.Background(), mp3, transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil || rp.Calls() != 1 || texts(rec.Words) != "gast phil wavelength treadmillיו uploading" {
		t.Errorf("mp3: %v, %q after %d calls", err, texts(rec.Words), rp.Calls())
	}
	ex := f0Exchange(t, "rand-ml-silence", DefaultInferencePath)
	if !strings.Contains(ex.Body, "самой") {
		t.Fatal("recording changed")
	}
	rp = enginetest.Replay(t, ex, false)
	rec, err = newRec(t, Config{URL: rp.URL}).Recognize(context.Background(), make([]int16, 3*openai.SampleRate), transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil || len(rec.Words) != 0 || rp.Calls() != 0 {
		t.Errorf("silence: %v, %q, %d calls", err, texts(rec.Words), rp.Calls())
	}
}

// TestF0d2bfbfRefusals: this server refuses with 200 and {"error": ...}
// where later ones answer 400. Such an answer is a refusal like the 400:
// not retried; for a file sent whole, ErrFileNotTaken (the Service then
// sends decoded pieces); for Earshot's own WAV, a *transcribe.MediaError
// with the engine's reason. Before, both were "unreadable answers" and
// the job failed with "internal error while processing the media".
func TestF0d2bfbfRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, msg string }{
		{"err-garbage", "failed to read audio data"},
		{"err-nofile", "no 'file' field in the request"},
	} {
		ex := f0Exchange(t, c.name, DefaultInferencePath)
		if ex.Status != 200 {
			t.Fatalf("%s: recorded status %d", c.name, ex.Status)
		}
		rp := enginetest.Replay(t, ex, false)
		r := newRec(t, Config{URL: rp.URL, Sleep: func(context.Context, time.Duration) error { return nil }})
		_, err := r.Recognize(context.Background(), elevenSeconds(t), transcribe.RecognizeOptions{LanguageCode: "en"})
		var e *openai.Error
		var me *transcribe.MediaError
		want := "whisper.cpp: POST " + rp.URL + "/inference: refused with HTTP 200: " + c.msg
		if !errors.As(err, &e) || !e.Refusal() || err.Error() != want || errors.Is(err, transcribe.ErrUnavailable) || errors.Is(err, transcribe.ErrEngineUnavailable) {
			t.Errorf("%s: err = %v\nwant %s", c.name, err, want)
		}
		if !errors.As(err, &me) || me.Reason != "the speech engine whisper.cpp refused the audio: "+c.msg {
			t.Errorf("%s: media error %v", c.name, me)
		}
		if rp.Calls() != 1 {
			t.Errorf("%s: %d calls; a refusal is not retried", c.name, rp.Calls())
		}
		wavFile := testaudio.Speech(t, "slt", foxText)
		_, err = r.RecognizeFile(context.Background(), wavFile, transcribe.RecognizeOptions{LanguageCode: "en"})
		if !errors.Is(err, transcribe.ErrFileNotTaken) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: RecognizeFile err = %v, want ErrFileNotTaken", c.name, err)
		}
	}
}

// TestF0d2bfbfErrors: the other error answers of this server — a bad
// field (500 "stof", retried then unavailable), and each endpoint asked
// on a server started for the other (404).
func TestF0d2bfbfErrors(t *testing.T) {
	t.Parallel()
	rp := enginetest.Replay(t, f0Exchange(t, "badtemp", DefaultInferencePath), false)
	_, err := newRec(t, Config{URL: rp.URL, MaxRetries: 1, Sleep: func(context.Context, time.Duration) error { return nil }}).
		Recognize(context.Background(), elevenSeconds(t), transcribe.RecognizeOptions{LanguageCode: "en"})
	if want := "whisper.cpp: POST " + rp.URL + "/inference: HTTP 500 after 2 attempts: 500 Internal Server Error stof"; err == nil || err.Error() != want || !errors.Is(err, transcribe.ErrUnavailable) || rp.Calls() != 2 {
		t.Errorf("500: %v after %d calls", err, rp.Calls())
	}
	for _, c := range []struct{ name, recorded, asked string }{
		{"err-wrongpath", "/inference", "/v1/audio/transcriptions"},
		{"ml-inference-wrongpath", "/v1/audio/transcriptions", "/inference"},
	} {
		// Served at the path the server did take, asked at the other.
		ex := f0Exchange(t, c.name, c.recorded)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ex.ContentType)
			w.WriteHeader(ex.Status)
			_, _ = io.WriteString(w, ex.Body)
		}))
		t.Cleanup(srv.Close)
		_, err := newRec(t, Config{URL: srv.URL, InferencePath: c.asked}).Recognize(context.Background(), elevenSeconds(t), transcribe.RecognizeOptions{})
		want := "whisper.cpp: POST " + srv.URL + c.asked + ": HTTP 404: File Not Found (" + c.asked + ") (is the URL the engine's transcription endpoint? check BaseURL and Path)"
		if ex.Status != 404 || err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", c.name, err, want)
		}
	}
}

// f0Server acts as whisper-server f0d2bfbf with a random-weight model: a
// WAV it can read (16-bit PCM) gets the recorded raw-rand-ml-en answer;
// any other file (GSM in WAV, which miniaudio cannot read) the recorded
// 200 {"error":"failed to read audio data"}.
func f0Server(t testing.TB) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	good, bad := f0Exchange(t, "rand-ml-en", DefaultInferencePath), f0Exchange(t, "err-garbage", DefaultInferencePath)
	var read, refused atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, file, err := enginetest.ReadRequest(r)
		ex := good
		if err != nil || len(file) < 44 || string(file[:4]) != "RIFF" || binary.LittleEndian.Uint16(file[20:22]) != 1 {
			ex, _ = bad, refused.Add(1)
		} else {
			read.Add(1)
		}
		w.Header().Set("Content-Type", ex.ContentType)
		w.WriteHeader(ex.Status)
		_, _ = io.WriteString(w, ex.Body)
	}))
	t.Cleanup(srv.Close)
	return srv, &read, &refused
}

// TestF0d2bfbfGSM: a GSM-encoded WAV is sniffed as WAV and sent whole;
// the older server refuses it with 200 and an error; RecognizeFile says
// ErrFileNotTaken, and the decoded audio sent as PCM is read.
func TestF0d2bfbfGSM(t *testing.T) {
	t.Parallel()
	gsm := testaudio.Sox(t, "wav", testaudio.Speech(t, "slt", foxText), "-e", "gsm-full-rate")
	srv, read, refused := f0Server(t)
	r := newRec(t, Config{URL: srv.URL})
	if !r.AcceptsFile("wav") {
		t.Fatal("WAV not sent whole")
	}
	_, err := r.RecognizeFile(context.Background(), gsm, transcribe.RecognizeOptions{LanguageCode: "en"})
	if !errors.Is(err, transcribe.ErrFileNotTaken) || refused.Load() != 1 {
		t.Fatalf("GSM WAV: %v (%d refused)", err, refused.Load())
	}
	rec, err := r.Recognize(context.Background(), elevenSeconds(t), transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil || read.Load() != 1 || len(rec.Words) == 0 || !slices.ContainsFunc(rec.Words, func(w transcribe.Word) bool { return w.Text == "pipeline" }) {
		t.Errorf("PCM: %v, %q", err, texts(rec.Words))
	}
}

// TestF0d2bfbfOpenAIPathDetects: whisper-server on the OpenAI path
// (--inference-path /v1/audio/transcriptions) transcribes a request
// without a language in its -l default and answers "english"
// (raw-rand-oai-nolang); only language=auto detects (raw-rand-oai-auto,
// "nepali"). The OpenAI-compatible adapter, which detects by leaving the
// field out, sees "Server: whisper.cpp", sends the request again with
// language=auto and keeps doing so; Config.DetectLanguage does it from
// the first request. Before, detection silently answered "en".
func TestF0d2bfbfOpenAIPathDetects(t *testing.T) {
	t.Parallel()
	const path = "/v1/audio/transcriptions"
	def, auto := f0Exchange(t, "rand-oai-nolang", path), f0Exchange(t, "rand-oai-auto", path)
	if def.Headers["Server"] != "whisper.cpp" {
		t.Fatalf("recorded headers %v", def.Headers)
	}
	var mu sync.Mutex
	var langs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		form, _, err := enginetest.ReadRequest(r)
		if err != nil || r.URL.Path != path {
			http.Error(w, "bad request", 400)
			return
		}
		mu.Lock()
		langs = append(langs, form.Get("language"))
		mu.Unlock()
		ex := def
		if form.Get("language") == "auto" {
			ex = auto
		}
		for k, v := range ex.Headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", ex.ContentType)
		w.WriteHeader(ex.Status)
		_, _ = io.WriteString(w, ex.Body)
	}))
	t.Cleanup(srv.Close)
	sent := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(langs)
		langs = langs[:0]
		return out
	}
	r, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	audio := elevenSeconds(t)
	for i, want := range [][]string{{"", "auto"}, {"auto"}} {
		rec, err := r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{})
		if got := sent(); err != nil || rec.Language != "ne" || !slices.Equal(got, want) {
			t.Fatalf("detection %d: %v, language %q, sent %q; want %q", i, err, rec.Language, got, want)
		}
	}
	rec, err := r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{LanguageCode: "en"})
	if got := sent(); err != nil || rec.Language != "en" || !slices.Equal(got, []string{"en"}) {
		t.Errorf("given language: %v, %q, sent %q", err, rec.Language, got)
	}
	// A file sent whole, on a fresh Recognizer.
	r2, _ := openai.New(openai.Config{BaseURL: srv.URL + "/v1"})
	rec, err = r2.RecognizeFile(context.Background(), testaudio.Speech(t, "slt", foxText), transcribe.RecognizeOptions{})
	if got := sent(); err != nil || rec.Language != "ne" || !slices.Equal(got, []string{"", "auto"}) {
		t.Errorf("file: %v, %q, sent %q", err, rec.Language, got)
	}
	// Config.DetectLanguage (EARSHOT_OPENAI_DETECT_LANGUAGE=auto): detects at once.
	r3, _ := openai.New(openai.Config{BaseURL: srv.URL + "/v1", DetectLanguage: "auto"})
	rec, err = r3.Recognize(context.Background(), audio, transcribe.RecognizeOptions{})
	if got := sent(); err != nil || rec.Language != "ne" || rec.LanguageConfidence != 0 || !slices.Equal(got, []string{"auto"}) {
		t.Errorf("DetectLanguage: %v, %q, sent %q", err, rec.Language, got)
	}
}
