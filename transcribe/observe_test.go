package transcribe_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// jobEvents records Config.OnJob events.
type jobEvents struct {
	mu     sync.Mutex
	events []transcribe.JobEvent
}

func (r *jobEvents) on(e transcribe.JobEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// wait returns the events once n have arrived.
func (r *jobEvents) wait(t *testing.T, n int) []transcribe.JobEvent {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.mu.Lock()
		got := slices.Clone(r.events)
		r.mu.Unlock()
		if len(got) >= n {
			// Submit runs its hook after the record is created, and a
			// polling worker may claim the job in between: the Service
			// orders each job's own events, not hooks run on different
			// goroutines. The submitted event is put first as it
			// happened first (the create).
			if i := slices.IndexFunc(got, func(e transcribe.JobEvent) bool { return e.Kind == transcribe.JobSubmitted }); i > 0 {
				e := got[i]
				copy(got[1:i+1], got[:i])
				got[0] = e
			}
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d job events, want %d: %+v", len(got), n, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// kinds renders events as "kind/outcome" for comparison.
func kinds(es []transcribe.JobEvent) []string {
	var out []string
	for _, e := range es {
		s := string(e.Kind)
		if e.Outcome != "" {
			s += "/" + string(e.Outcome)
		}
		out = append(out, s)
	}
	return out
}

// slowRecognizer moves the test clock forward while it recognizes, so the
// processing time an event reports is known exactly.
type slowRecognizer struct {
	fakeRecognizer
	clock *clock
	took  time.Duration
}

func (s *slowRecognizer) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	s.clock.Add(s.took)
	return s.fakeRecognizer.Recognize(ctx, audio, o)
}

// TestOnJobCompleted: a job submitted by one process and run by another
// reports submitted (submitting process), claimed with the time it waited,
// finished completed with its processing time, turnaround and audio
// length; JobCounts sees the queue across both processes.
func TestOnJobCompleted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, blobs, key := memory.New(), memory.NewBlobStore(), transcribe.NewKey()
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	var apiEvents, workerEvents jobEvents
	base := transcribe.Config{Store: store, Blobs: blobs, Decoder: rawDecoder{}, Key: key, Now: clk.Now, PollInterval: 10 * time.Millisecond,
		Recognizer: &slowRecognizer{clock: clk, took: 3 * time.Second}}
	apiCfg := base
	apiCfg.Workers, apiCfg.OnJob = -1, apiEvents.on
	api, err := transcribe.NewService(apiCfg)
	if err != nil {
		t.Fatal(err)
	}
	u, err := api.Upload(ctx, "p", bytes.NewReader(media(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := api.Submit(ctx, "p", transcribe.SubmitRequest{UploadID: u.ID})
	if err != nil {
		t.Fatal(err)
	}
	if q, p, err := api.JobCounts(ctx); err != nil || q != 1 || p != 0 {
		t.Fatalf("JobCounts after submit: queued %d processing %d, %v; want 1, 0", q, p, err)
	}
	if got := apiEvents.wait(t, 1); len(got) != 1 || got[0] != (transcribe.JobEvent{Kind: transcribe.JobSubmitted, ID: tr.ID, Engine: "best"}) {
		t.Fatalf("submit events %+v", got)
	}
	clk.Add(2 * time.Second) // queued for 2 s

	workerCfg := base
	workerCfg.Workers, workerCfg.OnJob = 1, workerEvents.on
	worker, err := transcribe.NewService(workerCfg)
	if err != nil {
		t.Fatal(err)
	}
	worker.Start()
	defer worker.Close(ctx)
	got := workerEvents.wait(t, 2)
	want := []transcribe.JobEvent{
		{Kind: transcribe.JobClaimed, ID: tr.ID, Engine: "best", Claim: 1, Waited: 2 * time.Second},
		{Kind: transcribe.JobFinished, ID: tr.ID, Engine: "best", Claim: 1, Outcome: transcribe.JobCompleted,
			Processing: 3 * time.Second, Turnaround: 5 * time.Second, Audio: 2 * time.Second},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("worker events\n got %+v\nwant %+v", got, want)
	}
	if g, _ := api.Get(ctx, "p", tr.ID); g.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s", g.Status)
	}
	if q, p, err := worker.JobCounts(ctx); err != nil || q != 0 || p != 0 {
		t.Fatalf("JobCounts after completion: %d %d %v", q, p, err)
	}
	if n := len(apiEvents.wait(t, 1)); n != 1 {
		t.Errorf("the API-only process reported %d events; it runs no jobs", n)
	}
}

// TestOnJobOutcomes: each way a claim ends reports its outcome.
func TestOnJobOutcomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("error", func(t *testing.T) {
		t.Parallel()
		var ev jobEvents
		e := newEnv(t, func(c *transcribe.Config) { c.OnJob = ev.on; c.Workers = 1 })
		tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", []byte("BAD media"))})
		if err != nil {
			t.Fatal(err)
		}
		e.wait(t, "p", tr.ID)
		got := ev.wait(t, 3)
		if k := kinds(got); !slices.Equal(k, []string{"submitted", "claimed", "finished/error"}) {
			t.Fatalf("events %v", k)
		}
		if f := got[2]; f.Audio != 0 || f.Engine != "best" || f.Claim != 1 {
			t.Errorf("finished event of undecodable media: %+v", f)
		}
	})

	t.Run("engine crash retried", func(t *testing.T) {
		t.Parallel()
		var ev jobEvents
		rec := &crashingRecognizer{crashes: 1}
		e := newEnv(t, func(c *transcribe.Config) { c.OnJob = ev.on; c.Workers = 1; c.Recognizer = rec })
		tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
		e.wait(t, "p", tr.ID)
		got := ev.wait(t, 5)
		if k := kinds(got); !slices.Equal(k, []string{"submitted", "claimed", "finished/retried", "claimed", "finished/completed"}) {
			t.Fatalf("events %v", k)
		}
		if got[3].Claim != 2 || got[4].Claim != 2 || got[4].Audio != time.Second {
			t.Errorf("second claim: %+v %+v", got[3], got[4])
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		var ev jobEvents
		closed := &fakeRecognizer{err: fmt.Errorf("engine closed: %w", transcribe.ErrClosed)}
		e := newEnv(t, func(c *transcribe.Config) { c.OnJob = ev.on; c.Workers = 1; c.Recognizer = closed })
		e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
		if k := kinds(ev.wait(t, 3)); !slices.Equal(k[:3], []string{"submitted", "claimed", "finished/interrupted"}) {
			t.Fatalf("events %v", k)
		}
	})

	t.Run("lost", func(t *testing.T) {
		t.Parallel()
		var ev jobEvents
		e := newEnv(t, func(c *transcribe.Config) {
			c.OnJob = ev.on
			c.Workers = 1
			c.Lease = 30 * time.Millisecond // heartbeats every 10 ms notice the deletion
		})
		block := make(chan struct{})
		e.rec.block = block
		tr, _ := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
		ev.wait(t, 2) // claimed
		if _, err := e.svc.Delete(ctx, "p", tr.ID); err != nil {
			t.Fatal(err)
		}
		got := ev.wait(t, 3)
		close(block)
		if k := kinds(got); !slices.Equal(k, []string{"submitted", "claimed", "finished/lost"}) {
			t.Fatalf("events %v", k)
		}
		if got[2].Turnaround != 0 {
			t.Errorf("a lost job has no turnaround: %+v", got[2])
		}
	})

	t.Run("unreadable record", func(t *testing.T) {
		t.Parallel()
		store, blobs := memory.New(), memory.NewBlobStore()
		cfg := transcribe.Config{Store: store, Blobs: blobs, Recognizer: &fakeRecognizer{}, Decoder: rawDecoder{}, Key: transcribe.NewKey(),
			Workers: -1, PollInterval: 10 * time.Millisecond}
		api, _ := transcribe.NewService(cfg)
		u, _ := api.Upload(ctx, "p", bytes.NewReader(media(1, 1)))
		if _, err := api.Submit(ctx, "p", transcribe.SubmitRequest{UploadID: u.ID}); err != nil {
			t.Fatal(err)
		}
		var ev jobEvents
		cfg.Key, cfg.Workers, cfg.OnJob = transcribe.NewKey(), 1, ev.on // another key: the record cannot be opened
		w, _ := transcribe.NewService(cfg)
		w.Start()
		defer w.Close(ctx)
		got := ev.wait(t, 2)
		if k := kinds(got); !slices.Equal(k, []string{"claimed", "finished/error"}) || got[0].Engine != "" {
			t.Fatalf("events %+v", got)
		}
	})
}

// TestOnJobNil: without OnJob nothing is reported and jobs run as usual
// (the hook is optional).
func TestOnJobNil(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tr, _ := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1))})
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s", done.Status)
	}
}

// noCountStore hides the memory store's JobCounter.
type noCountStore struct{ driver.Store }

func TestJobCountsUnsupported(t *testing.T) {
	t.Parallel()
	m := memory.New()
	svc, err := transcribe.NewService(transcribe.Config{Store: noCountStore{m}, Uploads: m, Blobs: memory.NewBlobStore(),
		Recognizer: &fakeRecognizer{}, Decoder: rawDecoder{}, Key: transcribe.NewKey()})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.JobCounts(context.Background()); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("JobCounts on a store without CountJobs: %v", err)
	}
}
