package transcribe_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// crashingRecognizer fails its first n calls with an engine crash.
type crashingRecognizer struct {
	fakeRecognizer
	mu      sync.Mutex
	crashes int
}

func (c *crashingRecognizer) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	c.mu.Lock()
	crash := c.crashes > 0
	if crash {
		c.crashes--
	}
	c.mu.Unlock()
	if crash {
		return nil, fmt.Errorf("isolated engine: worker died (signal SIGSEGV): %w", transcribe.ErrEngineCrashed)
	}
	return c.fakeRecognizer.Recognize(ctx, audio, o)
}

// TestEngineCrashRetriedOnceThenError: a job that crashes its engine once
// is retried and completes; one that crashes it twice ends in error with a
// reason a user understands, and is never claimed again.
func TestEngineCrashRetriedOnceThenError(t *testing.T) {
	for _, c := range []struct {
		crashes    int
		wantStatus transcribe.Status
	}{{1, transcribe.StatusCompleted}, {2, transcribe.StatusError}} {
		rec := &crashingRecognizer{crashes: c.crashes}
		e := newEnv(t, func(cfg *transcribe.Config) { cfg.Recognizer = rec; cfg.Workers = 1 })
		ctx := context.Background()
		tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
		done := e.wait(t, "p", tr.ID)
		if done.Status != c.wantStatus {
			t.Fatalf("%d crashes: status %s (%v), want %s", c.crashes, done.Status, done.Error, c.wantStatus)
		}
		r, err := e.store.Get(ctx, tr.ID)
		if err != nil || r.Failures != c.crashes || r.Claims != c.crashes+boolInt(c.crashes < 2) {
			t.Errorf("%d crashes: record failures %d claims %d, %v", c.crashes, r.Failures, r.Claims, err)
		}
		if c.wantStatus == transcribe.StatusError {
			if !strings.Contains(*done.Error, "speech engine crashed 2 times") {
				t.Errorf("reason %q", *done.Error)
			}
			if _, err := e.store.ClaimJob(ctx, driver.Claim{Owner: "x", Now: time.Now().Add(time.Hour), Lease: time.Minute}); !errors.Is(err, transcribe.ErrNoJob) {
				t.Errorf("a twice-crashed job is claimable again: %v", err)
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestInterruptionsDoNotCount: a job whose claims ran out without an
// outcome (its process was killed) is resumed without counting a failure,
// up to the backstop.
func TestInterruptionsDoNotCount(t *testing.T) {
	store := memory.New()
	blobs := memory.NewBlobStore()
	cfg := transcribe.Config{Store: store, Blobs: blobs, Recognizer: &fakeRecognizer{}, Decoder: rawDecoder{}, Key: transcribe.NewKey(),
		Workers: -1, PollInterval: 10 * time.Millisecond}
	api, _ := transcribe.NewService(cfg)
	ctx := context.Background()
	u, _ := api.Upload(ctx, "p", bytes.NewReader(media(1, 1)))
	tr, _ := api.Submit(ctx, "p", transcribe.SubmitRequest{UploadID: u.ID})
	// Three "kill -9"s: claimed, then the lease runs out.
	now := time.Now()
	for i := 0; i < 3; i++ {
		if _, err := store.ClaimJob(ctx, driver.Claim{Owner: fmt.Sprint("dead-", i), Now: now, Lease: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second)
	}
	cfg.Workers = 1
	live, _ := transcribe.NewService(cfg)
	live.Start()
	defer live.Close(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		g, _ := live.Get(ctx, "p", tr.ID)
		if g.Status.Final() {
			if g.Status != transcribe.StatusCompleted {
				t.Fatalf("interrupted job ended %s: %v", g.Status, *g.Error)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("interrupted job was not resumed")
}

// TestShutdownResumesLater: a job cut off by Close (or an engine closed
// under it) is given back and completes in the next process; it never
// fails with a media error.
func TestShutdownResumesLater(t *testing.T) {
	store := memory.New()
	blobs := memory.NewBlobStore()
	closed := &fakeRecognizer{err: fmt.Errorf("pocketsphinx: recognizer closed: %w", transcribe.ErrClosed)}
	cfg := transcribe.Config{Store: store, Blobs: blobs, Recognizer: closed, Decoder: rawDecoder{}, Key: transcribe.NewKey(),
		Workers: 1, PollInterval: 10 * time.Millisecond, Lease: time.Minute}
	first, _ := transcribe.NewService(cfg)
	first.Start()
	ctx := context.Background()
	u, _ := first.Upload(ctx, "p", bytes.NewReader(media(1, 1)))
	tr, _ := first.Submit(ctx, "p", transcribe.SubmitRequest{UploadID: u.ID})
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, _ := store.Get(ctx, tr.ID)
		if r.Claims >= 1 && r.LeaseUntil.Before(time.Now()) {
			break // given back
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not given back: %+v", r)
		}
		time.Sleep(5 * time.Millisecond)
	}
	first.Close(ctx)
	if g, _ := first.Get(ctx, "p", tr.ID); g.Status.Final() {
		t.Fatalf("closed engine ended the job: %s %v", g.Status, *g.Error)
	}
	cfg.Recognizer = &fakeRecognizer{}
	second, _ := transcribe.NewService(cfg)
	second.Start()
	defer second.Close(ctx)
	for time.Now().Before(deadline.Add(5 * time.Second)) {
		if g, _ := second.Get(ctx, "p", tr.ID); g.Status == transcribe.StatusCompleted {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("job was not resumed by the next process")
}
