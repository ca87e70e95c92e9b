package webhook_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

func Example() {
	// A receiver that fails once, then accepts.
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		calls++
		fmt.Printf("POST %s?%s %s auth=%q\n", r.URL.Path, r.URL.RawQuery, body, r.Header.Get("X-Secret"))
		if calls == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()

	store := memory.New()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n, err := webhook.New(webhook.Config{
		Queue:        store,
		Key:          transcribe.NewKey(),
		AllowPrivate: true, // the receiver is on loopback
		Logger:       slog.New(slog.DiscardHandler),
		Now:          func() time.Time { return now },
		OnStatus: func(ctx context.Context, id string, code int) error {
			fmt.Println("webhook_status_code of", id, "=", code)
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	// In a server: n.Start(); defer n.Close(). Here the fake clock drives it.
	ctx := context.Background()
	n.Notify(ctx, transcribe.Notification{
		Event: transcribe.EventTranscript, TranscriptID: "5551722-f677-48a6", Status: transcribe.StatusCompleted,
		URL: srv.URL + "/hook?customer=acme", HeaderName: "X-Secret", HeaderValue: "s3cret",
	})
	n.DeliverDue(ctx)
	now = now.Add(10 * time.Second) // the spec's retry interval
	n.DeliverDue(ctx)
	// Output:
	// POST /hook?customer=acme {"transcript_id":"5551722-f677-48a6","status":"completed"} auth="s3cret"
	// webhook_status_code of 5551722-f677-48a6 = 503
	// POST /hook?customer=acme {"transcript_id":"5551722-f677-48a6","status":"completed"} auth="s3cret"
	// webhook_status_code of 5551722-f677-48a6 = 200
}
