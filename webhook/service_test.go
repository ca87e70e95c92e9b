package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
	"github.com/earshot-dev/earshot/webhook"
)

type fakeFetcher struct{}

func (fakeFetcher) Fetch(ctx context.Context, url string, w io.Writer) (int64, error) {
	n, err := w.Write([]byte("not really audio"))
	return int64(n), err
}

// toneDecoder returns one second of a non-silent signal for any file.
type toneDecoder struct{}

func (toneDecoder) Decode(ctx context.Context, path string, sampleRate int, keepChannels bool) (*transcribe.PCM, error) {
	s := make([]int16, sampleRate)
	for i := range s {
		s[i] = int16((i%40 - 20) * 500)
	}
	return &transcribe.PCM{SampleRate: sampleRate, Channels: [][]int16{s}}, nil
}

// TestWithService wires a Notifier into a transcribe.Service the way a
// server does and checks the whole path: the transcript completes, the
// webhook arrives with the auth header and query, and webhook_status_code
// shows the receiver's last answer.
func TestWithService(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []int
		want     int64
		attempts int
	}{
		{"accepted", []int{200}, 200, 1},
		{"retried then accepted", []int{502, 200}, 200, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := webhookfakes.NewClock()
			rcv := webhookfakes.NewReceiver(t, c, tc.statuses...)
			store := memory.New()
			defer store.Close()
			rec := webhookfakes.NewRecordingStore(store, 10)
			// Built in dependency order, as a server does: the notifier
			// first (queue, its own key, the store's webhook status), then
			// the Service that notifies it.
			hooks, err := webhook.New(webhook.Config{
				Queue: rec, Key: transcribe.NewKey(), AllowPrivate: true,
				OnStatus: store.SetWebhookStatus, Now: c.Now, PollInterval: 5 * time.Millisecond,
				Logger: webhookfakes.QuietLogger(),
			})
			if err != nil {
				t.Fatal(err)
			}
			svc, err := transcribe.NewService(transcribe.Config{
				Store: store, Blobs: memory.NewBlobStore(), Key: transcribe.NewKey(),
				Recognizer: &transcribetest.FakeRecognizer{Text: "hello webhook world"},
				Decoder:    toneDecoder{}, Fetcher: fakeFetcher{}, AllowPrivateURLs: true,
				Workers: 1, PollInterval: 10 * time.Millisecond, Notifier: hooks,
				Logger: webhookfakes.QuietLogger(),
			})
			if err != nil {
				t.Fatal(err)
			}
			svc.Start()
			defer svc.Close(context.Background())
			hooks.Start()
			defer hooks.Close()

			var p transcribe.TranscriptParams
			if err := json.Unmarshal([]byte(`{"audio_url":"https://media.example/a.wav",
				"webhook_url":"`+rcv.URL+`/done?customer=acme&n=1",
				"webhook_auth_header_name":"X-Hook-Token","webhook_auth_header_value":"t0ken"}`), &p); err != nil {
				t.Fatal(err)
			}
			tr, err := svc.Submit(context.Background(), "proj", transcribe.SubmitRequest{Params: p})
			if err != nil {
				t.Fatal(err)
			}
			hits := rcv.WaitHits(t, 1)
			for i := 1; i < tc.attempts; i++ {
				rec.WaitUpdate(t) // the retry is scheduled; now move the clock
				c.Advance(10 * time.Second)
				hits = rcv.WaitHits(t, i+1)
			}
			h := hits[0]
			if h.Query != "customer=acme&n=1" || h.Header.Get("X-Hook-Token") != "t0ken" ||
				h.Body != `{"transcript_id":"`+tr.ID+`","status":"completed"}` {
				t.Errorf("webhook request %+v", h)
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				got, err := svc.Get(context.Background(), "proj", tr.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.WebhookStatusCode != nil && *got.WebhookStatusCode == tc.want {
					if got.Status != transcribe.StatusCompleted || !got.WebhookAuth {
						t.Errorf("transcript status %s webhook_auth %v", got.Status, got.WebhookAuth)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("webhook_status_code = %v, want %d", got.WebhookStatusCode, tc.want)
				}
				time.Sleep(5 * time.Millisecond)
			}
			if got := len(rcv.Hits()); got != tc.attempts {
				t.Errorf("%d webhook requests, want %d", got, tc.attempts)
			}
		})
	}
}
