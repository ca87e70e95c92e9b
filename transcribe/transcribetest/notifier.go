package transcribetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// notifierWait is how long the suite waits for a background delivery.
const notifierWait = 15 * time.Second

// RunNotifierTests checks a transcribe.Notifier that sends webhooks over
// HTTP against the spec's "Webhook" rules, with a real receiver
// (httptest.Server on 127.0.0.1):
//
//   - a POST to the URL with every query parameter kept exactly, content
//     type application/json, the auth header when HeaderName is set (and
//     none when it is not);
//   - the body {"transcript_id","status"} (status "completed" or "error")
//     for EventTranscript, and {"status":"redacted_audio_ready",
//     "redacted_audio_url"} for EventRedactedAudio, with no other keys;
//   - Notify returns promptly while the receiver is still busy (delivery
//     happens in the background);
//   - many concurrent Notify calls are each delivered.
//
// newNotifier must return a fresh Notifier that delivers on its own (a
// durable one already started, stopped by a t.Cleanup) with its default
// retry policy, that may reach loopback addresses, and that renders the
// redacted_audio_url of a transcript with redactedAudioURL (the Service
// is transport-neutral: the notifier, configured by whoever serves the
// API, makes the URL). Retry timing (10 retries 10 s apart) needs a fake
// clock and is left to the implementation's own tests.
func RunNotifierTests(t *testing.T, newNotifier func(t *testing.T, redactedAudioURL func(transcriptID string) string) transcribe.Notifier) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, n transcribe.Notifier)
	}{
		{"TranscriptCompleted", testNotifyCompleted},
		{"TranscriptError", testNotifyError},
		{"NoAuthHeader", testNotifyNoAuth},
		{"RedactedAudio", testNotifyRedactedAudio},
		{"NotifyReturnsPromptly", testNotifyPrompt},
		{"Concurrent", testNotifyConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newNotifier(t, suiteRedactedAudioURL)
			if n == nil {
				t.Fatal("newNotifier returned nil")
			}
			tc.fn(t, n)
		})
	}
}

// webhookHit is one request seen by a webhookReceiver.
type webhookHit struct {
	method, path, rawQuery string
	header                 http.Header
	body                   []byte
}

type webhookReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	hits  []webhookHit
	ch    chan struct{}
	delay time.Duration
}

func newWebhookReceiver(t *testing.T, delay time.Duration) *webhookReceiver {
	t.Helper()
	r := &webhookReceiver{ch: make(chan struct{}, 1024), delay: delay}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if r.delay > 0 {
			select {
			case <-time.After(r.delay):
			case <-req.Context().Done():
			}
		}
		r.mu.Lock()
		r.hits = append(r.hits, webhookHit{req.Method, req.URL.Path, req.URL.RawQuery, req.Header.Clone(), body})
		r.mu.Unlock()
		select {
		case r.ch <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// wait returns the hits once there are at least n, failing after
// notifierWait.
func (r *webhookReceiver) wait(t *testing.T, n int) []webhookHit {
	t.Helper()
	deadline := time.After(notifierWait)
	for {
		r.mu.Lock()
		hits := append([]webhookHit(nil), r.hits...)
		r.mu.Unlock()
		if len(hits) >= n {
			return hits
		}
		select {
		case <-r.ch:
		case <-deadline:
			t.Fatalf("the receiver got %d webhook requests within %v, want %d", len(hits), notifierWait, n)
		}
	}
}

func mustNotify(t *testing.T, n transcribe.Notifier, note transcribe.Notification) {
	t.Helper()
	if err := n.Notify(context.Background(), note); err != nil {
		t.Fatalf("Notify(%+v): %v", note, err)
	}
}

// checkWebhook checks method, query, content type and the exact JSON body.
func checkWebhook(t *testing.T, h webhookHit, path, rawQuery string, want map[string]string) {
	t.Helper()
	if h.method != http.MethodPost {
		t.Errorf("method %s, want POST", h.method)
	}
	if h.path != path || h.rawQuery != rawQuery {
		t.Errorf("request target %s?%s, want %s?%s (query kept exactly)", h.path, h.rawQuery, path, rawQuery)
	}
	if mt, _, err := mime.ParseMediaType(h.header.Get("Content-Type")); err != nil || mt != "application/json" {
		t.Errorf("Content-Type %q, want application/json", h.header.Get("Content-Type"))
	}
	var got map[string]any
	dec := json.NewDecoder(bytes.NewReader(h.body))
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", h.body, err)
	}
	if len(got) != len(want) {
		t.Errorf("body %s has keys %v, want exactly %v", h.body, keys(got), want)
	}
	for k, v := range want {
		if s, ok := got[k].(string); !ok || s != v {
			t.Errorf("body %s: %s = %#v, want %q", h.body, k, got[k], v)
		}
	}
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func testNotifyCompleted(t *testing.T, n transcribe.Notifier) {
	r := newWebhookReceiver(t, 0)
	const q = "customer=acme&tag=a&tag=b%20c&empty=&enc=%2F%3F%26"
	mustNotify(t, n, transcribe.Notification{
		Event: transcribe.EventTranscript, TranscriptID: "7a1b6c3e-0d9f-4e52-9a51-3f0c2d4e5b6a", ProjectID: "p",
		Status: transcribe.StatusCompleted, URL: r.srv.URL + "/hooks/in?" + q,
		HeaderName: "X-Webhook-Secret", HeaderValue: "hush hush",
	})
	h := r.wait(t, 1)[0]
	checkWebhook(t, h, "/hooks/in", q, map[string]string{"transcript_id": "7a1b6c3e-0d9f-4e52-9a51-3f0c2d4e5b6a", "status": "completed"})
	if v := h.header.Get("X-Webhook-Secret"); v != "hush hush" {
		t.Errorf("auth header value %q, want %q", v, "hush hush")
	}
}

func testNotifyError(t *testing.T, n transcribe.Notifier) {
	r := newWebhookReceiver(t, 0)
	mustNotify(t, n, transcribe.Notification{
		Event: transcribe.EventTranscript, TranscriptID: "e-1", ProjectID: "p",
		Status: transcribe.StatusError, URL: r.srv.URL + "/",
	})
	checkWebhook(t, r.wait(t, 1)[0], "/", "", map[string]string{"transcript_id": "e-1", "status": "error"})
}

func testNotifyNoAuth(t *testing.T, n transcribe.Notifier) {
	r := newWebhookReceiver(t, 0)
	mustNotify(t, n, transcribe.Notification{
		Event: transcribe.EventTranscript, TranscriptID: "n-1", ProjectID: "p",
		Status: transcribe.StatusCompleted, URL: r.srv.URL + "/x?y=1",
	})
	h := r.wait(t, 1)[0]
	for _, name := range []string{"Authorization", "X-Webhook-Secret"} {
		if v := h.header.Get(name); v != "" {
			t.Errorf("unexpected %s header %q without HeaderName", name, v)
		}
	}
}

// suiteRedactedAudioURL is the URL renderer the suite hands the notifier.
func suiteRedactedAudioURL(id string) string {
	return "https://earshot.example/v2/redacted-audio/" + id + "/sig?x=1&y=%2F"
}

func testNotifyRedactedAudio(t *testing.T, n transcribe.Notifier) {
	r := newWebhookReceiver(t, 0)
	mustNotify(t, n, transcribe.Notification{
		Event: transcribe.EventRedactedAudio, TranscriptID: "r-1", ProjectID: "p",
		URL: r.srv.URL + "/hook?id=r-1",
	})
	checkWebhook(t, r.wait(t, 1)[0], "/hook", "id=r-1", map[string]string{"status": "redacted_audio_ready", "redacted_audio_url": suiteRedactedAudioURL("r-1")})
}

func testNotifyPrompt(t *testing.T, n transcribe.Notifier) {
	r := newWebhookReceiver(t, 2*time.Second)
	start := time.Now()
	mustNotify(t, n, transcribe.Notification{
		Event: transcribe.EventTranscript, TranscriptID: "slow-1", ProjectID: "p",
		Status: transcribe.StatusCompleted, URL: r.srv.URL + "/slow",
	})
	if el := time.Since(start); el > time.Second {
		t.Errorf("Notify took %v with a receiver that answers after 2s; delivery must happen in the background", el)
	}
	r.wait(t, 1)
}

func testNotifyConcurrent(t *testing.T, n transcribe.Notifier) {
	r := newWebhookReceiver(t, 0)
	const count = 20
	var wg sync.WaitGroup
	for i := 0; i < count; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := n.Notify(context.Background(), transcribe.Notification{
				Event: transcribe.EventTranscript, TranscriptID: fmt.Sprintf("c-%02d", i), ProjectID: "p",
				Status: transcribe.StatusCompleted, URL: r.srv.URL + "/c",
			})
			if err != nil {
				t.Errorf("Notify %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	hits := r.wait(t, count)
	seen := map[string]bool{}
	for _, h := range hits {
		var b struct {
			TranscriptID string `json:"transcript_id"`
		}
		json.Unmarshal(h.body, &b)
		seen[b.TranscriptID] = true
	}
	for i := 0; i < count; i++ {
		if id := fmt.Sprintf("c-%02d", i); !seen[id] {
			t.Errorf("notification %s was not delivered", id)
		}
	}
}
