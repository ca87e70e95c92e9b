package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// wavBytes is a 16 kHz mono WAV of seconds of a 300 Hz tone.
func wavBytes(t testing.TB, seconds float64) []byte { return transcribetest.ToneWAV(seconds) }

type fixture struct {
	srv  *httptest.Server
	svc  *transcribe.Service
	api  *httpapi.API
	rec  *transcribetest.FakeRecognizer
	wav  []byte
	done func()
}

func newFixture(t testing.TB, mutate ...func(*httpapi.Config)) *fixture {
	t.Helper()
	return newFixtureWith(t, nil, mutate...)
}

// newFixtureWith is newFixture with a change to the Service's config.
func newFixtureWith(t testing.TB, svcEdit func(*transcribe.Config), mutate ...func(*httpapi.Config)) *fixture {
	t.Helper()
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &transcribetest.FakeRecognizer{Text: "my name is sarah and i paid twenty five dollars hello world"}
	f := &fixture{rec: rec, wav: wavBytes(t, 3)}
	f.srv = httptest.NewUnstartedServer(nil)
	svcCfg := transcribe.Config{
		Store: memory.New(), Blobs: memory.NewBlobStore(), Recognizer: rec, Decoder: dec, Key: transcribe.NewKey(),
		Workers: 2, PollInterval: 10 * time.Millisecond, AllowPrivateURLs: true,
		Stages: pipeline.Default(pipeline.Options{}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if svcEdit != nil {
		svcEdit(&svcCfg)
	}
	svc, err := transcribe.NewService(svcCfg)
	if err != nil {
		t.Fatal(err)
	}
	urls, err := httpapi.NewURLs("http://"+f.srv.Listener.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := httpapi.Config{Service: svc, Auth: httpapi.Keys{"k1": "p1", "k2": "p2"}, URLs: urls, RateLimit: -1}
	for _, m := range mutate {
		m(&cfg)
	}
	api, err := httpapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.svc, f.api = svc, api
	f.srv.Config.Handler = api
	f.srv.Start()
	svc.Start()
	f.done = func() {
		f.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Close(ctx)
	}
	t.Cleanup(f.done)
	return f
}

type resp struct {
	status int
	ctype  string
	body   []byte
	header http.Header
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %q", r.body)
	}
	return m
}

func (f *fixture) do(t testing.TB, method, path, key string, body io.Reader) resp {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, ctype: res.Header.Get("Content-Type"), body: b, header: res.Header}
}

func expectError(t testing.TB, r resp, status int, contains string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if r.ctype != "application/json" {
		t.Fatalf("error content type %q", r.ctype)
	}
	var e struct{ Error string }
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" {
		t.Fatalf("error body %q", r.body)
	}
	if !strings.Contains(e.Error, contains) {
		t.Fatalf("error %q does not mention %q", e.Error, contains)
	}
}

// chunked hides the length so the client sends chunked transfer encoding.
type chunked struct{ r io.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p) }

func (f *fixture) completed(t testing.TB, key string) string {
	t.Helper()
	up := f.do(t, "POST", "/v2/upload", key, chunked{bytes.NewReader(f.wav)})
	if up.status != 200 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	u := up.json(t)["upload_url"].(string)
	sub := f.do(t, "POST", "/v2/transcript", key, strings.NewReader(`{"audio_url":"`+u+`"}`))
	if sub.status != 200 {
		t.Fatalf("submit: %d %s", sub.status, sub.body)
	}
	id := sub.json(t)["id"].(string)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		g := f.do(t, "GET", "/v2/transcript/"+id, key, nil)
		if st := g.json(t)["status"]; st == "completed" {
			return id
		} else if st == "error" {
			t.Fatalf("transcript failed: %s", g.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("transcript did not complete")
	return ""
}

func TestAuth(t *testing.T) {
	f := newFixture(t)
	for _, key := range []string{"", "nope", "Bearer nope"} {
		expectError(t, f.do(t, "GET", "/v2/transcript", key, nil), 401, "")
	}
	if r := f.do(t, "GET", "/v2/transcript", "Bearer k1", nil); r.status != 200 {
		t.Fatalf("Bearer key: %d", r.status)
	}
	expectError(t, f.do(t, "PUT", "/v2/transcript", "k1", nil), 405, "PUT")
	expectError(t, f.do(t, "GET", "/v2/nothing", "k1", nil), 404, "")
}

func TestUploadAndSubmitErrors(t *testing.T) {
	f := newFixture(t)
	r := f.do(t, "POST", "/v2/upload", "k1", chunked{strings.NewReader("")})
	if r.status != 422 || !strings.HasPrefix(r.ctype, "text/plain") || len(r.body) == 0 {
		t.Fatalf("empty upload: %d %q %q", r.status, r.ctype, r.body)
	}
	up := f.do(t, "POST", "/v2/upload", "k1", chunked{bytes.NewReader(f.wav)})
	u := up.json(t)["upload_url"].(string)
	expectError(t, f.do(t, "POST", "/v2/transcript", "k2", strings.NewReader(`{"audio_url":"`+u+`"}`)), 403, "Cannot access uploaded file")
	cases := []struct{ body, msg string }{
		{`{"audio_url": "https://x/a.wav", "punctuate": "yes"}`, "punctuate"},
		{`{"audio_url": "https://x/a.wav", "speaker_labels": true, "dual_channel": true}`, "dual_channel"},
		{`{"audio_url": "https://x/a.wav", "word_boost": [1,2]}`, "word_boost"},
		{`[{"audio_url": "https://x/a.wav"}]`, "JSON object"},
		{`{"audio_url": "https://x/a.wav"`, "JSON"},
		{`{"audio_url": "https://x/a.wav"} {}`, "single JSON object"},
		{``, "JSON object"},
		{`{}`, "audio_url"},
		{`{"audio_url": "https://x/a.wav", "content_safety": true, "content_safety_confidence": 10}`, "content_safety_confidence"},
	}
	for _, c := range cases {
		expectError(t, f.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(c.body)), 400, c.msg)
	}
	// Unknown fields are ignored.
	if r := f.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{"audio_url":"`+u+`","no_such_field":{"x":1}}`)); r.status != 200 {
		t.Fatalf("unknown field: %d %s", r.status, r.body)
	}
	expectError(t, f.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{"audio_url":"https://x/`+strings.Repeat("a", 2<<20)+`"}`)), 413, "limit")
}

func TestTranscriptLifecycleAndExports(t *testing.T) {
	f := newFixture(t)
	id := f.completed(t, "k1")
	g := f.do(t, "GET", "/v2/transcript/"+id, "k1", nil)
	if g.ctype != "application/json" {
		t.Fatalf("content type %q", g.ctype)
	}
	m := g.json(t)
	if txt, _ := m["text"].(string); !strings.HasPrefix(txt, "My name is Sarah and I paid $25") || !strings.HasSuffix(txt, ".") {
		t.Errorf("formatted text %q", m["text"])
	}
	expectError(t, f.do(t, "GET", "/v2/transcript/"+id, "k2", nil), 404, "not found")
	expectError(t, f.do(t, "GET", "/v2/transcript/not-a-uuid", "k1", nil), 404, "not found")

	srt := f.do(t, "GET", "/v2/transcript/"+id+"/srt", "k1", nil)
	if srt.status != 200 || !strings.HasPrefix(string(srt.body), "1\n00:00:00,") || !strings.HasPrefix(srt.ctype, "text/plain") {
		t.Fatalf("srt: %d %q %q", srt.status, srt.ctype, srt.body)
	}
	vtt := f.do(t, "GET", "/v2/transcript/"+id+"/vtt?chars_per_caption=10", "k1", nil)
	if vtt.status != 200 || !strings.HasPrefix(string(vtt.body), "WEBVTT\n\n00:00.") {
		t.Fatalf("vtt: %d %q", vtt.status, vtt.body)
	}
	for _, line := range strings.Split(string(vtt.body), "\n") {
		if !strings.Contains(line, "-->") && line != "WEBVTT" && len(line) > 10 {
			t.Errorf("caption line %q exceeds 10 characters", line)
		}
	}
	nf := f.do(t, "GET", "/v2/transcript/"+id+"/txt", "k1", nil)
	if nf.status != 404 || string(nf.body) != "404: Not Found" {
		t.Fatalf("unknown format: %d %q", nf.status, nf.body)
	}
	expectError(t, f.do(t, "GET", "/v2/transcript/6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d/srt", "k1", nil), 400, "not found")
	expectError(t, f.do(t, "GET", "/v2/transcript/"+id+"/srt?chars_per_caption=x", "k1", nil), 400, "chars_per_caption")

	for _, p := range []string{"sentences", "paragraphs"} {
		r := f.do(t, "GET", "/v2/transcript/"+id+"/"+p, "k1", nil)
		if r.status != 200 || r.json(t)["id"] != id {
			t.Fatalf("%s: %d %s", p, r.status, r.body)
		}
	}
	ws := f.do(t, "GET", "/v2/transcript/"+id+"/word-search?words=sarah%2Chello+world", "k1", nil)
	if ws.status != 200 {
		t.Fatalf("word search: %d %s", ws.status, ws.body)
	}
	var wr struct {
		TotalCount int `json:"total_count"`
		Matches    []struct {
			Text    string
			Count   int
			Indexes []int
		}
	}
	json.Unmarshal(ws.body, &wr)
	if wr.TotalCount != 2 || len(wr.Matches) != 2 {
		t.Fatalf("word search result %s", ws.body)
	}
	expectError(t, f.do(t, "GET", "/v2/transcript/"+id+"/word-search?words=a+b+c+d+e+f", "k1", nil), 400, "words")
	expectError(t, f.do(t, "GET", "/v2/transcript/"+id+"/word-search", "k1", nil), 400, "words")
	expectError(t, f.do(t, "GET", "/v2/transcript/"+id+"/redacted-audio", "k1", nil), 400, "redact_pii_audio")

	// Not completed: exports are 400.
	q := f.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{"audio_url":"https://media.invalid/a.wav"}`))
	qid := q.json(t)["id"].(string)
	expectError(t, f.do(t, "GET", "/v2/transcript/"+qid+"/sentences", "k1", nil), 400, "")

	// List: empty values are absent; a JSON body on GET is ignored.
	l := f.do(t, "GET", "/v2/transcript?limit=1&status=completed&after_id=&before_id=", "k1", strings.NewReader(`{"Limit":5}`))
	if l.status != 200 {
		t.Fatalf("list: %d %s", l.status, l.body)
	}
	var page httpapi.ListPage
	json.Unmarshal(l.body, &page)
	if len(page.Transcripts) != 1 || page.Transcripts[0].ID != id || !strings.HasPrefix(page.PageDetails.CurrentURL, f.srv.URL) {
		t.Fatalf("list page %s", l.body)
	}
	expectError(t, f.do(t, "GET", "/v2/transcript?limit=500", "k1", nil), 400, "limit")
	expectError(t, f.do(t, "GET", "/v2/transcript?limit=abc", "k1", nil), 400, "limit")
	expectError(t, f.do(t, "GET", "/v2/transcript?throttled_only=maybe", "k1", nil), 400, "throttled_only")

	d := f.do(t, "DELETE", "/v2/transcript/"+id, "k1", nil)
	if d.status != 200 || d.ctype != "application/json" || d.json(t)["text"] != "Deleted by user." {
		t.Fatalf("delete: %d %s", d.status, d.body)
	}
	expectError(t, f.do(t, "GET", "/v2/transcript/"+id+"/srt", "k1", nil), 400, "deleted")
}

func TestRateLimit(t *testing.T) {
	f := newFixture(t, func(c *httpapi.Config) { c.RateLimit = 1; c.RateBurst = 3 })
	var last resp
	for i := 0; i < 5; i++ {
		last = f.do(t, "POST", "/v2/transcript", "k1", strings.NewReader(`{}`))
	}
	expectError(t, last, 429, "rate limit")
	if ra := last.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	// Polling GETs over the limit are paced, not refused (the Go SDK's Wait
	// polls in a tight loop after 15 minutes).
	g := newFixture(t, func(c *httpapi.Config) { c.RateLimit = 4; c.RateBurst = 2 })
	start := time.Now()
	for i := 0; i < 6; i++ {
		if r := g.do(t, "GET", "/v2/transcript", "k1", nil); r.status != 200 {
			t.Fatalf("paced GET %d: %d", i, r.status)
		}
	}
	if el := time.Since(start); el < 800*time.Millisecond {
		t.Errorf("6 GETs at 4/s (burst 2) took %v; not paced", el)
	}
	// Another project has its own bucket.
	if r := f.do(t, "GET", "/v2/transcript", "k2", nil); r.status != 200 {
		t.Fatalf("other project limited: %d", r.status)
	}
}

// TestGarbageBodies sends truncated, oversized and binary garbage to every
// endpoint and expects 4xx JSON errors (or success where the body is
// legitimately anything, like an upload) and a server that keeps serving.
func TestGarbageBodies(t *testing.T) {
	f := newFixture(t)
	id := f.completed(t, "k1")
	garbage := [][]byte{
		[]byte(`{"audio_url": "https://x/a.wav", "word_boost": [`),
		{0x00, 0xff, 0xfe, 0x7b, 0x22, 0x00, 0x01},
		bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1<<19), // 2 MiB
		[]byte(`{"audio_url": {"nested": [1, 2, {"deep": null}]}}`),
		[]byte(`null`),
		[]byte(`"just a string"`),
		[]byte(`{"audio_url":"https://x/a.wav","speaker_options":{"min_speakers_expected":"two"}}`),
		[]byte(`{"audio_url":"https://x/a.wav","language_detection_options":[]}`),
		[]byte(`{"audio_url":"https://x/a.wav","custom_spelling":[{"from":"a","to":1}]}`),
		[]byte(`{"expires_in": "soon"}`),
	}
	paths := []struct{ method, path string }{
		{"POST", "/v2/transcript"}, {"GET", "/v2/transcript"}, {"GET", "/v2/transcript/" + id},
		{"DELETE", "/v2/transcript/not-a-uuid"}, {"GET", "/v2/transcript/" + id + "/srt"},
		{"GET", "/v2/transcript/" + id + "/vtt"}, {"GET", "/v2/transcript/" + id + "/sentences"},
		{"GET", "/v2/transcript/" + id + "/paragraphs"}, {"GET", "/v2/transcript/" + id + "/word-search?words=x"},
		{"GET", "/v2/transcript/" + id + "/redacted-audio"}, {"POST", "/v2/upload"}, {"POST", "/v2/transcript/" + id},
		{"PATCH", "/v2/upload"}, {"GET", "/v2/redacted-audio/" + id + "/bad"},
	}
	for _, p := range paths {
		for _, g := range garbage {
			r := f.do(t, p.method, p.path, "k1", bytes.NewReader(g))
			if r.status >= 500 {
				t.Fatalf("%s %s with %q...: %d %s", p.method, p.path, g[:min(len(g), 20)], r.status, r.body)
			}
			textual := strings.HasSuffix(p.path, "/srt") || strings.HasSuffix(p.path, "/vtt")
			if r.status >= 400 && r.ctype != "application/json" {
				t.Fatalf("%s %s: error with content type %q: %q", p.method, p.path, r.ctype, r.body)
			}
			if r.status == 200 && !textual && r.ctype != "application/json" {
				t.Fatalf("%s %s: success with content type %q", p.method, p.path, r.ctype)
			}
		}
	}
	// Still serving.
	if r := f.do(t, "GET", "/v2/transcript/"+id, "k1", nil); r.status != 200 {
		t.Fatalf("server broken after garbage: %d", r.status)
	}
}

// fuzzHandler serves one request in-process and checks the invariants every
// response keeps: never a 5xx, and JSON for every error.
func fuzzHandler(t *testing.T, h http.Handler, req *http.Request) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, rec.Code, rec.Body.Bytes())
	}
	ct := rec.Header().Get("Content-Type")
	if rec.Code >= 400 && ct != "application/json" && !(rec.Code == 422 || rec.Code == 404 && strings.HasPrefix(ct, "text/html")) {
		t.Fatalf("%s %s: %d with content type %q", req.Method, req.URL, rec.Code, ct)
	}
}

func FuzzTranscriptParams(f *testing.F) {
	fx := newFixture(f)
	f.Add([]byte(`{"audio_url":"https://example.com/a.wav","speaker_labels":true,"speakers_expected":2}`))
	f.Add([]byte(`{"audio_url":"https://example.com/a.wav","redact_pii":true,"redact_pii_policies":["person_name"],"redact_pii_sub":"entity_name"}`))
	f.Add([]byte(`{"audio_url":"https://example.com/a.wav","custom_spelling":[{"from":["a b"],"to":"AB"}],"word_boost":["x"],"boost_param":"high"}`))
	f.Add([]byte(`{"audio_url":"https://example.com/a.wav","language_detection_options":{"on_no_speech_detected":"fallback","fallback_language":"en"}}`))
	f.Add([]byte(`{"audio_url":"https://example.com/a.wav","audio_start_from":10,"audio_end_at":5}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/v2/transcript", bytes.NewReader(body))
		req.Header.Set("Authorization", "k1")
		fuzzHandler(t, fx.api, req)
	})
}

func FuzzListQuery(f *testing.F) {
	fx := newFixture(f)
	for _, q := range []string{"limit=1", "limit=200&status=completed", "created_on=2026-01-02", "before_id=6f1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d",
		"after_id=&limit=", "throttled_only=true&status=error", "limit=-5", "status=%00", "created_on=99999-99-99"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		req := httptest.NewRequest("GET", "/v2/transcript", nil)
		req.URL.RawQuery = q
		req.Header.Set("Authorization", "k1")
		fuzzHandler(t, fx.api, req)
	})
}

func FuzzWordSearchQuery(f *testing.F) {
	fx := newFixture(f)
	id := fx.completed(f, "k1")
	for _, q := range []string{"words=hello", "words=hello%2Cnew+york", "words=a+b+c+d+e+f", "words=", "words=%2C%2C", "words=%E2%82%AC25", "chars=1"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		req := httptest.NewRequest("GET", "/v2/transcript/"+id+"/word-search", nil)
		req.URL.RawQuery = q
		req.Header.Set("Authorization", "k1")
		fuzzHandler(t, fx.api, req)
	})
}

func FuzzUpload(f *testing.F) {
	fx := newFixture(f)
	f.Add([]byte{})
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEfmt "))
	f.Add([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/v2/upload", bytes.NewReader(body))
		req.Header.Set("Authorization", "k1")
		fuzzHandler(t, fx.api, req)
	})
}
