package transcribe_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

// lostReplyStore stores a final result and then answers with an error, as
// when a database's reply is lost after the write committed; lost counts
// how many such replies are left to lose.
type lostReplyStore struct {
	*memory.Store
	lost atomic.Int32
}

func (s *lostReplyStore) Update(ctx context.Context, r *driver.Record) error {
	if err := s.Store.Update(ctx, r); err != nil {
		return err
	}
	if r.Status.Final() && s.lost.Add(-1) >= 0 {
		return errors.New("write tcp 127.0.0.1:5432: connection reset by peer")
	}
	return nil
}

// waitNote waits for the webhook notification of transcript id.
func waitNote(t *testing.T, e *env, id string) transcribe.Notification {
	t.Helper()
	select {
	case n := <-e.notes:
		if n.TranscriptID != id {
			t.Fatalf("notification for %s, want %s", n.TranscriptID, id)
		}
		return n
	case <-time.After(10 * time.Second):
		t.Fatalf("no webhook was queued for %s", id)
	}
	return transcribe.Notification{}
}

// TestResultStoredReplyLostStillNotifies (issue 25.7): when the write of
// the final result committed but its reply was lost, nothing would ever
// resume the job (it is completed, its lease cleared), so the worker
// reads the record back and, finding its result stored, queues the
// webhook.
func TestResultStoredReplyLostStillNotifies(t *testing.T) {
	var st *lostReplyStore
	e := newEnv(t, func(cfg *transcribe.Config) {
		st = &lostReplyStore{Store: cfg.Store.(*memory.Store)}
		st.lost.Store(1)
		cfg.Store, cfg.Workers = st, 1
	})
	ctx := context.Background()
	tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1)), WebhookURL: transcribe.Ptr("https://hooks.earshot.test/done")})
	if err != nil {
		t.Fatal(err)
	}
	if done := e.wait(t, "p", tr.ID); done.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s, want completed", done.Status)
	}
	if n := waitNote(t, e, tr.ID); n.Status != transcribe.StatusCompleted {
		t.Errorf("webhook status %s, want completed", n.Status)
	}
	if st.lost.Load() >= 1 {
		t.Error("the store never lost a reply: the test checked nothing")
	}
}

// TestNotifyRetried (issue 25.7): a failure to queue the webhook after the
// result was stored (the database failed between the two writes) is
// retried, not dropped.
func TestNotifyRetried(t *testing.T) {
	var fails atomic.Int32
	fails.Store(2)
	var e *env
	e = newEnv(t, func(cfg *transcribe.Config) {
		cfg.Workers = 1
		cfg.Notifier = transcribe.NotifierFunc(func(ctx context.Context, n transcribe.Notification) error {
			if fails.Add(-1) >= 0 {
				return errors.New("storing delivery: connection refused")
			}
			e.notes <- n
			return nil
		})
	})
	ctx := context.Background()
	tr, err := e.submit(ctx, "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", media(1, 1)), WebhookURL: transcribe.Ptr("https://hooks.earshot.test/done")})
	if err != nil {
		t.Fatal(err)
	}
	e.wait(t, "p", tr.ID)
	waitNote(t, e, tr.ID)
}
