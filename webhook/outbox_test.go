package webhook_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

// TestNotifyKeyQueuesOnce (issue 25.7): the Service re-sends a finished
// transcript's notifications while its outbox flag is set, so a
// Notification with a Key is queued once however often it comes, and
// sent once; one without a Key is queued every time.
func TestNotifyKeyQueuesOnce(t *testing.T) {
	t.Parallel()
	e := webhookfakes.NewEnv(t)
	r := webhookfakes.NewReceiver(t, e.Clock)
	n := e.Notifier(t, nil)
	ctx := context.Background()
	keyed := webhookfakes.Completed("t1", r.URL+"/hook")
	keyed.Key = "t1/transcript"
	for range 3 {
		if err := n.Notify(ctx, keyed); err != nil {
			t.Fatal(err)
		}
	}
	other := keyed
	other.Event, other.Status, other.Key = transcribe.EventRedactedAudio, "", "t1/redacted_audio"
	if err := n.Notify(ctx, other); err != nil {
		t.Fatal(err)
	}
	if got := stored(e); got != 2 {
		t.Fatalf("%d deliveries stored for 3 notifications with one key and 1 with another, want 2", got)
	}
	webhookfakes.DeliverDue(t, n, 2)
	if err := n.Notify(ctx, keyed); err != nil { // after delivery, still known
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 0)
	if hits := r.Hits(); len(hits) != 2 {
		t.Fatalf("%d POSTs, want 2", len(hits))
	}
	plain := webhookfakes.Completed("t2", r.URL+"/hook")
	for range 2 {
		if err := n.Notify(ctx, plain); err != nil {
			t.Fatal(err)
		}
	}
	if got := stored(e); got != 4 {
		t.Errorf("%d deliveries stored, want 4 (notifications without a key are not merged)", got)
	}
}

// TestInvalidIsRefused: an invalid notification is one the Service must
// not retry (transcribe.ErrNotificationRefused), and its text stays the
// webhook package's.
func TestInvalidIsRefused(t *testing.T) {
	t.Parallel()
	e := webhookfakes.NewEnv(t)
	n := e.Notifier(t, nil)
	err := n.Notify(context.Background(), webhookfakes.Completed("t1", "ftp://example.com/x"))
	if !errors.Is(err, webhook.ErrInvalid) || !errors.Is(err, transcribe.ErrNotificationRefused) {
		t.Fatalf("Notify = %v, want ErrInvalid and transcribe.ErrNotificationRefused", err)
	}
	if want := "webhook: invalid notification: webhook URL must be an absolute http or https URL"; err.Error() != want || strings.HasSuffix(err.Error(), " ") {
		t.Errorf("text %q, want %q", err, want)
	}
}

// stored counts the distinct deliveries e's store was given.
func stored(e *webhookfakes.Env) int {
	e.Store.Mu.Lock()
	defer e.Store.Mu.Unlock()
	ids := map[string]bool{}
	for _, d := range e.Store.Added {
		ids[d.ID] = true
	}
	return len(ids)
}
