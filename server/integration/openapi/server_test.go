package openapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/realtime/universal"
	"github.com/earshot-dev/earshot/storage/localfs"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
	"github.com/earshot-dev/earshot/webhook"
)

// Test API keys and their projects.
const (
	key1 = "key-one" // project p1
	key2 = "key-two" // project p2
	key3 = "key-three"
)

// serverOptions are the knobs the tests turn; zero means the reference
// server's default.
type serverOptions struct {
	rateLimit      float64 // httpapi.Config.RateLimit; 0 disables limiting here
	rateBurst      int
	maxUploadBytes int64
	// authFailures is httpapi.Config.AuthFailureRate (failed
	// authentications per second per client address).
	authFailures float64
	// bodyIdle is httpapi.Config.BodyIdleTimeout.
	bodyIdle time.Duration
}

// server is a running Earshot API: a real httpapi.API over a real
// transcribe.Service (in-memory store, blobs in files, fake batch recognizer, real decoder
// and feature pipeline, real webhook notifier) plus a real realtime.Handler
// over a fake streaming recognizer, on an httptest.Server.
type server struct {
	url   string
	rt    *realtime.Handler
	fault *faults // storage failures to switch on
}

// newServer builds and starts the server. It is the one place that
// constructs the Service and the API, wired as server/cmd/earshot-server wires them
// (and /openapi.json mounted as httpapi mounts it), so an API change needs
// adapting here only.
func newServer(t testing.TB, o serverOptions) *server {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	fault := new(faults)
	// Blobs on disk, as the reference server keeps them (storage/memory's
	// BlobStore stores a body that ends early as if it were complete).
	files, err := localfs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	blobs := &faultyBlobs{BlobStore: files, f: fault}
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	rate := o.rateLimit
	if rate == 0 {
		rate = -1
	}
	mem := memory.New()
	urls, err := httpapi.NewURLs("http://"+ts.Listener.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := webhook.New(webhook.Config{
		Queue: mem, Key: transcribe.NewKey(), AllowPrivate: true, OnStatus: mem.SetWebhookStatus,
		RedactedAudioURL: urls.RedactedAudio, PollInterval: 20 * time.Millisecond, Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := transcribe.NewService(transcribe.Config{
		Store: &faultyStore{Store: mem, f: fault}, Uploads: mem, Blobs: blobs, Decoder: dec, Key: transcribe.NewKey(),
		Recognizer:       &transcribetest.FakeRecognizer{Text: "my name is sarah and i paid twenty five dollars hello world"},
		Stages:           pipeline.Default(pipeline.Options{}),
		AllowPrivateURLs: true,
		Workers:          2,
		PollInterval:     10 * time.Millisecond,
		MaxUploadBytes:   o.maxUploadBytes,
		Logger:           quiet,
		Notifier:         hooks,
	})
	if err != nil {
		t.Fatal(err)
	}
	auth := httpapi.Keys{key1: "p1", key2: "p2", key3: "p3"}
	rt, err := realtime.NewHandler(realtime.Config{
		Recognizer:     &streamRecognizer{},
		Authenticate:   httpapi.AuthFunc(auth),
		OriginPatterns: []string{"app.earshot.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	v3, err := universal.NewHandler(universal.Config{
		Engine:         engine.Config{Recognizer: &streamRecognizer{}},
		Authenticate:   httpapi.AuthFunc(auth),
		OriginPatterns: []string{"app.earshot.invalid"},
		Logger:         quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v3.Close() })
	api, err := httpapi.New(httpapi.Config{
		Service: svc, Auth: auth, URLs: urls,
		Realtime: rt, RealtimeToken: rt.TokenHandler(),
		Streaming: v3, StreamingToken: v3.TokenHandler(),
		RateLimit: rate, RateBurst: o.rateBurst, AuthFailureRate: o.authFailures, BodyIdleTimeout: o.bodyIdle,
		Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = api
	ts.Start()
	svc.Start()
	hooks.Start()
	t.Cleanup(func() {
		ts.Close()
		rt.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Close(ctx)
		hooks.Close()
	})
	return &server{url: ts.URL, rt: rt, fault: fault}
}

var errInjected = errors.New("injected storage failure")

// faults switches on the storage failures the API turns into 500 (any
// error) and 507 (a full disk).
type faults struct {
	fail atomic.Bool // every store and blob call below fails
	full atomic.Bool // writes fail with ENOSPC
}

// read is the error of a read call, or nil.
func (f *faults) read() error {
	if f.fail.Load() {
		return errInjected
	}
	return nil
}

// write is the error of a write call, or nil.
func (f *faults) write() error {
	if f.full.Load() {
		return fmt.Errorf("writing /data/x.tmp: %w", syscall.ENOSPC)
	}
	return f.read()
}

// faultyStore is a driver.Store whose calls fail as f says.
type faultyStore struct {
	driver.Store
	f *faults
}

func (s *faultyStore) Get(ctx context.Context, id string) (*driver.Record, error) {
	if err := s.f.read(); err != nil {
		return nil, err
	}
	return s.Store.Get(ctx, id)
}

func (s *faultyStore) List(ctx context.Context, q driver.ListQuery) ([]*driver.Record, error) {
	if err := s.f.read(); err != nil {
		return nil, err
	}
	return s.Store.List(ctx, q)
}

func (s *faultyStore) Create(ctx context.Context, r *driver.Record) error {
	if err := s.f.write(); err != nil {
		return err
	}
	return s.Store.Create(ctx, r)
}

func (s *faultyStore) Update(ctx context.Context, r *driver.Record) error {
	if err := s.f.write(); err != nil {
		return err
	}
	return s.Store.Update(ctx, r)
}

// faultyBlobs is a driver.BlobStore whose Put fails as f says.
type faultyBlobs struct {
	driver.BlobStore
	f *faults
}

func (b *faultyBlobs) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := b.f.write(); err != nil {
		io.Copy(io.Discard, r)
		return 0, err
	}
	return b.BlobStore.Put(ctx, key, r)
}

// streamRecognizer is a transcribe.StreamRecognizer whose streams hear
// "hello world" in any audio: the wire shapes of the realtime messages are
// under test here, not recognition (realtime's own tests run pocketsphinx).
type streamRecognizer struct {
	transcribetest.FakeRecognizer
}

func (r *streamRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, WordTimestamps: true, Streaming: true, Languages: []string{"en"}}
}

func (r *streamRecognizer) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	return &fakeStream{rate: int64(opts.SampleRate)}, nil
}

type fakeStream struct {
	rate    int64
	written int64 // samples since the stream started
	uttFrom int64 // samples at the start of the open utterance
}

func (s *fakeStream) Write(x []int16) error { s.written += int64(len(x)); return nil }

func (s *fakeStream) Partial() (transcribe.Hypothesis, error) {
	from, to := s.uttFrom*1000/s.rate, s.written*1000/s.rate
	if to-from < 100 {
		return transcribe.Hypothesis{}, nil
	}
	mid := (from + to) / 2
	return transcribe.Hypothesis{Words: []transcribe.Word{
		{Text: "hello", Start: from, End: mid, Confidence: 0.9},
		{Text: "world", Start: mid, End: to, Confidence: 0.8},
	}}, nil
}

func (s *fakeStream) EndUtterance() (transcribe.Hypothesis, error) {
	h, err := s.Partial()
	s.uttFrom = s.written
	return h, err
}

func (s *fakeStream) Close() error { return nil }

// wav returns a 16 kHz WAV of seconds of a 300 Hz tone on each of channels
// channels (a different pitch each, so channels differ).
func wav(t testing.TB, seconds float64, channels int) []byte {
	t.Helper()
	n := int(seconds * 16000)
	pcm := &transcribe.PCM{SampleRate: 16000}
	for c := 0; c < channels; c++ {
		ch := make([]int16, n)
		for i := range ch {
			ch[i] = int16(8000 * math.Sin(2*math.Pi*float64(300+100*c)*float64(i)/16000))
		}
		pcm.Channels = append(pcm.Channels, ch)
	}
	var b bytes.Buffer
	if err := media.WriteWAV(&b, pcm); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
