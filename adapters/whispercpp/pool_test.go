package whispercpp

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/enginepool"
	"github.com/earshot-dev/earshot/adapters/enginepool/pooltest"
	"github.com/earshot-dev/earshot/transcribe"
)

// tone is seconds of a loud square wave: audio the adapter sends.
func tone(seconds float64) []int16 {
	s := make([]int16, int(seconds*16000))
	for i := range s {
		s[i] = 6000
		if (i/20)%2 == 0 {
			s[i] = -6000
		}
	}
	return s
}

func poolOf(t *testing.T, cfg Config, servers ...*pooltest.Server) *Recognizer {
	t.Helper()
	for _, s := range servers {
		cfg.URLs = append(cfg.URLs, s.URL)
	}
	if cfg.Sleep == nil {
		cfg.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	}
	return newRec(t, cfg)
}

// recognizeAll runs n recognitions of audio at once and returns their
// errors.
func recognizeAll(r *Recognizer, n int, audio []int16) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.Recognize(context.Background(), audio, transcribe.RecognizeOptions{LanguageCode: "en"})
		}()
	}
	wg.Wait()
	return errs
}

func noErrors(t *testing.T, errs []error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Requests go to the server with the fewest in flight: three at once on
// three servers that each take two land one on each (a first-free choice
// would put two on the first), and three more then give each its second.
// While one server is busy with a long request, short ones one after
// another go to the idle two only (taking the servers in turn would give
// the busy one its second slot).
func TestPoolLeastInFlight(t *testing.T) {
	t.Parallel()
	a, b, c := pooltest.New(t, 300*time.Millisecond), pooltest.New(t, 300*time.Millisecond), pooltest.New(t, 300*time.Millisecond)
	r := poolOf(t, Config{Concurrency: 2}, a, b, c)
	if r.Capacity() != 6 {
		t.Fatalf("Capacity %d, want 3 servers × 2", r.Capacity())
	}
	noErrors(t, recognizeAll(r, 3, tone(1)))
	for _, s := range []*pooltest.Server{a, b, c} {
		if s.Requests() != 1 {
			t.Errorf("%v got %d of 3 requests, want 1 (fewest in flight)", s, s.Requests())
		}
	}
	noErrors(t, recognizeAll(r, 6, tone(1)))
	for _, s := range []*pooltest.Server{a, b, c} {
		if s.Requests() != 3 {
			t.Errorf("%v got %d of 9 requests, want 3", s, s.Requests())
		}
	}

	slow, fast1, fast2 := pooltest.New(t, 2*time.Second), pooltest.New(t, 10*time.Millisecond), pooltest.New(t, 10*time.Millisecond)
	r = poolOf(t, Config{Concurrency: 2}, slow, fast1, fast2)
	done := make(chan error, 1)
	go func() { done <- recognizeAll(r, 1, tone(1))[0] }()
	for slow.InFlight() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	for range 6 {
		noErrors(t, recognizeAll(r, 1, tone(1)))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if slow.Requests() != 1 || fast1.Requests() != 3 || fast2.Requests() != 3 {
		t.Errorf("requests: busy server %d (want 1), idle ones %d and %d (want 3 each)", slow.Requests(), fast1.Requests(), fast2.Requests())
	}
}

// No server is given more than its concurrency (whisper.cpp's default:
// one), however many recognitions run at once, and every server works:
// twelve requests on three servers take four rounds, not twelve.
func TestPoolConcurrencyPerServer(t *testing.T) {
	t.Parallel()
	const delay = 150 * time.Millisecond
	servers := []*pooltest.Server{pooltest.New(t, delay), pooltest.New(t, delay), pooltest.New(t, delay)}
	r := poolOf(t, Config{}, servers...)
	if r.Capacity() != 3 {
		t.Fatalf("Capacity %d, want 3 servers × the default 1", r.Capacity())
	}
	t0 := time.Now()
	noErrors(t, recognizeAll(r, 12, tone(1)))
	took := time.Since(t0)
	for _, s := range servers {
		if s.MaxInFlight() != 1 {
			t.Errorf("%v held %d requests at once, want at most Concurrency 1", s, s.MaxInFlight())
		}
		if s.Requests() != 4 {
			t.Errorf("%v got %d of 12 requests, want 4", s, s.Requests())
		}
	}
	if took > 8*delay {
		t.Errorf("12 requests on 3 servers took %v, want about 4 × %v", took, delay)
	}
	// Pieces of one long recording spread the same way (Parallel defaults
	// to the capacity).
	long := make([]int16, 0, 16000*40)
	for range 4 {
		long = append(long, tone(9)...)
		long = append(long, make([]int16, 16000)...)
	}
	r2 := poolOf(t, Config{MaxChunk: 10 * time.Second}, servers...)
	before := []int{servers[0].Requests(), servers[1].Requests(), servers[2].Requests()}
	if _, err := r2.Recognize(context.Background(), long, transcribe.RecognizeOptions{LanguageCode: "en"}); err != nil {
		t.Fatal(err)
	}
	for i, s := range servers {
		if s.Requests() == before[i] {
			t.Errorf("%v got none of the 4 chunks of a 40 s recording", s)
		}
		if s.MaxInFlight() != 1 {
			t.Errorf("%v held %d requests at once", s, s.MaxInFlight())
		}
	}
}

// A server that dies is skipped: its request in flight is sent again on
// another server at once (no error, no backoff), later requests do not go
// to it, and once it serves again and passes its health check it is used
// again.
func TestPoolDownServerSkippedAndBack(t *testing.T) {
	t.Parallel()
	a, b := pooltest.New(t, 800*time.Millisecond), pooltest.New(t, 50*time.Millisecond)
	var mu sync.Mutex
	var events []enginepool.Event
	var sleeps int
	r := poolOf(t, Config{OnServer: func(e enginepool.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
		Sleep: func(ctx context.Context, d time.Duration) error { mu.Lock(); sleeps++; mu.Unlock(); return ctx.Err() }}, a, b)
	done := make(chan error, 1)
	go func() {
		_, err := r.Recognize(context.Background(), tone(1), transcribe.RecognizeOptions{LanguageCode: "en"})
		done <- err
	}()
	for a.InFlight() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	a.Kill()
	if err := <-done; err != nil {
		t.Fatalf("the request in flight on the killed server: %v (want it sent again on the other)", err)
	}
	if b.Answered() != 1 {
		t.Fatalf("the other server answered %d requests, want 1", b.Answered())
	}
	if mu.Lock(); sleeps != 0 {
		t.Errorf("%d backoffs before the request went to the other server, want none", sleeps)
	}
	mu.Unlock()
	if st := r.Servers(); st[0].Up || !st[1].Up {
		t.Fatalf("servers %+v: want the killed one down", st)
	}
	noErrors(t, recognizeAll(r, 4, tone(1)))
	if a.Requests() != 1 || b.Answered() != 5 {
		t.Fatalf("while down: killed server got %d requests (want only the first), the other answered %d of 5", a.Requests(), b.Answered())
	}

	// Back, but still loading its model: /health answers 503, so it
	// stays out.
	a.SetLoading(true)
	a.Restart(t)
	deadline := time.Now().Add(10 * time.Second)
	for a.HealthChecks() < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if r.Servers()[0].Up {
		t.Fatal("a server whose /health answers 503 is back in use")
	}
	a.SetLoading(false)
	for !r.Servers()[0].Up && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !r.Servers()[0].Up {
		t.Fatal("the server passes its health check again but stays out")
	}
	noErrors(t, recognizeAll(r, 2, tone(1)))
	if a.Answered() != 1 {
		t.Errorf("the recovered server answered %d of 2 requests at once, want 1", a.Answered())
	}
	mu.Lock()
	defer mu.Unlock()
	var downs, ups, unavailable int
	for _, e := range events {
		if e.Server != a.URL {
			continue
		}
		switch {
		case e.Kind == enginepool.Down:
			downs++
		case e.Kind == enginepool.Up:
			ups++
		case e.Kind == enginepool.Finished && e.Outcome == enginepool.Unavailable:
			unavailable++
		}
	}
	if downs != 1 || ups != 2 || unavailable != 1 {
		t.Errorf("events of the killed server: %d down, %d up (with New's), %d unavailable; want 1, 2, 1", downs, ups, unavailable)
	}
}

// With every server down, the failure is the engine outage the Service
// waits out (transcribe.ErrEngineUnavailable), from Recognize and from
// Health; a server that answers again is used at once.
func TestPoolAllDown(t *testing.T) {
	t.Parallel()
	a, b := pooltest.New(t, 10*time.Millisecond), pooltest.New(t, 10*time.Millisecond)
	r := poolOf(t, Config{MaxRetries: 2}, a, b)
	a.Kill()
	b.SetLoading(true)
	_, err := r.Recognize(context.Background(), tone(1), transcribe.RecognizeOptions{LanguageCode: "en"})
	if !errors.Is(err, transcribe.ErrEngineUnavailable) || !errors.Is(err, transcribe.ErrUnavailable) {
		t.Fatalf("all servers down: %v, want ErrEngineUnavailable", err)
	}
	herr := r.Health(context.Background())
	var down *enginepool.DownError
	if !errors.Is(herr, transcribe.ErrEngineUnavailable) || !errors.As(herr, &down) || len(down.Errs) != 2 {
		t.Fatalf("Health with all servers down: %v, want both servers' errors, ErrEngineUnavailable", herr)
	}
	b.SetLoading(false)
	if _, err := r.Recognize(context.Background(), tone(1), transcribe.RecognizeOptions{LanguageCode: "en"}); err != nil {
		t.Fatalf("a server answers again: %v", err)
	}
	if err := r.Health(context.Background()); err != nil {
		t.Fatalf("Health with one server up: %v", err)
	}
}

// URLs and Concurrency are checked.
func TestPoolConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []Config{
		{URLs: []string{"http://127.0.0.1:1", ""}},
		{URLs: []string{"http://127.0.0.1:1", "http://127.0.0.1:1/"}},
		{URLs: []string{"ftp://x"}},
		{URL: "http://127.0.0.1:1", Concurrency: -1},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	r := newRec(t, Config{URL: "http://127.0.0.1:1", URLs: []string{"http://u:secret@127.0.0.1:2"}})
	st := r.Servers()
	if len(st) != 2 || st[1].Name != "http://127.0.0.1:2" {
		t.Errorf("servers %+v: want both, named without credentials", st)
	}
}
