package transcribe_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

// hookCounter is a webhook receiver counting the POSTs it gets.
func hookCounter(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
	t.Cleanup(srv.Close)
	return srv, &n
}

// newNotifier is a real webhook.Notifier queueing in store; the test
// dispatches with DeliverDue.
func newNotifier(t *testing.T, store *memory.Store) *webhook.Notifier {
	n, err := webhook.New(webhook.Config{Queue: store, Key: transcribe.NewKey(), AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// finishedUnnotified runs one job with a webhook on a first Service whose
// notifications never get queued (the webhook queue is down) or whose
// outbox flag is never cleared, waits until its result is stored, and
// stops that Service: a process killed between the result and its
// webhook. It returns the shared store and the transcript id.
func finishedUnnotified(t *testing.T, key []byte, hookURL string, mutate func(*transcribe.Config)) (*memory.Store, string) {
	t.Helper()
	store := memory.New()
	e := newEnv(t, func(cfg *transcribe.Config) {
		cfg.Store, cfg.Workers, cfg.AllowPrivateURLs, cfg.Key = store, 1, true, key
		mutate(cfg)
	})
	ctx := context.Background()
	tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1)), WebhookURL: &hookURL})
	if err != nil {
		t.Fatal(err)
	}
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s, want completed", done.Status)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := e.svc.Close(cctx); err != nil { // the "kill": its retries end
		t.Fatal(err)
	}
	if r, err := store.Get(ctx, tr.ID); err != nil || !r.NotifyPending {
		t.Fatalf("after the first process stopped: NotifyPending %v, %v; want the outbox flag set", r != nil && r.NotifyPending, err)
	}
	return store, tr.ID
}

// resume starts a second Service on store with notifier, its clock an
// hour ahead (past the outbox's grace), and waits until the outbox flag
// of id is cleared.
func resume(t *testing.T, key []byte, store *memory.Store, notifier transcribe.Notifier, id string) {
	t.Helper()
	newEnv(t, func(cfg *transcribe.Config) {
		cfg.Store, cfg.Workers, cfg.AllowPrivateURLs, cfg.Notifier, cfg.Key = store, 1, true, notifier, key
		cfg.Lease = 50 * time.Millisecond
		cfg.Now = func() time.Time { return time.Now().Add(time.Hour) }
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := store.Get(context.Background(), id); err == nil && !r.NotifyPending {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the outbox flag was never cleared by the second process")
}

// TestOutboxKilledBeforeWebhookQueued (issue 25.7): the process is killed
// after the result is stored but before its webhook delivery is stored.
// The result carried the outbox flag in the same write, so the next
// process queues the webhook: delivered exactly once.
func TestOutboxKilledBeforeWebhookQueued(t *testing.T) {
	t.Parallel()
	srv, hits := hookCounter(t)
	var tries atomic.Int32
	key := transcribe.NewKey()
	store, id := finishedUnnotified(t, key, srv.URL+"/hook", func(cfg *transcribe.Config) {
		cfg.Notifier = transcribe.NotifierFunc(func(context.Context, transcribe.Notification) error {
			tries.Add(1)
			return errors.New("storing delivery: dial tcp 127.0.0.1:5432: connect: connection refused")
		})
	})
	if tries.Load() == 0 {
		t.Fatal("the first process never tried to queue the webhook")
	}
	n := newNotifier(t, store)
	resume(t, key, store, n, id)
	for range 2 { // later sweeps and dispatches add nothing
		if _, err := n.DeliverDue(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := hits.Load(); got != 1 {
		t.Fatalf("webhook POSTed %d times, want exactly 1", got)
	}
}

// clearFails is a store whose ClearNotifyPending always fails: the
// delivery is stored but the outbox flag stays set.
type clearFails struct{ *memory.Store }

func (clearFails) ClearNotifyPending(context.Context, string) error {
	return errors.New("write tcp 127.0.0.1:5432: connection reset by peer")
}

// TestOutboxResendIsIdempotent (issue 25.7): the webhook delivery was
// stored but the process died before the outbox flag was cleared; the next
// process re-sends the notification, which finds its delivery by key and
// queues nothing: one POST.
func TestOutboxResendIsIdempotent(t *testing.T) {
	t.Parallel()
	srv, hits := hookCounter(t)
	var n *webhook.Notifier
	key := transcribe.NewKey()
	store, id := finishedUnnotified(t, key, srv.URL+"/hook", func(cfg *transcribe.Config) {
		n = newNotifier(t, cfg.Store.(*memory.Store))
		cfg.Notifier = n
		cfg.Store = clearFails{cfg.Store.(*memory.Store)}
	})
	resume(t, key, store, n, id)
	for range 2 {
		if _, err := n.DeliverDue(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := hits.Load(); got != 1 {
		t.Fatalf("webhook POSTed %d times, want exactly 1", got)
	}
}
