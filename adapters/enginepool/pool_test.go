package enginepool

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

func newPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func acquire(t *testing.T, p *Pool, avoid int) *Slot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s, err := p.Acquire(ctx, avoid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A full pool makes Acquire wait for the first slot to free, wherever it
// is; a caller that gives up gets its context's error, and Close wakes
// every waiter with ErrClosed.
func TestAcquireWaitsForASlot(t *testing.T) {
	t.Parallel()
	p := newPool(t, Config{Servers: []string{"a", "b"}, Concurrency: 1})
	s1, s2 := acquire(t, p, -1), acquire(t, p, -1)
	if s1.Server == s2.Server {
		t.Fatalf("both requests on server %d", s1.Server)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(ctx, -1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("full pool: %v, want the context's error", err)
	}
	got := make(chan *Slot)
	go func() { s, _ := p.Acquire(context.Background(), -1); got <- s }()
	time.Sleep(20 * time.Millisecond)
	s2.Release(OK, nil)
	if s := <-got; s == nil || s.Server != s2.Server {
		t.Fatalf("waiter got %+v, want the slot freed on server %d", s, s2.Server)
	}
	errc := make(chan error)
	go func() { _, err := p.Acquire(context.Background(), -1); errc <- err }()
	time.Sleep(20 * time.Millisecond)
	p.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// A server whose request was Unavailable is skipped while another is up;
// avoid is taken only when nothing else is free; with every server down
// the one that failed longest ago is tried.
func TestDownSkippedAndOrder(t *testing.T) {
	t.Parallel()
	p := newPool(t, Config{Servers: []string{"a", "b", "c"}, RecheckInterval: time.Hour})
	down := fmt.Errorf("refused: %w", transcribe.ErrEngineUnavailable)
	s := acquire(t, p, -1)
	if s.Server != 0 {
		t.Fatalf("first request on %d", s.Server)
	}
	s.Release(Unavailable, down)
	for range 4 {
		s := acquire(t, p, 1)
		if s.Server != 2 {
			t.Fatalf("avoiding 1 with 0 down: server %d, want 2", s.Server)
		}
		s.Release(OK, nil)
	}
	s = acquire(t, p, -1)
	s.Release(Unavailable, down) // 1 or 2
	other := 3 - s.Server
	s = acquire(t, p, -1)
	if s.Server != other {
		t.Fatalf("one server up: got %d, want %d", s.Server, other)
	}
	s.Release(Unavailable, down)
	if p.AnyUp() {
		t.Fatal("all failed, yet a server is up")
	}
	s = acquire(t, p, -1)
	if s.Server != 0 {
		t.Fatalf("all down: got %d, want 0 (failed longest ago)", s.Server)
	}
	s.Release(Refused, nil) // it answered: up again
	if st := p.Stats(); !st[0].Up || st[1].Up || st[2].Up {
		t.Fatalf("stats %+v", st)
	}
}

// Health checks every server, marks each by its answer (an error that is
// not an outage still shows the server answers), and fails only when all
// do.
func TestHealth(t *testing.T) {
	t.Parallel()
	outage := map[int]bool{0: true, 1: true}
	p := newPool(t, Config{Servers: []string{"a", "b"}, Check: func(ctx context.Context, i int) error {
		if outage[i] {
			return fmt.Errorf("server %d: %w", i, transcribe.ErrEngineUnavailable)
		}
		return nil
	}})
	err := p.Health(context.Background())
	var de *DownError
	if !errors.As(err, &de) || !errors.Is(err, transcribe.ErrEngineUnavailable) || p.AnyUp() {
		t.Fatalf("all down: %v, up %v", err, p.AnyUp())
	}
	outage[1] = false
	if err := p.Health(context.Background()); err != nil {
		t.Fatalf("one up: %v", err)
	}
	if st := p.Stats(); st[0].Up || !st[1].Up {
		t.Fatalf("stats %+v", st)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []Config{{}, {Servers: []string{"a", "a"}}, {Servers: []string{""}}, {Servers: []string{"a"}, Concurrency: -1}} {
		if _, err := New(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
