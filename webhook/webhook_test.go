package webhook_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

func TestDeliveryRequest(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	n := e.Notifier(t, nil)
	const query = "customer=acme&job=42&tag=a&tag=b%20c&empty=&enc=%2F%3F%26"
	note := webhookfakes.Completed("tr-1", rcv.URL+"/hooks/earshot?"+query)
	note.HeaderName, note.HeaderValue = "X-Earshot-Secret", "s3cr3t-value"
	if err := n.Notify(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	if len(rcv.Hits()) != 0 {
		t.Fatal("Notify sent the request itself; it must only store it")
	}
	webhookfakes.DeliverDue(t, n, 1)
	hits := rcv.Hits()
	if len(hits) != 1 {
		t.Fatalf("receiver saw %d requests, want 1", len(hits))
	}
	h := hits[0]
	if h.Method != http.MethodPost || h.Path != "/hooks/earshot" {
		t.Errorf("request %s %s, want POST /hooks/earshot", h.Method, h.Path)
	}
	if h.Query != query {
		t.Errorf("query %q, want exactly %q", h.Query, query)
	}
	if ct := h.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if ua := h.Header.Get("User-Agent"); !strings.Contains(ua, "Earshot") {
		t.Errorf("User-Agent %q does not name Earshot", ua)
	}
	if v := h.Header.Get("X-Earshot-Secret"); v != "s3cr3t-value" {
		t.Errorf("auth header %q", v)
	}
	if want := `{"transcript_id":"tr-1","status":"completed"}`; h.Body != want {
		t.Errorf("body %s, want %s", h.Body, want)
	}
	if got := e.Status.Calls(); len(got) != 1 || got[0] != (webhookfakes.StatusCall{ID: "tr-1", Code: 200}) {
		t.Errorf("OnStatus calls %v, want [{tr-1 200}]", got)
	}
	// Nothing left to do, even much later.
	e.Clock.Advance(time.Hour)
	webhookfakes.DeliverDue(t, n, 0)
}

func TestStoredDeliveryIsSealed(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	n := e.Notifier(t, nil)
	note := webhookfakes.Completed("tr-sealed", "https://hooks.example.com/in?token=querysecret")
	note.HeaderName, note.HeaderValue = "Authorization", "Bearer very-secret-header-value"
	if err := n.Notify(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	if len(e.Store.Added) != 1 {
		t.Fatalf("%d deliveries stored, want 1", len(e.Store.Added))
	}
	d := e.Store.Added[0]
	if d.ID == "" || d.TranscriptID != "tr-sealed" || d.Done || d.Attempts != 0 || !d.NextAttempt.Equal(e.Clock.Now()) {
		t.Errorf("stored delivery %+v", d)
	}
	for _, secret := range []string{"very-secret-header-value", "Authorization", "querysecret", "hooks.example.com", "completed"} {
		if bytes.Contains(d.Data, []byte(secret)) {
			t.Errorf("stored Data contains %q in clear", secret)
		}
	}
	// Sealed for this delivery id with this key.
	c, err := transcribe.NewCipher(e.Key)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := c.Open(d.ID, d.Data)
	if err != nil {
		t.Fatalf("Data does not open with the delivery id: %v", err)
	}
	if !bytes.Contains(plain, []byte(base64.StdEncoding.EncodeToString([]byte("Bearer very-secret-header-value")))) {
		t.Errorf("opened Data lacks the header value: %s", plain)
	}
	if _, err := c.Open("another-id", d.Data); err == nil {
		t.Error("Data opens under another id; it must be bound to the delivery id")
	}
}

func TestErrorStatusAndRedactedAudioBodies(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	n := e.Notifier(t, nil)
	ctx := context.Background()
	note := webhookfakes.Completed("tr-err", rcv.URL)
	note.Status = transcribe.StatusError
	if err := n.Notify(ctx, note); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(time.Second)
	audio := transcribe.Notification{Event: transcribe.EventRedactedAudio, TranscriptID: "tr-err", URL: rcv.URL + "/?x=1"}
	if err := n.Notify(ctx, audio); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	hits := rcv.Hits()
	if len(hits) != 2 {
		t.Fatalf("%d requests, want 2", len(hits))
	}
	if want := `{"transcript_id":"tr-err","status":"error"}`; hits[0].Body != want {
		t.Errorf("error body %s, want %s", hits[0].Body, want)
	}
	if want := `{"status":"redacted_audio_ready","redacted_audio_url":"https://earshot.example/v2/redacted-audio/tr-err/sig"}`; hits[1].Body != want {
		t.Errorf("redacted audio body %s, want %s", hits[1].Body, want)
	}
	if hits[1].Query != "x=1" {
		t.Errorf("redacted audio query %q", hits[1].Query)
	}
	// Only the transcript event sets webhook_status_code.
	if got := e.Status.Calls(); len(got) != 1 || got[0] != (webhookfakes.StatusCall{ID: "tr-err", Code: 200}) {
		t.Errorf("OnStatus calls %v, want only [{tr-err 200}]", got)
	}
}

func TestPrivateAddressRefusedByDefault(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	logs := &webhookfakes.LogBuffer{}
	n := e.Notifier(t, func(c *webhook.Config) {
		c.AllowPrivate = false
		c.Logger = logs.Logger()
	})
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-priv", rcv.URL+"?secret=q")); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(10 * time.Second)
	webhookfakes.DeliverDue(t, n, 0)
	if got := len(rcv.Hits()); got != 0 {
		t.Errorf("loopback receiver was reached %d times", got)
	}
	out := logs.String()
	if !strings.Contains(out, "loopback") {
		t.Errorf("log does not explain the refusal:\n%s", out)
	}
	if strings.Contains(out, "secret=q") {
		t.Errorf("log contains the URL query:\n%s", out)
	}
}

func TestOnStatusErrorDoesNotStopDelivery(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	e.Status.Err = errors.New("store down")
	rcv := webhookfakes.NewReceiver(t, e.Clock, 500, 200)
	n := e.Notifier(t, nil)
	n.Notify(context.Background(), webhookfakes.Completed("tr", rcv.URL))
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(10 * time.Second)
	webhookfakes.DeliverDue(t, n, 1)
	if got := len(rcv.Hits()); got != 2 {
		t.Errorf("%d attempts, want 2", got)
	}
}

func TestNotifyValidation(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	n := e.Notifier(t, nil)
	good := webhookfakes.Completed("tr", "https://example.com/hook")
	bad := map[string]func(*transcribe.Notification){
		"unknown event":      func(x *transcribe.Notification) { x.Event = "other" },
		"no transcript id":   func(x *transcribe.Notification) { x.TranscriptID = "" },
		"queued status":      func(x *transcribe.Notification) { x.Status = transcribe.StatusQueued },
		"relative URL":       func(x *transcribe.Notification) { x.URL = "/hook" },
		"ftp URL":            func(x *transcribe.Notification) { x.URL = "ftp://example.com/" },
		"bad URL":            func(x *transcribe.Notification) { x.URL = "http://[::1" },
		"space in URL":       func(x *transcribe.Notification) { x.URL = "https://example.com/hook?a=b c" },
		"bad header name":    func(x *transcribe.Notification) { x.HeaderName, x.HeaderValue = "X Bad", "v" },
		"value without name": func(x *transcribe.Notification) { x.HeaderValue = "v" },
		"CRLF in value":      func(x *transcribe.Notification) { x.HeaderName, x.HeaderValue = "X-A", "v\r\nX-Injected: 1" },
		"redacted no transcript id": func(x *transcribe.Notification) {
			x.Event, x.TranscriptID = transcribe.EventRedactedAudio, ""
		},
	}
	for name, edit := range bad {
		note := good
		edit(&note)
		if err := n.Notify(context.Background(), note); !errors.Is(err, webhook.ErrInvalid) {
			t.Errorf("%s: Notify = %v, want ErrInvalid", name, err)
		}
	}
	// Without a URL renderer a redacted-audio webhook cannot be made.
	plain := e.Notifier(t, func(c *webhook.Config) { c.RedactedAudioURL = nil })
	audio := good
	audio.Event = transcribe.EventRedactedAudio
	if err := plain.Notify(context.Background(), audio); !errors.Is(err, webhook.ErrInvalid) {
		t.Errorf("redacted audio without a renderer: Notify = %v, want ErrInvalid", err)
	}
	if len(e.Store.Added) != 0 {
		t.Errorf("invalid notifications were stored: %d", len(e.Store.Added))
	}
	if err := n.Notify(context.Background(), good); err != nil {
		t.Errorf("good notification: %v", err)
	}
}

func TestConfigValidation(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	key := e.Key
	cases := map[string]webhook.Config{
		"no queue":         {Key: key},
		"no key":           {Queue: e.Store},
		"short key":        {Queue: e.Store, Key: key[:16]},
		"negative timeout": {Queue: e.Store, Key: key, Timeout: -1},
		"negative poll":    {Queue: e.Store, Key: key, PollInterval: -1},
		"negative conc":    {Queue: e.Store, Key: key, Concurrency: -1},
		"lease <= timeout": {Queue: e.Store, Key: key, Timeout: 10 * time.Second, Lease: 5 * time.Second},
		"lease <= default": {Queue: e.Store, Key: key, Lease: 10 * time.Second},
	}
	for name, cfg := range cases {
		if _, err := webhook.New(cfg); err == nil || !strings.HasPrefix(err.Error(), "webhook: Config.") {
			t.Errorf("%s: New = %v, want an error naming the field", name, err)
		}
	}
	if _, err := webhook.New(webhook.Config{Queue: e.Store, Key: key}); err != nil {
		t.Errorf("minimal config: %v", err)
	}
}

func TestWrongKeyDropsDelivery(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	n := e.Notifier(t, nil)
	n.Notify(context.Background(), webhookfakes.Completed("tr", rcv.URL))
	other := *e
	other.Key = transcribe.NewKey()
	n2 := other.Notifier(t, nil)
	webhookfakes.DeliverDue(t, n2, 1)
	if len(rcv.Hits()) != 0 {
		t.Error("a delivery that cannot be decrypted was sent")
	}
	webhookfakes.DeliverDue(t, n, 0) // it was dropped, not left to loop
}

// The default client refuses the cloud metadata address without trying to
// connect, and says so in the log.
func TestDefaultClientIsGuarded(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	logs := &webhookfakes.LogBuffer{}
	n := e.Notifier(t, func(c *webhook.Config) {
		c.AllowPrivate = false
		c.Logger = logs.Logger()
	})
	n.Notify(context.Background(), webhookfakes.Completed("tr", "http://169.254.169.254/latest/meta-data/"))
	t0 := time.Now()
	webhookfakes.DeliverDue(t, n, 1)
	if el := time.Since(t0); el > time.Second {
		t.Errorf("refusal took %v; it should not dial", el)
	}
	e.Clock.Advance(time.Minute)
	webhookfakes.DeliverDue(t, n, 0)
	if out := logs.String(); !strings.Contains(out, "169.254.169.254") || !strings.Contains(out, "link-local") {
		t.Errorf("log does not explain the refusal:\n%s", out)
	}
}

// deadlineQueue records how much time the context of each UpdateDelivery
// had left.
type deadlineQueue struct {
	webhook.Queue
	mu   sync.Mutex
	left []time.Duration
}

func (q *deadlineQueue) UpdateDelivery(ctx context.Context, d *webhook.Delivery) error {
	if dl, ok := ctx.Deadline(); ok {
		q.mu.Lock()
		q.left = append(q.left, time.Until(dl))
		q.mu.Unlock()
	}
	return q.Queue.UpdateDelivery(ctx, d)
}

// TestSlowReceiverOutcomeStored: a receiver slower than the attempt
// timeout is tried once (a timeout is "cannot be reached": no retries) and
// the outcome is stored with a context of its own, started after the
// attempt, so that it is never lost to the attempt's used-up time (which
// made the delivery go out again every time its lease ran out).
func TestSlowReceiverOutcomeStored(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	var hits atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	q := &deadlineQueue{Queue: e.Store}
	n := e.Notifier(t, func(c *webhook.Config) { c.Queue = q; c.Timeout = 1500 * time.Millisecond })
	if err := n.Notify(context.Background(), webhookfakes.Completed("tr-slow", srv.URL)); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(time.Hour) // any lease and retry time is long past
	webhookfakes.DeliverDue(t, n, 0)
	if hits.Load() != 1 {
		t.Errorf("slow receiver got %d requests, want 1", hits.Load())
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.left) != 1 || q.left[0] < 9*time.Second {
		t.Errorf("outcome stored with %v left on its context, want a fresh ~10s", q.left)
	}
}

// TestRunPurgesFinished: a running dispatcher deletes finished deliveries
// once they are older than KeepDone, and keeps younger ones.
func TestRunPurgesFinished(t *testing.T) {
	e := webhookfakes.NewEnv(t)
	rcv := webhookfakes.NewReceiver(t, e.Clock, 200)
	n := e.Notifier(t, func(c *webhook.Config) { c.KeepDone = time.Hour; c.PurgeInterval = 10 * time.Millisecond })
	ctx := context.Background()
	if err := n.Notify(ctx, webhookfakes.Completed("tr-old", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	e.Clock.Advance(2 * time.Hour)
	if err := n.Notify(ctx, webhookfakes.Completed("tr-new", rcv.URL)); err != nil {
		t.Fatal(err)
	}
	webhookfakes.DeliverDue(t, n, 1)
	e.Store.Mu.Lock()
	old, young := e.Store.Added[0], e.Store.Added[1]
	e.Store.Mu.Unlock()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { n.Run(runCtx); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := e.Store.Queue.AddDelivery(ctx, &webhook.Delivery{ID: old.ID, TranscriptID: "probe", Done: true, NextAttempt: e.Clock.Now()})
		if err == nil {
			break // purged
		}
		if time.Now().After(deadline) {
			t.Fatalf("the old finished delivery was not purged: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if err := e.Store.Queue.AddDelivery(ctx, &webhook.Delivery{ID: young.ID, TranscriptID: "probe"}); !errors.Is(err, transcribe.ErrExists) {
		t.Errorf("the young finished delivery was purged: %v", err)
	}
}
