package whispercpp

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

const foxText = "the quick brown fox jumps over the lazy dog"

// longText is what testdata's long.wav says (flite voice rms).
const longText = "earshot transcribes meetings on your own machines. the budget for next year is three point five million dollars, and the team meets at ten thirty."

func wav(t testing.TB, path string) []int16 {
	t.Helper()
	s, rate, err := transcribetest.ReadWAV16(path)
	if err != nil {
		t.Fatal(err)
	}
	if rate != openai.SampleRate {
		t.Fatalf("%s: %d Hz", path, rate)
	}
	return s
}

func speech(t testing.TB, voice, text string) []int16 {
	return wav(t, testaudio.Speech(t, voice, text))
}

// recordedAudio rebuilds the audio named in testdata's exchanges (see
// testdata/README.md).
func recordedAudio(t testing.TB, name string) []int16 {
	t.Helper()
	sil := make([]int16, 2*openai.SampleRate)
	switch name {
	case "fox.wav":
		return speech(t, "slt", foxText)
	case "long.wav":
		return speech(t, "rms", longText)
	case "padded.wav":
		return slices.Concat(sil, speech(t, "slt", foxText), sil)
	case "forty.wav":
		f, l := speech(t, "slt", foxText), speech(t, "rms", longText)
		return slices.Concat(l, sil, f, sil, l, sil, l, sil, f, sil, l)
	case "zeros.wav":
		return make([]int16, 3*openai.SampleRate)
	}
	t.Fatalf("no audio %q", name)
	return nil
}

func newRec(t testing.TB, cfg Config) *Recognizer {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func texts(ws []transcribe.Word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Text
	}
	return strings.Join(s, " ")
}

// TestConformance runs the recognizer suite against a test engine that
// answers in whisper.cpp's verbose_json shape (enginetest.WhisperCPP,
// after examples/server/server.cpp) with pocketsphinx's words for the real
// speech the suite sends.
func TestConformance(t *testing.T) {
	t.Parallel()
	e := enginetest.NewEngine(t, enginetest.WhisperCPP, DefaultInferencePath)
	r := newRec(t, Config{URL: e.URL})
	transcribetest.RunRecognizerTests(t, r, func(t testing.TB, text string) []int16 { return speech(t, "slt", text) })
	for _, req := range e.Requests() {
		if req.Get("split_on_word") != "true" || req.Get("response_format") != "verbose_json" || req.Get("language") == "" {
			t.Errorf("request fields %v", req)
		}
	}
}

// TestRecordedExchanges replays real exchanges with whisper.cpp's
// whisper-server (examples/server/server.cpp at 233fe1fc9b48, a
// random-weight model; testdata/README.md says how they were recorded).
// The adapter must send exactly the recorded fields.
func TestRecordedExchanges(t *testing.T) {
	t.Parallel()
	en := transcribe.RecognizeOptions{LanguageCode: "en"}
	cases := []struct {
		file   string
		audio  string
		cfg    Config
		opts   transcribe.RecognizeOptions
		words  string
		nwords int
		lang   string
		conf   float64
	}{
		{"inference_en.json", "long.wav", Config{}, en, "citation dash refreshedachingrig now cattle greg", 0, "en", 0},
		{"inference_detect.json", "padded.wav", Config{}, transcribe.RecognizeOptions{}, "самого самого самого", 0, "gl", 0.7966},
		{"inference_prompt.json", "fox.wav", Config{}, transcribe.RecognizeOptions{LanguageCode: "en", WordBoost: []string{"Earshot", "Kubernetes"}},
			"freeله discanci disc disc mujer tek conan sensit самогоyect trzebat phosphorus incom winическиوب gnическиوبbat phosphorus", 0, "en", 0},
		{"inference_long.json", "forty.wav", Config{}, en, "provincial choke provincial", 0, "en", 0},
		{"inference_maxlen.json", "forty.wav", Config{ExtraFields: []openai.Field{{Name: "max_len", Value: "8"}}}, en, "provincial clothing 검 tumor", 0, "en", 0},
		{"inference_en_model.json", "fox.wav", Config{Languages: []string{"en"}}, transcribe.RecognizeOptions{}, "cspectedmri", 0, "en", 0.0044},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			ex := enginetest.LoadExchange(t, c.file)
			if ex.Request.File.Name != c.audio {
				t.Fatalf("recorded with %s", ex.Request.File.Name)
			}
			rp := enginetest.Replay(t, ex, true)
			c.cfg.URL = rp.URL
			audio := recordedAudio(t, c.audio)
			rec, err := newRec(t, c.cfg).Recognize(context.Background(), audio, c.opts)
			if err != nil {
				t.Fatalf("%v (replay: %v)", err, rp.Err())
			}
			if texts(rec.Words) != c.words {
				t.Errorf("words %q, want %q", texts(rec.Words), c.words)
			}
			if rec.Language != c.lang || math.Abs(rec.LanguageConfidence-c.conf) > 0.0001 || rec.Model != DefaultName {
				t.Errorf("language %q %v, model %q", rec.Language, rec.LanguageConfidence, rec.Model)
			}
			dur := int64(len(audio)) * 1000 / openai.SampleRate
			var prev int64
			for i, w := range rec.Words {
				if w.Start < prev || w.End < w.Start || w.End > dur || w.Confidence < 0 || w.Confidence > 1 {
					t.Errorf("word %d %+v out of order or range (%d ms)", i, w, dur)
				}
				prev = w.Start
			}
		})
	}
}

// TestRecordedWithoutTimes: whisper-server with no_timestamps (and with
// response_format json) gives words without times; they are spread over
// the audio by length.
func TestRecordedWithoutTimes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file   string
		nwords int
	}{
		{"inference_no_timestamps.json", 100},
		{"inference_json.json", 2},
	} {
		rp := enginetest.Replay(t, enginetest.LoadExchange(t, c.file), false)
		audio := recordedAudio(t, "long.wav")
		rec, err := newRec(t, Config{URL: rp.URL}).Recognize(context.Background(), audio, transcribe.RecognizeOptions{LanguageCode: "en"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Words) < c.nwords {
			t.Fatalf("%s: %d words", c.file, len(rec.Words))
		}
		first, last := rec.Words[0], rec.Words[len(rec.Words)-1]
		if first.Start != 0 || last.End != int64(len(audio))*1000/openai.SampleRate {
			t.Errorf("%s: words span %d..%d ms, want the whole audio", c.file, first.Start, last.End)
		}
		for i := 1; i < len(rec.Words); i++ {
			if rec.Words[i].Start < rec.Words[i-1].End {
				t.Fatalf("%s: spread words overlap: %+v %+v", c.file, rec.Words[i-1], rec.Words[i])
			}
		}
	}
}

// TestSilenceNotSent: whisper-server makes up words for silence (the
// recording inference_silence.json answers " quieres" for 3 s of zeros);
// the adapter does not send silent audio.
func TestSilenceNotSent(t *testing.T) {
	t.Parallel()
	ex := enginetest.LoadExchange(t, "inference_silence.json")
	if !strings.Contains(ex.Body, "quieres") {
		t.Fatal("recording changed")
	}
	rp := enginetest.Replay(t, ex, true)
	rec, err := newRec(t, Config{URL: rp.URL}).Recognize(context.Background(), recordedAudio(t, "zeros.wav"), transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil || len(rec.Words) != 0 || rp.Calls() != 0 {
		t.Errorf("silence: %v, %q, %d calls", err, texts(rec.Words), rp.Calls())
	}
}

// TestRecordedMP3: an MP3 goes to the server as it is (the recording shows
// the server reads it).
func TestRecordedMP3(t *testing.T) {
	t.Parallel()
	ex := enginetest.LoadExchange(t, "inference_mp3.json")
	rp := enginetest.Replay(t, ex, true)
	r := newRec(t, Config{URL: rp.URL})
	if !r.AcceptsFile("mp3") || !r.AcceptsFile("vorbis") || r.AcceptsFile("mp4") {
		t.Error("AcceptsFile does not follow DefaultFileFormats")
	}
	mp3 := testaudio.Convert(t, testaudio.Speech(t, "slt", foxText), "mp3", "-b:a", "64k")
	rec, err := r.RecognizeFile(context.Background(), mp3, transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil {
		t.Fatalf("%v (%v)", err, rp.Err())
	}
	if texts(rec.Words) != "rophe понять" || rp.Calls() != 1 {
		t.Errorf("%q after %d calls", texts(rec.Words), rp.Calls())
	}
	// " понять" 3.74 s: within the 2.965 s the server reports.
	if w := rec.Words[1]; w.Start != 2965 || w.End != 2965 {
		t.Errorf("word %+v, want clamped to the answer's duration", w)
	}
}

func TestRecordedErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, path, want string
	}{
		{"error_no_file.json", "", "whisper.cpp: POST %s/inference: HTTP 400: Invalid request"},
		{"error_bad_audio.json", "", "whisper.cpp: POST %s/inference: HTTP 400: Invalid request"},
		{"error_wrong_path.json", "/v1/audio/transcriptions", "whisper.cpp: POST %s/v1/audio/transcriptions: HTTP 404: File Not Found (/v1/audio/transcriptions) (is the URL the engine's transcription endpoint? check BaseURL and Path)"},
	} {
		rp := enginetest.Replay(t, enginetest.LoadExchange(t, c.file), false)
		_, err := newRec(t, Config{URL: rp.URL, InferencePath: c.path}).Recognize(context.Background(), recordedAudio(t, "fox.wav"), transcribe.RecognizeOptions{})
		want := strings.Replace(c.want, "%s", rp.URL, 1)
		if err == nil || err.Error() != want || errors.Is(err, transcribe.ErrUnavailable) || rp.Calls() != 1 {
			t.Errorf("%s: err = %v after %d calls\nwant %s", c.file, err, rp.Calls(), want)
		}
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	loading := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// examples/server/server.cpp: GET /health.
		w.Header().Set("Content-Type", "application/json")
		if loading {
			w.WriteHeader(503)
			_, _ = io.WriteString(w, `{"status":"loading model"}`)
			return
		}
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	}))
	defer srv.Close()
	r := newRec(t, Config{URL: srv.URL})
	if err := r.Health(context.Background()); !errors.Is(err, transcribe.ErrUnavailable) || err.Error() != "whisper.cpp: GET "+srv.URL+"/health: HTTP 503: loading model: transcribe: engine unavailable" {
		t.Errorf("loading: %v", err)
	}
	loading = false
	if err := r.Health(context.Background()); err != nil {
		t.Errorf("ok: %v", err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	err := newRec(t, Config{URL: "http://" + addr}).Health(context.Background())
	if !errors.Is(err, transcribe.ErrUnavailable) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("unreachable: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Health(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	var waits []time.Duration
	r := newRec(t, Config{URL: "http://" + addr, MaxRetries: 1, Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
	_, err := r.Recognize(context.Background(), recordedAudio(t, "fox.wav"), transcribe.RecognizeOptions{})
	want := "whisper.cpp: POST http://" + addr + "/inference: speech engine unreachable after 2 attempts: dial tcp " + addr + ": connect: connection refused"
	if !errors.Is(err, transcribe.ErrUnavailable) || err.Error() != want || len(waits) != 1 {
		t.Errorf("err = %v (waits %v)\nwant %s", err, waits, want)
	}
}

func TestFeaturesAndConfig(t *testing.T) {
	t.Parallel()
	f := newRec(t, Config{URL: "http://127.0.0.1:8080"}).Features()
	if !f.WordConfidence || !f.WordTimestamps || !f.LanguageDetection || !f.Prompt || f.WordBoost || f.Streaming || f.SampleRate != 16000 || len(f.Languages) != 100 {
		t.Errorf("features %+v", f)
	}
	if f := newRec(t, Config{URL: "http://h", Languages: []string{"en"}}).Features(); f.LanguageDetection {
		t.Errorf("English-only features %+v", f)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "whispercpp: Config.URL is required (the server's root, e.g. http://127.0.0.1:8080)"},
		{Config{URL: "localhost:8080"}, "whispercpp: Config.URL \"localhost:8080\" must start with http:// or https://"},
		{Config{URL: "http://h", Temperature: 1.5}, "whispercpp: Config.Temperature must be within 0..1, got 1.5"},
		{Config{URL: "http://h", ExtraFields: []openai.Field{{Name: "file", Value: "x"}}}, `whispercpp: Config.ExtraFields: bad field name "file"`},
		{Config{URL: "http://h", InferencePath: "inference"}, `whispercpp: openai: Config.Path "inference" must start with /`},
		{Config{URL: "http://h", Timeout: -time.Second}, "whispercpp: openai: Config.Timeout must not be negative, got -1s"},
	} {
		if _, err := New(c.cfg); err == nil || err.Error() != c.want {
			t.Errorf("New(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
	got := fields(openai.Request{Prompt: "Earshot."}, 0.2)
	want := []openai.Field{{Name: "response_format", Value: "verbose_json"}, {Name: "temperature", Value: "0.2"}, {Name: "split_on_word", Value: "true"}, {Name: "language", Value: "auto"}, {Name: "prompt", Value: "Earshot."}}
	if !slices.Equal(got, want) {
		t.Errorf("fields = %v", got)
	}
}

// TestLiveServer runs against a real whisper-server when
// EARSHOT_WHISPERCPP_URL names one (e.g. http://127.0.0.1:8080): the
// exchange must succeed and the words follow the contract. With a real
// model, the suite runs too (EARSHOT_WHISPERCPP_CONFORMANCE=1).
func TestLiveServer(t *testing.T) {
	u := os.Getenv("EARSHOT_WHISPERCPP_URL")
	if u == "" {
		t.Skip("EARSHOT_WHISPERCPP_URL not set")
	}
	r := newRec(t, Config{URL: u})
	if err := r.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []transcribe.RecognizeOptions{{LanguageCode: "en"}, {}, {LanguageCode: "en", WordBoost: []string{"Earshot"}, Prompt: "A meeting."}} {
		rec, err := r.Recognize(context.Background(), recordedAudio(t, "padded.wav"), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %q language %q (%.3f)", opts, texts(rec.Words), rec.Language, rec.LanguageConfidence)
	}
	mp3 := testaudio.Convert(t, testaudio.Speech(t, "slt", foxText), "mp3")
	if _, err := r.RecognizeFile(context.Background(), mp3, transcribe.RecognizeOptions{}); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("EARSHOT_WHISPERCPP_CONFORMANCE") == "1" {
		transcribetest.RunRecognizerTests(t, r, func(t testing.TB, text string) []int16 { return speech(t, "slt", text) })
	}
}
