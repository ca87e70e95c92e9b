// Package webhookfakes holds the fakes that webhook's tests and the
// integration tests on real stores (server/integration/webhook) share: a
// fake clock, a scripted receiver, a queue that records what it stores, and
// an environment that builds a Notifier on them.
package webhookfakes

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

// Clock is a fake clock that only moves when told.
type Clock struct {
	Mu sync.Mutex
	t  time.Time
}

func NewClock() *Clock { return &Clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *Clock) Now() time.Time {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	return c.t
}

func (c *Clock) Advance(d time.Duration) {
	c.Mu.Lock()
	c.t = c.t.Add(d)
	c.Mu.Unlock()
}

// Hit is one request a receiver saw.
type Hit struct {
	Method  string
	Path    string
	Query   string
	Header  http.Header
	Body    string
	At      time.Time // fake clock time
	Replied int
}

// Receiver is a webhook endpoint answering the scripted statuses in turn
// (the last one repeats).
type Receiver struct {
	*httptest.Server
	Clock *Clock

	Mu sync.Mutex
	// intercept, when set, sees each request first; returning true means
	// it handled the request (and recorded nothing).
	intercept func(w http.ResponseWriter, req *http.Request) bool
	statuses  []int
	Seen      []Hit
	arrived   chan struct{}
}

func NewReceiver(t testing.TB, c *Clock, statuses ...int) *Receiver {
	t.Helper()
	if len(statuses) == 0 {
		statuses = []int{200}
	}
	r := &Receiver{Clock: c, statuses: statuses, arrived: make(chan struct{}, 1000)}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *Receiver) SetIntercept(f func(w http.ResponseWriter, req *http.Request) bool) {
	r.Mu.Lock()
	r.intercept = f
	r.Mu.Unlock()
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.Mu.Lock()
	f := r.intercept
	r.Mu.Unlock()
	if f != nil && f(w, req) {
		return
	}
	body, _ := io.ReadAll(req.Body)
	r.Mu.Lock()
	code := r.statuses[min(len(r.Seen), len(r.statuses)-1)]
	r.Seen = append(r.Seen, Hit{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: string(body), At: r.Clock.Now(), Replied: code})
	r.Mu.Unlock()
	w.WriteHeader(code)
	io.WriteString(w, `{"ok":true}`)
	r.arrived <- struct{}{}
}

func (r *Receiver) Hits() []Hit {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	return append([]Hit(nil), r.Seen...)
}

// WaitHits waits (real time) until the receiver has seen n requests.
func (r *Receiver) WaitHits(t *testing.T, n int) []Hit {
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

// StatusLog records OnStatus calls.
type StatusLog struct {
	Mu    sync.Mutex
	calls []StatusCall
	Err   error
}

type StatusCall struct {
	ID   string
	Code int
}

func (s *StatusLog) OnStatus(ctx context.Context, id string, code int) error {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.calls = append(s.calls, StatusCall{id, code})
	return s.Err
}

func (s *StatusLog) Calls() []StatusCall {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return append([]StatusCall(nil), s.calls...)
}

// RecordingStore remembers what AddDelivery stored and signals every
// UpdateDelivery (an attempt's outcome being stored).
type RecordingStore struct {
	webhook.Queue
	Mu      sync.Mutex
	Added   []webhook.Delivery
	Updates chan webhook.Delivery
}

// NewRecordingStore records what q is given, signalling up to size
// updates without a reader.
func NewRecordingStore(q webhook.Queue, size int) *RecordingStore {
	return &RecordingStore{Queue: q, Updates: make(chan webhook.Delivery, size)}
}

func (s *RecordingStore) UpdateDelivery(ctx context.Context, d *webhook.Delivery) error {
	err := s.Queue.UpdateDelivery(ctx, d)
	if err == nil {
		select {
		case s.Updates <- *d:
		default:
		}
	}
	return err
}

// WaitUpdate waits (real time) for the next stored attempt outcome.
func (s *RecordingStore) WaitUpdate(t *testing.T) webhook.Delivery {
	t.Helper()
	select {
	case d := <-s.Updates:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery update within 10s")
		return webhook.Delivery{}
	}
}

func (s *RecordingStore) AddDelivery(ctx context.Context, d *webhook.Delivery) error {
	s.Mu.Lock()
	s.Added = append(s.Added, *d)
	s.Mu.Unlock()
	return s.Queue.AddDelivery(ctx, d)
}

type Env struct {
	Store  *RecordingStore
	Key    []byte
	Clock  *Clock
	Status *StatusLog
}

func NewEnv(t testing.TB) *Env {
	t.Helper()
	st := memory.New()
	t.Cleanup(func() { st.Close() })
	return &Env{Store: NewRecordingStore(st, 1000), Key: transcribe.NewKey(), Clock: NewClock(), Status: &StatusLog{}}
}

func QuietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// LogBuffer collects log output safely from several goroutines.
type LogBuffer struct {
	Mu  sync.Mutex
	buf strings.Builder
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.Mu.Lock()
	defer b.Mu.Unlock()
	return b.buf.Write(p)
}

func (b *LogBuffer) String() string {
	b.Mu.Lock()
	defer b.Mu.Unlock()
	return b.buf.String()
}

func (b *LogBuffer) Logger() *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }

// Notifier returns a Notifier on e's store, key and clock; edit adjusts the
// config (it may be nil).
func (e *Env) Notifier(t testing.TB, edit func(*webhook.Config)) *webhook.Notifier {
	t.Helper()
	key := e.Key
	cfg := webhook.Config{
		Queue:        e.Store,
		Key:          key,
		AllowPrivate: true, // the receivers listen on loopback
		OnStatus:     e.Status.OnStatus,
		RedactedAudioURL: func(id string) string {
			return "https://earshot.example/v2/redacted-audio/" + id + "/sig"
		},
		Now:          e.Clock.Now,
		PollInterval: 5 * time.Millisecond,
		Timeout:      2 * time.Second,
		Logger:       QuietLogger(),
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

func DeliverDue(t *testing.T, n *webhook.Notifier, want int) {
	t.Helper()
	got, err := n.DeliverDue(context.Background())
	if err != nil {
		t.Fatalf("DeliverDue: %v", err)
	}
	if got != want {
		t.Fatalf("DeliverDue made %d attempts, want %d", got, want)
	}
}

func Completed(id, url string) transcribe.Notification {
	return transcribe.Notification{Event: transcribe.EventTranscript, TranscriptID: id, ProjectID: "p1", Status: transcribe.StatusCompleted, URL: url}
}
