package transcribe_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
)

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// downRecognizer answers like an engine that is down (connection refused)
// while down is set.
type downRecognizer struct {
	fakeRecognizer
	down  atomic.Bool
	calls atomic.Int32
}

func (d *downRecognizer) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	d.calls.Add(1)
	if d.down.Load() {
		return nil, fmt.Errorf("whisper: POST http://127.0.0.1:8080/inference: speech engine unreachable after 4 attempts: connect: connection refused: %w", transcribe.ErrEngineUnavailable)
	}
	return d.fakeRecognizer.Recognize(ctx, audio, o)
}

// downBlobs is a blob store whose Open fails like an S3 endpoint that is
// down while down is set.
type downBlobs struct {
	*memory.BlobStore
	down  atomic.Bool
	calls atomic.Int32
}

func (d *downBlobs) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	d.calls.Add(1)
	if d.down.Load() {
		return nil, fmt.Errorf("s3: open %q (bucket \"earshot\" at http://127.0.0.1:9000): endpoint unreachable: %w", key, transcribe.ErrStorageUnavailable)
	}
	return d.BlobStore.Open(ctx, key)
}

// outageEnv runs one job on a Service with a real clock, logging to log.
func outageEnv(t *testing.T, log *syncBuffer, mutate func(*transcribe.Config)) (*env, *transcribe.Transcript) {
	t.Helper()
	e := newEnv(t, func(cfg *transcribe.Config) {
		cfg.Workers, cfg.Now = 1, time.Now
		cfg.Logger = slog.New(slog.NewTextHandler(log, nil))
		mutate(cfg)
	})
	tr, err := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	return e, tr
}

// checkNotCounted: the job was claimed once and no failure counted.
func checkNotCounted(t *testing.T, e *env, id string) {
	t.Helper()
	r, err := e.store.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Claims != 1 || r.Failures != 0 {
		t.Errorf("claims %d failures %d, want 1 and 0: the outage counted as an attempt", r.Claims, r.Failures)
	}
}

// waitCalls waits until calls reaches n.
func waitCalls(t *testing.T, calls *atomic.Int32, n int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for calls.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d calls, want %d", calls.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEngineOutageWaited (issue 21.3): a job whose engine is down waits,
// retrying with a backoff and logging each retry with the engine's name
// and the reason, and completes when the engine is back; the outage is
// not an attempt.
func TestEngineOutageWaited(t *testing.T) {
	t.Parallel()
	rec := &downRecognizer{}
	rec.down.Store(true)
	var log syncBuffer
	e, tr := outageEnv(t, &log, func(cfg *transcribe.Config) {
		cfg.Engines = []transcribe.Engine{{Name: "whisper", Recognizer: rec}}
	})
	waitCalls(t, &rec.calls, 3) // the first call and two retries (1 s, 2 s)
	rec.down.Store(false)
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s (%v), want completed", done.Status, done.Error)
	}
	checkNotCounted(t, e, tr.ID)
	out := log.String()
	if n := strings.Count(out, `level=WARN msg="waiting for an outage to end" id=`+tr.ID+` what="the speech engine \"whisper\""`); n < 2 {
		t.Errorf("%d warnings naming the engine, want one per retry (>= 2):\n%s", n, out)
	}
	if !strings.Contains(out, "connection refused") || !strings.Contains(out, "outage over") {
		t.Errorf("the log does not say why the job waited and that it went on:\n%s", out)
	}
}

// TestEngineOutageWindow (issue 21.3): an outage longer than
// OutageWindow ends the job in error naming the engine, still without
// counting an attempt.
func TestEngineOutageWindow(t *testing.T) {
	t.Parallel()
	rec := &downRecognizer{}
	rec.down.Store(true)
	var log syncBuffer
	e, tr := outageEnv(t, &log, func(cfg *transcribe.Config) {
		cfg.Engines = []transcribe.Engine{{Name: "whisper", Recognizer: rec}}
		cfg.OutageWindow = 1500 * time.Millisecond
	})
	done := e.wait(t, "p", tr.ID)
	if done.Status != transcribe.StatusError || !strings.Contains(*done.Error, `speech engine "whisper" was unavailable for 1.5s`) {
		t.Fatalf("status %s, error %v; want error naming the engine and the window", done.Status, done.Error)
	}
	checkNotCounted(t, e, tr.ID)
	if n := rec.calls.Load(); n < 2 {
		t.Errorf("%d calls, want the engine retried within the window", n)
	}
}

// TestBlobOutageWaited (issue 25.9): a short outage of the blob store
// holding the upload is waited out like the engine's, not a failed job.
func TestBlobOutageWaited(t *testing.T) {
	t.Parallel()
	var blobs *downBlobs
	var log syncBuffer
	e, tr := outageEnv(t, &log, func(cfg *transcribe.Config) {
		blobs = &downBlobs{BlobStore: cfg.Blobs.(*memory.BlobStore)}
		blobs.down.Store(true)
		cfg.Blobs = blobs
	})
	waitCalls(t, &blobs.calls, 2)
	blobs.down.Store(false)
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s (%v), want completed", done.Status, done.Error)
	}
	checkNotCounted(t, e, tr.ID)
	if out := log.String(); !strings.Contains(out, `what="the media store"`) || !strings.Contains(out, "endpoint unreachable") {
		t.Errorf("the log does not say why the job waited:\n%s", out)
	}
}
