package openaiapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
)

// The API keys of the fixtures: key1 belongs to project p1.
const (
	key1     = "oai-test-key-0123456789"
	project1 = "p1"
)

// jobs1 is where the /v1 transcripts of project1 are filed.
var jobs1 = openaiapi.JobProject(project1)

var (
	psOnce sync.Once
	psRec  *pocketsphinx.Recognizer
	psErr  error
)

// recognizer is the real pocketsphinx recognizer, shared by the tests of
// this package (its decoders are pooled; two run at once).
func recognizer(t testing.TB) *pocketsphinx.Recognizer {
	t.Helper()
	psOnce.Do(func() { psRec, psErr = pocketsphinx.New(pocketsphinx.Config{Decoders: 2}) })
	if psErr != nil {
		t.Fatalf("pocketsphinx: %v (./scripts/setup.sh installs it)", psErr)
	}
	return psRec
}

// sentence is a 16 kHz WAV of flite's slt voice saying one sentence
// (3.6 s).
func sentence(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(testaudio.Speech(t, "slt", "hello from new york this is a test of the transcription service"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// speech is a 16 kHz WAV of flite's slt voice saying two sentences with a
// second of silence between them (so that they are two segments).
func speech(t testing.TB) []byte {
	t.Helper()
	a := testaudio.Speech(t, "slt", "hello from new york this is a test of the transcription service")
	b := testaudio.Speech(t, "slt", "the quick brown fox jumps over the lazy dog")
	silence := testaudio.SoxEffects(t, "wav", []string{"-n", "-r", "16000", "-c", "1", "-b", "16"}, "trim", "0", "1")
	p := testaudio.Sox(t, "wav", a, silence, b)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// wavSeconds is the duration of a 16 kHz mono 16-bit WAV with a 44-byte
// header (what testaudio makes).
func wavSeconds(wav []byte) float64 { return float64(len(wav)-44) / 32000 }

// wholeSeconds is the duration the Service reports for wav (its
// audio_duration: whole seconds, nearest, at least 1).
func wholeSeconds(wav []byte) float64 { return max(math.Round(wavSeconds(wav)), 1) }

type fixture struct {
	srv    *httptest.Server
	svc    *transcribe.Service
	h      *openaiapi.Handler
	store  *memory.Store
	blobs  *memory.BlobStore
	closed bool
}

type fixtureOptions struct {
	engines []transcribe.Engine      // default: pocketsphinx
	workers int                      // default 2; negative: none
	handler func(*openaiapi.Config)  // edits the handler's config
	service func(*transcribe.Config) // edits the Service's config
	wrap    func(http.Handler) http.Handler
}

// newFixture runs a real Service (in-memory store, the media decoder,
// pipeline.Default, pocketsphinx unless o.engines says otherwise) behind
// a Handler on a loopback httptest server.
func newFixture(t testing.TB, o fixtureOptions) *fixture {
	t.Helper()
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if o.engines == nil {
		o.engines = []transcribe.Engine{{Name: "pocketsphinx", Recognizer: recognizer(t)}}
	}
	if o.workers == 0 {
		o.workers = 2
	}
	f := &fixture{store: memory.New(), blobs: memory.NewBlobStore()}
	quiet := slog.New(slog.DiscardHandler)
	scfg := transcribe.Config{
		Store: f.store, Blobs: f.blobs, Engines: o.engines, Decoder: dec, Key: transcribe.NewKey(),
		Workers: o.workers, PollInterval: 10 * time.Millisecond, Stages: pipeline.Default(pipeline.Options{}),
		Logger: quiet,
	}
	if o.service != nil {
		o.service(&scfg)
	}
	f.svc, err = transcribe.NewService(scfg)
	if err != nil {
		t.Fatal(err)
	}
	hcfg := openaiapi.Config{Service: f.svc, Auth: httpapi.Keys{key1: project1, "other-project-key-000": "p2"},
		Engines: o.engines, PollInterval: 50 * time.Millisecond, Logger: quiet}
	if o.handler != nil {
		o.handler(&hcfg)
	}
	f.h, err = openaiapi.New(hcfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	var h http.Handler = f.h
	if o.wrap != nil {
		h = o.wrap(h)
	}
	mux.Handle("/v1/", h)
	f.srv = httptest.NewServer(mux)
	f.svc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		f.h.Close(ctx)
		f.srv.Close()
		f.svc.Close(ctx)
	})
	return f
}

// field is one form field; a field named "file" is sent as a file part.
type field struct{ name, value string }

// form builds a multipart body in the order given.
func form(t testing.TB, fields ...field) (body []byte, contentType string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		if f.name == "file" {
			w, err := mw.CreateFormFile("file", "speech.wav")
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(f.value))
			continue
		}
		mw.WriteField(f.name, f.value)
	}
	mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

type response struct {
	status int
	ctype  string
	header http.Header
	close  bool // the server closes the connection
	body   []byte
}

// apiError is the error envelope as a client reads it.
type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func (r response) apiError(t testing.TB) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("status %d: body is not an OpenAI error envelope (%v): %s", r.status, err, r.body)
	}
	if r.ctype != "application/json" {
		t.Errorf("error content type %q", r.ctype)
	}
	return e
}

func (f *fixture) do(t testing.TB, ctx context.Context, method, path, key, contentType string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, f.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, ctype: res.Header.Get("Content-Type"), header: res.Header, close: res.Close, body: b}
}

// transcribe posts fields to /v1/audio/transcriptions with key1.
func (f *fixture) transcribe(t testing.TB, fields ...field) response {
	t.Helper()
	body, ct := form(t, fields...)
	return f.do(t, context.Background(), "POST", "/v1/audio/transcriptions", key1, ct, bytes.NewReader(body))
}

// expectError checks an error answer.
func expectError(t testing.TB, r response, status int, typ, param, code, contains string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	e := r.apiError(t)
	if e.Error.Type != typ {
		t.Errorf("type %q, want %q (%s)", e.Error.Type, typ, r.body)
	}
	if got := deref(e.Error.Param); got != param {
		t.Errorf("param %q, want %q (%s)", got, param, r.body)
	}
	if got := deref(e.Error.Code); got != code {
		t.Errorf("code %q, want %q (%s)", got, code, r.body)
	}
	if !strings.Contains(strings.ToLower(e.Error.Message), strings.ToLower(contains)) {
		t.Errorf("message %q lacks %q", e.Error.Message, contains)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// expectNothingKept checks that the project's transcripts are all deleted
// and that no upload or blob is left, waiting up to a few seconds for
// background deletions.
func (f *fixture) expectNothingKept(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		problem := ""
		list, err := f.svc.List(ctx, jobs1, transcribe.ListOptions{Limit: transcribe.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range list.Entries {
			tr, err := f.svc.Get(ctx, jobs1, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !tr.IsDeleted {
				problem = "transcript " + e.ID + " is " + string(tr.Status) + " and not deleted"
			}
		}
		ups, err := f.store.ListUploads(ctx, driver.UploadQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ups) > 0 {
			problem = "uploads are left"
		}
		if n := f.blobs.Len(); n > 0 {
			problem = "blobs are left: " + strings.Join(f.blobs.Keys(), ", ")
		}
		if problem == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(problem)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
