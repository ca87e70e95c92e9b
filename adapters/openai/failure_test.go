package openai

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/openai/enginetest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// server answers with handler and counts the calls.
func server(t *testing.T, handler func(n int, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		_, _ = io.Copy(io.Discard, r.Body)
		handler(n, w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// answer writes a recorded exchange's status, headers and body.
func answer(w http.ResponseWriter, ex *enginetest.Exchange) {
	for k, v := range ex.Headers {
		w.Header().Set(k, v)
	}
	if ex.ContentType != "" {
		w.Header().Set("Content-Type", ex.ContentType)
	}
	w.WriteHeader(ex.Status)
	_, _ = io.WriteString(w, ex.Body)
}

func fox(t testing.TB) []int16 { return recordedAudio(t, "fox.wav") }

func TestUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ns := &noSleep{}
	r := newRec(t, Config{BaseURL: "http://" + addr + "/v1", Name: "speaches", Sleep: ns.sleep})
	_, err = r.Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if !errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("err = %v does not wrap transcribe.ErrUnavailable", err)
	}
	want := "speaches: POST http://" + addr + "/v1/audio/transcriptions: speech engine unreachable after 4 attempts: dial tcp " + addr + ": connect: connection refused"
	if err.Error() != want {
		t.Errorf("err = %q\nwant %q", err, want)
	}
	if e.Attempts != 4 || e.StatusCode != 0 {
		t.Errorf("attempts %d status %d", e.Attempts, e.StatusCode)
	}
	if got := ns.got(); !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}) {
		t.Errorf("waits %v, want 1s 2s 4s", got)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	srv, calls := server(t, func(n int, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	})
	ns := &noSleep{}
	r := newRec(t, Config{BaseURL: srv.URL + "/v1", Timeout: 200 * time.Millisecond, Sleep: ns.sleep})
	start := time.Now()
	_, err := r.Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{})
	var e *Error
	if !errors.As(err, &e) || !e.Timeout || !errors.Is(err, transcribe.ErrUnavailable) {
		t.Fatalf("err = %v, want a timeout *Error wrapping ErrUnavailable", err)
	}
	if !strings.Contains(err.Error(), "no answer within 200ms (Config.Timeout)") {
		t.Errorf("err = %q", err)
	}
	if calls.Load() != 1 || len(ns.got()) != 0 {
		t.Errorf("a timeout is not retried: %d calls, waits %v", calls.Load(), ns.got())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestRetry429ThenSuccess(t *testing.T) {
	t.Parallel()
	ok := enginetest.LoadExchange(t, "openai_verbose.json")
	srv, calls := server(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n <= 2 {
			w.Header().Set("Retry-After", "7")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			return
		}
		answer(w, ok)
	})
	ns := &noSleep{}
	rec, err := newRec(t, Config{BaseURL: srv.URL + "/v1", Sleep: ns.sleep}).Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if texts(rec.Words) != foxText || calls.Load() != 3 {
		t.Errorf("got %q after %d calls", texts(rec.Words), calls.Load())
	}
	if got := ns.got(); !slices.Equal(got, []time.Duration{7 * time.Second, 7 * time.Second}) {
		t.Errorf("waits %v, want Retry-After's 7s twice", got)
	}
}

func TestRetry5xxGivesUp(t *testing.T) {
	t.Parallel()
	loading := enginetest.LoadExchange(t, "localai_error_503.json")
	srv, calls := server(t, func(n int, w http.ResponseWriter, r *http.Request) { answer(w, loading) })
	ns := &noSleep{}
	_, err := newRec(t, Config{BaseURL: srv.URL + "/v1", Name: "localai", MaxRetries: 2, Sleep: ns.sleep}).Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{})
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != 503 || !errors.Is(err, transcribe.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if want := "HTTP 503 after 3 attempts: model whisper-1 is loading"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %q, want ending %q", err, want)
	}
	if calls.Load() != 3 || !slices.Equal(ns.got(), []time.Duration{5 * time.Second, 5 * time.Second}) {
		t.Errorf("%d calls, waits %v", calls.Load(), ns.got())
	}

	// whisper.cpp's 500 ({"error":"failed to process audio"}) without
	// retries.
	srv, calls = server(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		_, _ = io.WriteString(w, `{"error":"failed to process audio"}`)
	})
	_, err = newRec(t, Config{BaseURL: srv.URL + "/v1", MaxRetries: -1, Sleep: ns.sleep}).Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{})
	if !errors.Is(err, transcribe.ErrUnavailable) || !strings.HasSuffix(err.Error(), "HTTP 500: failed to process audio") || calls.Load() != 1 {
		t.Errorf("err = %v after %d calls", err, calls.Load())
	}
}

func TestDefaultBackoff(t *testing.T) {
	t.Parallel()
	for retry, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 6: 30 * time.Second, 60: 30 * time.Second} {
		if got := DefaultBackoff(retry, nil); got != want {
			t.Errorf("retry %d: %v, want %v", retry, got, want)
		}
	}
	resp := &http.Response{Header: http.Header{"Retry-After": {"3600"}}}
	if got := DefaultBackoff(1, resp); got != time.Minute {
		t.Errorf("Retry-After 3600: %v, want capped at a minute", got)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	resp.Header.Set("Retry-After", now.Add(20*time.Second).Format(http.TimeFormat))
	if d, ok := retryAfter(resp, now); !ok || d != 20*time.Second {
		t.Errorf("HTTP-date Retry-After: %v %v", d, ok)
	}
	resp.Header.Set("Retry-After", "soon")
	if _, ok := retryAfter(resp, now); ok {
		t.Error("Retry-After: soon was accepted")
	}
}

func TestClientErrorsNotRetried(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, want string }{
		{"openai_error_401.json", "HTTP 401: Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys. (check APIKey)"},
		{"speaches_error_422.json", "HTTP 422: body.model: Field required"},
		{"vllm_error_400.json", "HTTP 400: Maximum file size exceeded"},
	} {
		ex := enginetest.LoadExchange(t, c.file)
		srv, calls := server(t, func(n int, w http.ResponseWriter, r *http.Request) { answer(w, ex) })
		ns := &noSleep{}
		_, err := newRec(t, Config{BaseURL: srv.URL + "/v1", Sleep: ns.sleep}).Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{})
		var e *Error
		if !errors.As(err, &e) || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ending %q", c.file, err, c.want)
		}
		if errors.Is(err, transcribe.ErrUnavailable) || calls.Load() != 1 || len(ns.got()) != 0 {
			t.Errorf("%s: retried or unavailable: %d calls", c.file, calls.Load())
		}
	}
}

func TestMalformedAnswers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, want string }{
		{`{"text": "hi", "segments": [`, "unreadable answer: malformed JSON response: unexpected end of JSON input"},
		{`<html><body>Bad gateway</body></html>`, `unreadable answer: response is not JSON: "<html><body>Bad gateway</body></html>"`},
		{`{"error": "model not loaded"}`, "refused with HTTP 200: model not loaded"},
		{`{"task": "transcribe"}`, "unreadable answer: response has none of text, segments and words"},
		{``, "unreadable answer: empty response body"},
		{`[1, 2]`, `unreadable answer: response is not JSON: "[1, 2]"`},
		{`{"text": 5, "segments": {"a": 1}}`, "unreadable answer: malformed JSON response: json: cannot unmarshal object into Go struct field response.segments of type []openai.respSegment"},
	} {
		srv, calls := server(t, func(n int, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, c.body)
		})
		_, err := newRec(t, Config{BaseURL: srv.URL + "/v1"}).Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{})
		var e *Error
		if !errors.As(err, &e) || e.StatusCode != 200 || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("body %q: err = %v, want ending %q", c.body, err, c.want)
		}
		if errors.Is(err, transcribe.ErrUnavailable) || calls.Load() != 1 {
			t.Errorf("body %q: %d calls", c.body, calls.Load())
		}
	}
}

// TestBrokenAnswer: an answer cut off mid-body is as good as none: retried,
// then unavailable.
func TestBrokenAnswer(t *testing.T) {
	t.Parallel()
	srv, calls := server(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, `{"text": "the quick`)
	})
	ns := &noSleep{}
	_, err := newRec(t, Config{BaseURL: srv.URL + "/v1", MaxRetries: 1, Sleep: ns.sleep}).Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{})
	if !errors.Is(err, transcribe.ErrUnavailable) || !errors.Is(err, io.ErrUnexpectedEOF) || calls.Load() != 2 {
		t.Errorf("err = %v after %d calls", err, calls.Load())
	}
}

func TestHugeAnswer(t *testing.T) {
	t.Parallel()
	srv, _ := server(t, func(n int, w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"text": "`+strings.Repeat("word ", 1000)+`"}`)
	})
	_, err := newRec(t, Config{BaseURL: srv.URL + "/v1", MaxResponseBytes: 1000}).Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{})
	if err == nil || !strings.HasSuffix(err.Error(), "response larger than 1000 bytes (Config.MaxResponseBytes)") || errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("err = %v", err)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	// During a request.
	srv, _ := server(t, func(n int, w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	r := newRec(t, Config{BaseURL: srv.URL + "/v1"})
	audio := fox(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	if _, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancel took %v", d)
	}

	// During the wait before a retry, with the real timer.
	srv, calls := server(t, func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	r = newRec(t, Config{BaseURL: srv.URL + "/v1", Backoff: func(int, *http.Response) time.Duration { return time.Hour }})
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	if _, err := r.Recognize(ctx, audio, transcribe.RecognizeOptions{}); !errors.Is(err, context.Canceled) || calls.Load() != 1 {
		t.Errorf("err = %v after %d calls, want context.Canceled after 1", err, calls.Load())
	}

	// A deadline of the caller's is the caller's, not a timeout of ours.
	srv, _ = server(t, func(n int, w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := newRec(t, Config{BaseURL: srv.URL + "/v1"}).Recognize(ctx, audio, transcribe.RecognizeOptions{}); err != context.DeadlineExceeded {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	r := newRec(t, Config{BaseURL: "http://127.0.0.1:1/v1"})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Recognize after Close: %v", err)
	}
	if _, err := r.RecognizeFile(context.Background(), "x.wav", transcribe.RecognizeOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("RecognizeFile after Close: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "openai: Config.BaseURL is required (the API root, e.g. http://127.0.0.1:8000/v1)"},
		{Config{BaseURL: "127.0.0.1:8000"}, `openai: Config.BaseURL "127.0.0.1:8000": parse "127.0.0.1:8000": first path segment in URL cannot contain colon`},
		{Config{BaseURL: "ftp://host/v1"}, `openai: Config.BaseURL "ftp://host/v1" must start with http:// or https://`},
		{Config{BaseURL: "http:///v1"}, `openai: Config.BaseURL "http:///v1" has no host`},
		{Config{BaseURL: "http://h/v1?x=1"}, `openai: Config.BaseURL "http://h/v1?x=1" must not have a query or fragment`},
		{Config{BaseURL: "http://h/v1", Path: "inference"}, `openai: Config.Path "inference" must start with /`},
		{Config{BaseURL: "http://h/v1", Timeout: -1}, "openai: Config.Timeout must not be negative, got -1ns"},
		{Config{BaseURL: "http://h/v1", MaxRequestBytes: -1}, "openai: Config.MaxRequestBytes must not be negative, got -1"},
		{Config{BaseURL: "http://h/v1", MaxRequestBytes: 1000}, "openai: Config.MaxRequestBytes 1000 leaves room for less than a second of audio; use at least 48428"},
		{Config{BaseURL: "http://h/v1", MaxChunk: -time.Second}, "openai: Config.MaxChunk must not be negative, got -1s"},
		{Config{BaseURL: "http://h/v1", MaxChunk: time.Millisecond}, "openai: Config.MaxChunk 1ms is shorter than a second"},
		{Config{BaseURL: "http://h/v1", Parallel: -2}, "openai: Config.Parallel must not be negative, got -2"},
		{Config{BaseURL: "http://h/v1", MaxResponseBytes: -5}, "openai: Config.MaxResponseBytes must not be negative, got -5"},
		{Config{BaseURL: "http://h/v1", Languages: []string{"en", " "}}, "openai: Config.Languages has an empty code"},
	} {
		if _, err := New(c.cfg); err == nil || err.Error() != c.want {
			t.Errorf("New(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestLanguageOptions(t *testing.T) {
	t.Parallel()
	e := enginetest.NewEngine(t, enginetest.LocalAIWhisper, "/v1/audio/transcriptions")
	r := newRec(t, Config{BaseURL: e.URL + "/v1", Languages: []string{"en"}, DetectLanguage: "auto"})
	if f := r.Features(); f.LanguageDetection || !slices.Equal(f.Languages, []string{"en"}) {
		t.Errorf("features %+v", f)
	}
	_, err := r.Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{LanguageCode: "de"})
	var pe *transcribe.ParamError
	if !errors.As(err, &pe) || pe.Field != "language_code" || pe.Reason != `"de" is not a language the speech engine whisper-1 transcribes (en)` {
		t.Errorf("err = %v, want a ParamError for language_code", err)
	}
	// A regional code goes out as its language; LocalAI's whisper backend
	// says no language, so the single configured one is reported.
	rec, err := r.Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{LanguageCode: "en_us"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Language != "en" {
		t.Errorf("language %q", rec.Language)
	}
	// Detection: DetectLanguage is sent as the language.
	if _, err := r.Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{}); err != nil {
		t.Fatal(err)
	}
	reqs := e.Requests()
	if len(reqs) != 2 || reqs[0].Get("language") != "en" || !slices.Equal(reqs[1]["language"], []string{"auto"}) {
		t.Errorf("requests %v", reqs)
	}
	if f := newRec(t, Config{BaseURL: e.URL + "/v1"}).Features(); !f.LanguageDetection || len(f.Languages) != 100 {
		t.Errorf("default features %+v", f)
	}
}

func TestRequestFields(t *testing.T) {
	t.Parallel()
	e := enginetest.NewEngine(t, enginetest.Speaches, "/v1/audio/transcriptions")
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		p, _ := http.NewRequest(r.Method, e.URL+r.URL.Path, r.Body)
		p.Header = r.Header
		resp, err := http.DefaultClient.Do(p)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	r := newRec(t, Config{BaseURL: srv.URL + "/v1/", APIKey: "sk-local", Model: "Systran/faster-whisper-small",
		Form: func(r Request) []Field {
			return append(StandardFields("Systran/faster-whisper-small", r), Field{"hotwords", strings.Join(r.WordBoost, " ")})
		}})
	_, err := r.Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{
		LanguageCode: "en", WordBoost: []string{"Kubernetes", "TensorFlow"}, Prompt: "The quarterly earshot review.", Disfluencies: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	req := e.Requests()[0]
	want := map[string][]string{
		"model":                     {"Systran/faster-whisper-small"},
		"response_format":           {"verbose_json"},
		"timestamp_granularities[]": {"word", "segment"},
		"temperature":               {"0"},
		"language":                  {"en"},
		"prompt":                    {disfluencyPrompt + " Kubernetes, TensorFlow. The quarterly earshot review."},
		"hotwords":                  {"Kubernetes TensorFlow"},
	}
	for k, v := range want {
		if !slices.Equal(req[k], v) {
			t.Errorf("field %s = %q, want %q", k, req[k], v)
		}
	}
	if len(req) != len(want) {
		t.Errorf("fields %v", req)
	}
	if got := auth.Load(); got != "Bearer sk-local" {
		t.Errorf("Authorization %q", got)
	}
	if f := e.Files()[0]; string(f[:4]) != "RIFF" || len(f) != 44+2*len(fox(t)) {
		t.Errorf("uploaded %d bytes starting %q, want the 16-bit WAV", len(f), f[:4])
	}

	// No prompt at all.
	r = newRec(t, Config{BaseURL: e.URL + "/v1", PromptTokens: -1})
	if _, err := r.Recognize(context.Background(), fox(t), transcribe.RecognizeOptions{WordBoost: []string{"x"}, Prompt: "y"}); err != nil {
		t.Fatal(err)
	}
	if req := e.Requests()[1]; req.Has("prompt") || req.Has("language") {
		t.Errorf("fields %v", req)
	}
	if f := r.Features(); f.Prompt || f.Disfluencies {
		t.Errorf("features without a prompt %+v", f)
	}
}

// TestChunking: audio longer than MaxChunk goes out in pieces cut at
// pauses; silent pieces are not sent; words come back in order with the
// pieces' offsets.
func TestChunking(t *testing.T) {
	t.Parallel()
	e := enginetest.NewEngine(t, enginetest.WhisperCPP, "/v1/audio/transcriptions")
	r := newRec(t, Config{BaseURL: e.URL + "/v1", MaxChunk: 4 * time.Second, Parallel: 2})
	s1 := speech("slt")(t, "the budget was approved by the board")
	s2 := speech("rms")(t, "we will meet again on tuesday")
	s3 := speech("slt")(t, foxText)
	gap := make([]int16, SampleRate*7/10)
	audio := slices.Concat(s1, gap, make([]int16, 5*SampleRate), gap, s2, gap, s3)
	rec, err := r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{LanguageCode: "en"})
	if err != nil {
		t.Fatal(err)
	}
	files := e.Files()
	if len(files) < 3 {
		t.Fatalf("%d requests", len(files))
	}
	for i, f := range files {
		if n := (len(f) - 44) / 2; n > 4*SampleRate {
			t.Errorf("request %d carried %.2f s of audio, limit 4 s", i, float64(n)/SampleRate)
		}
	}
	got := texts(rec.Words)
	for _, want := range []string{"budget", "approved", "tuesday", "quick brown fox"} {
		if !strings.Contains(got, want) {
			t.Errorf("words %q lack %q", got, want)
		}
	}
	var prev int64
	for _, w := range rec.Words {
		if w.Start < prev {
			t.Fatalf("words out of order: %v", rec.Words)
		}
		prev = w.Start
	}
	// "fox" is in the last sentence, after s1, the silence and s2.
	after := int64(len(s1)+2*len(gap)+5*SampleRate+len(s2)) * 1000 / SampleRate
	for _, w := range rec.Words {
		if w.Text == "fox" && w.Start < after {
			t.Errorf("fox at %d ms, before the last sentence starts (%d ms)", w.Start, after)
		}
	}
}

func TestRecognizeFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	wavPath := testaudio.Speech(t, "slt", foxText)
	mp3Path := testaudio.Convert(t, wavPath, "mp3")
	oggPath := testaudio.Convert(t, wavPath, "ogg")
	e := enginetest.NewEngine(t, enginetest.OpenAI, "/v1/audio/transcriptions")
	r := newRec(t, Config{BaseURL: e.URL + "/v1"})
	for _, f := range []string{"wav", "mp3", "flac"} {
		if !r.AcceptsFile(f) {
			t.Errorf("AcceptsFile(%q) = false", f)
		}
	}
	if r.AcceptsFile("vorbis") || r.AcceptsFile("mp4") {
		t.Error("accepts formats outside DefaultFileFormats")
	}
	if _, err := r.RecognizeFile(ctx, oggPath, transcribe.RecognizeOptions{}); !errors.Is(err, transcribe.ErrFileNotTaken) {
		t.Errorf("ogg (not in FileFormats): %v, want ErrFileNotTaken", err)
	}
	for _, p := range []string{wavPath, mp3Path} {
		rec, err := r.RecognizeFile(ctx, p, transcribe.RecognizeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		// Lossy MP3 and Vorbis change a word or two of pocketsphinx's.
		if overlapRatio(foxText, rec.Words) < 0.6 || rec.Language != "en" {
			t.Errorf("%s: %q (%s)", p, texts(rec.Words), rec.Language)
		}
		orig, _ := os.ReadFile(p)
		files := e.Files()
		if sent := files[len(files)-1]; string(sent) != string(orig) {
			t.Errorf("%s was not sent as it is", p)
		}
	}

	// Larger than MaxRequestBytes: not taken, nothing sent (the caller
	// decodes and recognizes the audio in pieces).
	var calls atomic.Int32
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { calls.Add(1) }))
	t.Cleanup(refuse.Close)
	small := newRec(t, Config{BaseURL: refuse.URL + "/v1", MaxRequestBytes: 48428 + 16000})
	if _, err := small.RecognizeFile(ctx, wavPath, transcribe.RecognizeOptions{}); !errors.Is(err, transcribe.ErrFileNotTaken) || calls.Load() != 0 {
		t.Errorf("a file above MaxRequestBytes: %v after %d requests, want ErrFileNotTaken after none", err, calls.Load())
	}

	// The engine refuses MP3 (400): not taken.
	ok := enginetest.LoadExchange(t, "openai_verbose.json")
	calls.Store(0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		calls.Add(1)
		_, data, err := enginetest.ReadRequest(req)
		if err != nil || len(data) < 4 || string(data[:4]) != "RIFF" {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(400)
			_, _ = io.WriteString(w, "Invalid request")
			return
		}
		answer(w, ok)
	}))
	t.Cleanup(srv.Close)
	if _, err := newRec(t, Config{BaseURL: srv.URL + "/v1"}).RecognizeFile(ctx, mp3Path, transcribe.RecognizeOptions{}); !errors.Is(err, transcribe.ErrFileNotTaken) || calls.Load() != 1 {
		t.Errorf("refused MP3: %v after %d calls, want ErrFileNotTaken after 1", err, calls.Load())
	}

	// Bad files.
	empty := filepath.Join(t.TempDir(), "empty.wav")
	os.WriteFile(empty, nil, 0o600)
	var me *transcribe.MediaError
	if _, err := r.RecognizeFile(ctx, empty, transcribe.RecognizeOptions{}); !errors.As(err, &me) {
		t.Errorf("empty file: %v", err)
	}
	if _, err := r.RecognizeFile(ctx, filepath.Join(t.TempDir(), "missing.wav"), transcribe.RecognizeOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	notMedia := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notMedia, []byte("meeting notes, not audio"), 0o600)
	if _, err := r.RecognizeFile(ctx, notMedia, transcribe.RecognizeOptions{}); !errors.Is(err, transcribe.ErrFileNotTaken) {
		t.Errorf("text file: %v, want ErrFileNotTaken", err)
	}
}

// overlapRatio is the fraction of want's words found in order in got.
func overlapRatio(want string, got []transcribe.Word) float64 {
	ws := strings.Fields(want)
	j, n := 0, 0
	for _, w := range ws {
		for k := j; k < len(got); k++ {
			if got[k].Text == w {
				n++
				j = k + 1
				break
			}
		}
	}
	return float64(n) / float64(len(ws))
}
