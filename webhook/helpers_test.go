package webhook_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

// clock is a fake clock that only moves when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// hit is one request a receiver saw.
type hit struct {
	Method  string
	Path    string
	Query   string
	Header  http.Header
	Body    string
	At      time.Time // fake clock time
	Replied int
}

// receiver is a webhook endpoint answering the scripted statuses in turn
// (the last one repeats).
type receiver struct {
	*httptest.Server
	clock *clock

	mu sync.Mutex
	// intercept, when set, sees each request first; returning true means
	// it handled the request (and recorded nothing).
	intercept func(w http.ResponseWriter, req *http.Request) bool
	statuses  []int
	hits      []hit
	arrived   chan struct{}
}

func newReceiver(t testing.TB, c *clock, statuses ...int) *receiver {
	t.Helper()
	if len(statuses) == 0 {
		statuses = []int{200}
	}
	r := &receiver{clock: c, statuses: statuses, arrived: make(chan struct{}, 1000)}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) setIntercept(f func(w http.ResponseWriter, req *http.Request) bool) {
	r.mu.Lock()
	r.intercept = f
	r.mu.Unlock()
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	f := r.intercept
	r.mu.Unlock()
	if f != nil && f(w, req) {
		return
	}
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	code := r.statuses[min(len(r.hits), len(r.statuses)-1)]
	r.hits = append(r.hits, hit{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: string(body), At: r.clock.Now(), Replied: code})
	r.mu.Unlock()
	w.WriteHeader(code)
	io.WriteString(w, `{"ok":true}`)
	r.arrived <- struct{}{}
}

func (r *receiver) Hits() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

// waitHits waits (real time) until the receiver has seen n requests.
func (r *receiver) waitHits(t *testing.T, n int) []hit {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if h := r.Hits(); len(h) >= n {
			return h
		}
		select {
		case <-r.arrived:
		case <-deadline:
			t.Fatalf("receiver saw %d requests, want %d", len(r.Hits()), n)
		}
	}
}

// statusLog records OnStatus calls.
type statusLog struct {
	mu    sync.Mutex
	calls []statusCall
	err   error
}

type statusCall struct {
	ID   string
	Code int
}

func (s *statusLog) OnStatus(ctx context.Context, id string, code int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, statusCall{id, code})
	return s.err
}

func (s *statusLog) Calls() []statusCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]statusCall(nil), s.calls...)
}

// recordingStore remembers what AddDelivery stored and signals every
// UpdateDelivery (an attempt's outcome being stored).
type recordingStore struct {
	webhook.Queue
	mu      sync.Mutex
	added   []webhook.Delivery
	updates chan webhook.Delivery
}

func (s *recordingStore) UpdateDelivery(ctx context.Context, d *webhook.Delivery) error {
	err := s.Queue.UpdateDelivery(ctx, d)
	if err == nil {
		select {
		case s.updates <- *d:
		default:
		}
	}
	return err
}

// waitUpdate waits (real time) for the next stored attempt outcome.
func (s *recordingStore) waitUpdate(t *testing.T) webhook.Delivery {
	t.Helper()
	select {
	case d := <-s.updates:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery update within 10s")
		return webhook.Delivery{}
	}
}

func (s *recordingStore) AddDelivery(ctx context.Context, d *webhook.Delivery) error {
	s.mu.Lock()
	s.added = append(s.added, *d)
	s.mu.Unlock()
	return s.Queue.AddDelivery(ctx, d)
}

type env struct {
	store  *recordingStore
	key    []byte
	clock  *clock
	status *statusLog
}

func newEnv(t testing.TB) *env {
	t.Helper()
	st := memory.New()
	t.Cleanup(func() { st.Close() })
	return &env{store: &recordingStore{Queue: st, updates: make(chan webhook.Delivery, 1000)}, key: transcribe.NewKey(), clock: newClock(), status: &statusLog{}}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// logBuffer collects log output safely from several goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) Logger() *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }

// notifier returns a Notifier on e's store, key and clock; edit adjusts the
// config (it may be nil).
func (e *env) notifier(t testing.TB, edit func(*webhook.Config)) *webhook.Notifier {
	t.Helper()
	key := e.key
	cfg := webhook.Config{
		Queue:        e.store,
		Key:          key,
		AllowPrivate: true, // the receivers listen on loopback
		OnStatus:     e.status.OnStatus,
		RedactedAudioURL: func(id string) string {
			return "https://earshot.example/v2/redacted-audio/" + id + "/sig"
		},
		Now:          e.clock.Now,
		PollInterval: 5 * time.Millisecond,
		Timeout:      2 * time.Second,
		Logger:       quietLogger(),
	}
	if edit != nil {
		edit(&cfg)
	}
	n, err := webhook.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func deliverDue(t *testing.T, n *webhook.Notifier, want int) {
	t.Helper()
	got, err := n.DeliverDue(context.Background())
	if err != nil {
		t.Fatalf("DeliverDue: %v", err)
	}
	if got != want {
		t.Fatalf("DeliverDue made %d attempts, want %d", got, want)
	}
}

func completed(id, url string) transcribe.Notification {
	return transcribe.Notification{Event: transcribe.EventTranscript, TranscriptID: id, ProjectID: "p1", Status: transcribe.StatusCompleted, URL: url}
}
