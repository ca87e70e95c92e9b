package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// fixture is httpapi on a Service with a scripted recognizer, served over
// loopback; edit changes the Service's config (the store under test).
type fixture struct {
	srv *httptest.Server
	svc *transcribe.Service
	api *httpapi.API
	wav []byte
}

func newFixtureWith(t testing.TB, edit func(*transcribe.Config)) *fixture {
	t.Helper()
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := transcribe.Config{
		Store: memory.New(), Blobs: memory.NewBlobStore(), Recognizer: &transcribetest.FakeRecognizer{},
		Decoder: dec, Key: transcribe.NewKey(), Workers: 2, PollInterval: 10 * time.Millisecond,
		AllowPrivateURLs: true, Stages: pipeline.Default(pipeline.Options{}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	edit(&cfg)
	svc, err := transcribe.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{svc: svc, wav: transcribetest.ToneWAV(3)}
	f.srv = httptest.NewUnstartedServer(nil)
	urls, err := httpapi.NewURLs("http://"+f.srv.Listener.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.api, err = httpapi.New(httpapi.Config{Service: svc, Auth: httpapi.Keys{"k1": "p1", "k2": "p2"}, URLs: urls, RateLimit: -1}); err != nil {
		t.Fatal(err)
	}
	f.srv.Config.Handler = f.api
	f.srv.Start()
	svc.Start()
	t.Cleanup(func() {
		f.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Close(ctx)
	})
	return f
}

type resp struct {
	status int
	body   []byte
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %q", r.body)
	}
	return m
}

// do sends one request with key as its Authorization header.
func (f *fixture) do(t testing.TB, method, path, key string, body io.Reader) resp {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp{status: res.StatusCode, body: b}
}
