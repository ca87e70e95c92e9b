package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

// attempts records Config.OnAttempt events.
type attempts struct {
	mu sync.Mutex
	ev []webhook.AttemptEvent
}

func (a *attempts) on(e webhook.AttemptEvent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ev = append(a.ev, e)
}

func (a *attempts) get() []webhook.AttemptEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.ev)
}

// TestOnAttempt: every decided attempt is reported with its number,
// outcome (retry while retries remain, failed once they are used up or
// when the URL is unreachable, delivered on 200), HTTP status and how long
// the request took on the Notifier's clock.
func TestOnAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("retried then delivered", func(t *testing.T) {
		t.Parallel()
		e := webhookfakes.NewEnv(t)
		rcv := webhookfakes.NewReceiver(t, e.Clock, 500, 503, 200)
		// The receiver takes 250 ms of the Notifier's clock to answer.
		rcv.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
			e.Clock.Advance(250 * time.Millisecond)
			return false
		})
		var a attempts
		n := e.Notifier(t, func(c *webhook.Config) { c.OnAttempt = a.on })
		if err := n.Notify(ctx, webhookfakes.Completed("tr-1", rcv.URL+"/hook")); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			webhookfakes.DeliverDue(t, n, 1)
			e.Clock.Advance(webhook.DefaultRetryInterval)
		}
		got := a.get()
		if len(got) != 3 {
			t.Fatalf("%d events, want 3: %+v", len(got), got)
		}
		want := []struct {
			outcome webhook.Outcome
			code    int
		}{{webhook.Retry, 500}, {webhook.Retry, 503}, {webhook.Delivered, 200}}
		for i, w := range want {
			g := got[i]
			if g.Attempt != i+1 || g.Outcome != w.outcome || g.Code != w.code || g.Duration != 250*time.Millisecond ||
				g.TranscriptID != "tr-1" || g.Event != transcribe.EventTranscript || g.Delivery == "" {
				t.Errorf("attempt %d: %+v, want outcome %v code %d in 250ms", i+1, g, w.outcome, w.code)
			}
		}
		if got[0].Delivery != got[2].Delivery {
			t.Errorf("one delivery, two ids: %q %q", got[0].Delivery, got[2].Delivery)
		}
	})

	t.Run("retries used up", func(t *testing.T) {
		t.Parallel()
		e := webhookfakes.NewEnv(t)
		rcv := webhookfakes.NewReceiver(t, e.Clock, 500)
		var a attempts
		n := e.Notifier(t, func(c *webhook.Config) { c.OnAttempt = a.on; c.Policy.MaxRetries = 1 })
		n.Notify(ctx, webhookfakes.Completed("tr-2", rcv.URL))
		webhookfakes.DeliverDue(t, n, 1)
		e.Clock.Advance(webhook.DefaultRetryInterval)
		webhookfakes.DeliverDue(t, n, 1)
		got := a.get()
		if len(got) != 2 || got[0].Outcome != webhook.Retry || got[1].Outcome != webhook.Fail || got[1].Attempt != 2 || got[1].Code != 500 {
			t.Fatalf("events %+v", got)
		}
		if got[1].Outcome.String() != "failed" || got[0].Outcome.String() != "retry" {
			t.Errorf("outcome names %q %q", got[0].Outcome, got[1].Outcome)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		e := webhookfakes.NewEnv(t)
		dead := httptest.NewServer(http.NotFoundHandler())
		url := dead.URL
		dead.Close() // connection refused from now on
		var a attempts
		n := e.Notifier(t, func(c *webhook.Config) { c.OnAttempt = a.on })
		n.Notify(ctx, webhookfakes.Completed("tr-3", url))
		webhookfakes.DeliverDue(t, n, 1)
		if got := a.get(); len(got) != 1 || got[0].Outcome != webhook.Fail || got[0].Code != 0 || got[0].Attempt != 1 {
			t.Fatalf("events %+v", got)
		}
	})

	t.Run("unreadable delivery", func(t *testing.T) {
		t.Parallel()
		e := webhookfakes.NewEnv(t)
		sealer := e.Notifier(t, nil)
		sealer.Notify(ctx, webhookfakes.Completed("tr-4", "https://hooks.example/x"))
		e.Key = transcribe.NewKey() // a dispatcher holding another key cannot open it
		var a attempts
		n := e.Notifier(t, func(c *webhook.Config) { c.OnAttempt = a.on })
		webhookfakes.DeliverDue(t, n, 1)
		if got := a.get(); len(got) != 1 || got[0].Outcome != webhook.Fail || got[0].Event != "" || got[0].TranscriptID != "tr-4" {
			t.Fatalf("events %+v", got)
		}
	})
}
