package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/webhook"
)

func TestTenRetriesTenSecondsApart(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 500)
	n := e.Notifier(t, nil)
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-500", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	start := e.Clock.Now()
	webhookfakes.DeliverDue(t, n, 1)
	for retry := 1; retry <= 10; retry++ {
		e.Clock.Advance(10*time.Second - time.Millisecond)
		webhookfakes.DeliverDue(t, n, 0) // not yet due
		e.Clock.Advance(time.Millisecond)
		webhookfakes.DeliverDue(t, n, 1)
	}
	e.Clock.Advance(24 * time.Hour)
	webhookfakes.DeliverDue(t, n, 0) // permanently failed
	hits := rcv.Hits()
	if len(hits) != 11 {
		t.Fatalf("receiver saw %d attempts, want 1 + 10 retries", len(hits))
	}
	for i, h := range hits {
		if want := start.Add(time.Duration(i) * 10 * time.Second); !h.At.Equal(want) {
			t.Errorf("attempt %d at +%v, want +%v", i, h.At.Sub(start), want.Sub(start))
		}
		if h.Body != `{"transcript_id":"tr-500","status":"completed"}` {
			t.Errorf("attempt %d body %s", i, h.Body)
		}
	}
	calls := e.Status.Calls()
	if len(calls) != 11 {
		t.Fatalf("OnStatus called %d times, want 11", len(calls))
	}
	for _, c := range calls {
		if c != (webhookfakes.StatusCall{ID: "tr-500", Code: 500}) {
			t.Errorf("OnStatus %v, want {tr-500 500}", c)
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 500, 503, 200, 500)
	n := e.Notifier(t, nil)
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-ok", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(10 * time.Second)
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(10 * time.Second)
	webhookfakes.DeliverDue(t, n, 1)
	for i := 0; i < 5; i++ {
		e.Clock.Advance(10 * time.Second)
		webhookfakes.DeliverDue(t, n, 0)
	}
	if got := len(rcv.Hits()); got != 3 {
		t.Errorf("receiver saw %d attempts, want 3 (stop after the 200)", got)
	}
	calls := e.Status.Calls()
	want := []webhookfakes.StatusCall{{ID: "tr-ok", Code: 500}, {ID: "tr-ok", Code: 503}, {ID: "tr-ok", Code: 200}}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("OnStatus calls %v, want %v", calls, want)
	}
}

func TestNon200SuccessCodesAreRetried(t *testing.T) {
	// The spec: success is a 200 response; 201, 204 and redirects are not.
	for _, code := range []int{201, 204, 302, 404} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			e := webhookfakes.NewEnv(t)
			var otherHits int
			var mu sync.Mutex
			rcv := webhookfakes.NewReceiver(t, e.Clock, code, 200)
			rcv.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
				if r.URL.Path == "/elsewhere" {
					mu.Lock()
					otherHits++
					mu.Unlock()
					return true
				}
				if code == 302 && len(rcv.Hits()) == 0 {
					w.Header().Set("Location", "/elsewhere")
				}
				return false
			})
			n := e.Notifier(t, nil)
			if err := n.Notify(context.Background(), webhookfakes.Completed("tr", rcv.URL)); err != nil {
				t.Fatal(err)
			}
			webhookfakes.DeliverDue(t, n, 1)
			e.Clock.Advance(10 * time.Second)
			webhookfakes.DeliverDue(t, n, 1)
			e.Clock.Advance(10 * time.Second)
			webhookfakes.DeliverDue(t, n, 0)
			if got := fmt.Sprint(e.Status.Calls()); got != fmt.Sprintf("[{tr %d} {tr 200}]", code) {
				t.Errorf("OnStatus calls %s", got)
			}
			if otherHits != 0 {
				t.Error("the redirect was followed")
			}
		})
	}
}

func closedPortURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/hook"
}

func TestUnreachableIsNotRetried(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	n := e.Notifier(t, nil)
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-down", closedPortURL(t))); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	for i := 0; i < 3; i++ {
		e.Clock.Advance(10 * time.Second)
		webhookfakes.DeliverDue(t, n, 0)
	}
	e.Clock.Advance(24 * time.Hour)
	webhookfakes.DeliverDue(t, n, 0)
	if got := e.Status.Calls(); len(got) != 0 {
		t.Errorf("OnStatus called %v for an unreachable URL", got)
	}
}

func TestUnknownHostIsNotRetried(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	n := e.Notifier(t, nil)
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-dns", "http://no-such-host.invalid/hook")); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(10 * time.Second)
	webhookfakes.DeliverDue(t, n, 0)
}

func TestTimeoutIsNotRetried(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	release := make(chan struct{})
	defer close(release)
	rcv.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		rcv.Mu.Lock()
		rcv.Seen = append(rcv.Seen, webhookfakes.Hit{Method: r.Method})
		rcv.Mu.Unlock()
		select { // hang until the client gives up
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})
	n := e.Notifier(t, func(c *webhook.Config) { c.Timeout = 150 * time.Millisecond })
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-slow", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	webhookfakes.DeliverDue(t, n, 1)
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("attempt took %v with a 150ms timeout", el)
	}
	e.Clock.Advance(10 * time.Second)
	webhookfakes.DeliverDue(t, n, 0)
	if got := len(rcv.Hits()); got != 1 {
		t.Errorf("receiver saw %d attempts, want 1", got)
	}
	if got := e.Status.Calls(); len(got) != 0 {
		t.Errorf("OnStatus called %v after a timeout", got)
	}
}

func TestCustomPolicy(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 500)
	var backoffArgs []int
	n := e.Notifier(t, func(c *webhook.Config) {
		c.Policy = webhook.Policy{
			MaxRetries: 2,
			Backoff: func(retry int, resp *http.Response) time.Duration {
				if resp == nil || resp.StatusCode != 500 {
					t.Errorf("Backoff got response %v", resp)
				}
				backoffArgs = append(backoffArgs, retry)
				return time.Duration(retry) * time.Minute
			},
		}
	})
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-pol", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(time.Minute)
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(2*time.Minute - time.Second)
	webhookfakes.DeliverDue(t, n, 0)
	e.Clock.Advance(time.Second)
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(time.Hour)
	webhookfakes.DeliverDue(t, n, 0)
	if fmt.Sprint(backoffArgs) != "[1 2]" {
		t.Errorf("Backoff called with %v, want [1 2]", backoffArgs)
	}

	// No retries at all, and a CheckRetry that treats 500 as success.
	e2 := webhookfakes.NewEnv(t)
	rcv2 := webhookfakes.NewReceiver(t, e2.Clock, 500)
	n2 := e2.Notifier(t, func(c *webhook.Config) { c.Policy = webhook.Policy{MaxRetries: -1} })
	n2.Notify(context.Background(), webhookfakes.Completed("a", rcv2.URL))
	webhookfakes.DeliverDue(t, n2, 1)
	e2.Clock.Advance(time.Hour)
	webhookfakes.DeliverDue(t, n2, 0)

	e3 := webhookfakes.NewEnv(t)
	rcv3 := webhookfakes.NewReceiver(t, e3.Clock, 500)
	n3 := e3.Notifier(t, func(c *webhook.Config) {
		c.Policy.CheckRetry = func(ctx context.Context, resp *http.Response, err error) webhook.Outcome {
			if resp != nil && resp.StatusCode == 500 {
				return webhook.Delivered
			}
			return webhook.Fail
		}
	})
	n3.Notify(context.Background(), webhookfakes.Completed("b", rcv3.URL))
	webhookfakes.DeliverDue(t, n3, 1)
	e3.Clock.Advance(time.Hour)
	webhookfakes.DeliverDue(t, n3, 0)
}

func TestDefaultPolicy(t *testing.T) {
	p := webhook.DefaultPolicy()
	if p.MaxRetries != 10 || p.Backoff(1, nil) != 10*time.Second || p.Backoff(10, nil) != 10*time.Second {
		t.Errorf("DefaultPolicy %+v does not match the spec", p)
	}
	ctx := context.Background()
	for code, want := range map[int]webhook.Outcome{200: webhook.Delivered, 201: webhook.Retry, 204: webhook.Retry, 301: webhook.Retry, 400: webhook.Retry, 500: webhook.Retry, 503: webhook.Retry} {
		if got := p.CheckRetry(ctx, &http.Response{StatusCode: code}, nil); got != want {
			t.Errorf("CheckRetry(%d) = %v, want %v", code, got, want)
		}
	}
	if got := p.CheckRetry(ctx, nil, errors.New("connection refused")); got != webhook.Fail {
		t.Errorf("CheckRetry(unreachable) = %v, want Fail", got)
	}
}
