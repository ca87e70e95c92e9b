package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/webhook"
)

func TestPendingRetrySurvivesRestart(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 500, 200)
	a := e.Notifier(t, func(c *webhook.Config) { c.Owner = "process-a" })
	if err := a.Notify(context.Background(), webhookfakes.Completed("tr-restart", rcv.URL+"?k=v")); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, a, 1)
	a.Close() // process A goes away with a retry pending in the store

	// Process B: a new Notifier (new cipher from the same key) on the same store.
	b := e.Notifier(t, func(c *webhook.Config) { c.Owner = "process-b" })
	webhookfakes.DeliverDue(t, b, 0) // the retry is not due yet
	<-e.Store.Updates                // A's outcome
	b.Start()
	e.Clock.Advance(10 * time.Second)
	hits := rcv.WaitHits(t, 2)
	e.Store.WaitUpdate(t)
	if hits[1].Query != "k=v" || hits[1].Body != `{"transcript_id":"tr-restart","status":"completed"}` {
		t.Errorf("retry after restart: %+v", hits[1])
	}
	if d := hits[1].At.Sub(hits[0].At); d != 10*time.Second {
		t.Errorf("retry came %v after the first attempt, want 10s", d)
	}
	b.Close()
	if got := fmt.Sprint(e.Status.Calls()); got != "[{tr-restart 500} {tr-restart 200}]" {
		t.Errorf("OnStatus calls %s", got)
	}
	e.Clock.Advance(time.Hour)
	webhookfakes.DeliverDue(t, b, 0)
}

func TestPendingDeliverySurvivesRestart(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	a := e.Notifier(t, nil)
	note := webhookfakes.Completed("tr-queued", rcv.URL)
	note.HeaderName, note.HeaderValue = "Authorization", "Bearer tok"
	if err := a.Notify(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	// A never dispatches; B, started later, finds the delivery by polling.
	b := e.Notifier(t, nil)
	b.Start()
	hits := rcv.WaitHits(t, 1)
	if hits[0].Header.Get("Authorization") != "Bearer tok" {
		t.Errorf("auth header after restart: %q", hits[0].Header.Get("Authorization"))
	}
}

func TestCrashedAttemptIsTakenOverAfterLease(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	a := e.Notifier(t, nil)
	if err := a.Notify(context.Background(), webhookfakes.Completed("tr-crash", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	// A dispatcher claims the delivery and dies before finishing it.
	const lease = 40 * time.Second
	if _, err := e.Store.ClaimDelivery(context.Background(), webhook.Claim{Owner: "dead-process", Now: e.Clock.Now(), Lease: lease}); err != nil {
		t.Fatal(err)
	}
	b := e.Notifier(t, func(c *webhook.Config) { c.Lease = lease })
	webhookfakes.DeliverDue(t, b, 0) // still leased by the dead process
	e.Clock.Advance(lease - time.Millisecond)
	webhookfakes.DeliverDue(t, b, 0)
	e.Clock.Advance(2 * time.Millisecond)
	webhookfakes.DeliverDue(t, b, 1)
	if len(rcv.Hits()) != 1 {
		t.Errorf("receiver saw %d requests, want 1", len(rcv.Hits()))
	}
}

func TestCloseWaitsForAttemptInFlight(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	arrived := make(chan struct{}, 1)
	rcv.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		arrived <- struct{}{}
		time.Sleep(150 * time.Millisecond) // a slow receiver
		return false
	})
	a := e.Notifier(t, nil)
	a.Start()
	if err := a.Notify(context.Background(), webhookfakes.Completed("tr-close", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	<-arrived
	a.Close() // must let the attempt finish and store its outcome
	if got := fmt.Sprint(e.Status.Calls()); got != "[{tr-close 200}]" {
		t.Errorf("OnStatus calls %s", got)
	}
	b := e.Notifier(t, nil)
	e.Clock.Advance(time.Hour)
	webhookfakes.DeliverDue(t, b, 0) // delivered once, not repeated after the restart
}

func TestDeliverDueCancelledLeavesDeliveryPending(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	ctx, cancel := context.WithCancel(context.Background())
	rcv.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		io.Copy(io.Discard, r.Body) // lets the server notice the client leaving
		cancel()                    // the caller gives up while the receiver is busy
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return true
	})
	a := e.Notifier(t, nil)
	if err := a.Notify(context.Background(), webhookfakes.Completed("tr-cancel", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DeliverDue(ctx); err == nil {
		t.Error("DeliverDue with a cancelled context returned nil")
	}
	rcv.SetIntercept(nil)
	b := e.Notifier(t, nil)
	webhookfakes.DeliverDue(t, b, 1) // not counted as a failed attempt: still deliverable at once
	if h := rcv.Hits(); len(h) != 1 || h[0].Replied != 200 {
		t.Errorf("after restart: %+v", h)
	}
	if got := fmt.Sprint(e.Status.Calls()); got != "[{tr-cancel 200}]" {
		t.Errorf("OnStatus calls %s", got)
	}
}

func TestRunDeliversPromptlyAndRetriesOnFakeClock(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 500, 500, 200)
	n := e.Notifier(t, func(c *webhook.Config) { c.PollInterval = time.Hour }) // only Notify's wake-up can start it
	n.Start()
	n.Start() // no-op
	t0 := time.Now()
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-run", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	rcv.WaitHits(t, 1)
	t.Logf("Notify to first request: %v", time.Since(t0))
	n.Close()
	<-e.Store.Updates

	// Retries need the poll loop (nothing wakes it): restart with a short poll.
	n2 := e.Notifier(t, nil)
	n2.Start()
	time.Sleep(30 * time.Millisecond)
	if got := len(rcv.Hits()); got != 1 {
		t.Fatalf("retry sent before it was due: %d requests", got)
	}
	e.Clock.Advance(10 * time.Second)
	rcv.WaitHits(t, 2)
	e.Store.WaitUpdate(t) // the retry is scheduled from the answer's time
	e.Clock.Advance(10 * time.Second)
	rcv.WaitHits(t, 3)
	e.Store.WaitUpdate(t)
	e.Clock.Advance(time.Hour)
	time.Sleep(30 * time.Millisecond)
	if got := len(rcv.Hits()); got != 3 {
		t.Errorf("%d requests after the 200, want 3", got)
	}
}

func TestConcurrentDispatchersDeliverOnce(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	var ns []*webhook.Notifier
	for i := 0; i < 3; i++ {
		ns = append(ns, e.Notifier(t, func(c *webhook.Config) { c.Owner = fmt.Sprint("p", i); c.Concurrency = 3 }))
	}
	const total = 60
	for i := 0; i < total; i++ {
		if err := ns[i%3].Notify(context.Background(), webhookfakes.Completed(fmt.Sprintf("tr-%02d", i), rcv.URL)); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	for _, n := range ns {
		n.Start()
	}
	hits := rcv.WaitHits(t, total)
	t.Logf("%d deliveries by 3 dispatchers in %v", total, time.Since(t0))
	time.Sleep(50 * time.Millisecond)
	hits = rcv.Hits()
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Body)
	}
	sort.Strings(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			t.Errorf("delivered twice: %s", ids[i])
		}
	}
	if len(hits) != total {
		t.Errorf("%d requests, want %d", len(hits), total)
	}
	if !strings.Contains(ids[0], "tr-00") {
		t.Errorf("unexpected first body %s", ids[0])
	}
}
