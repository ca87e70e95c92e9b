package postgres

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
	"github.com/earshot-dev/earshot/webhook"
)

// toneWAV is a second of a 440 Hz tone as a 16 kHz mono WAV file.
func toneWAV(t *testing.T) []byte {
	t.Helper()
	pcm := &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{make([]int16, 16000)}}
	for i := range pcm.Channels[0] {
		pcm.Channels[0][i] = int16(6000 * math.Sin(2*math.Pi*440*float64(i)/16000))
	}
	var b bytes.Buffer
	if err := media.WriteWAV(&b, pcm); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The whole Service runs on this store: a transcript is uploaded,
// submitted, processed by a worker that claims it from PostgreSQL, its
// webhook is queued in PostgreSQL and delivered, and its status code is
// recorded. Then every byte the database holds for it is read back raw:
// the transcript's words, the webhook URL and its auth header never appear
// in clear (the Service and the Notifier seal them before they reach any
// Store).
func TestServiceSealedAtRest(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	store := openTest(t, url, "")
	ctx := context.Background()

	const (
		words      = "zebra umbrella xylophone"
		hookPath   = "/hooks/quokka-path"
		hookSecret = "hook-secret-narwhal"
	)
	var (
		mu    sync.Mutex
		hooks []string
	)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		hooks = append(hooks, r.URL.Path+" "+r.Header.Get("X-Hook-Auth")+" "+string(body))
		mu.Unlock()
	}))
	defer receiver.Close()

	notifier, err := webhook.New(webhook.Config{
		Queue: store, Key: transcribe.NewKey(), OnStatus: store.SetWebhookStatus,
		AllowPrivate: true, PollInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	notifier.Start()
	defer notifier.Close()
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := transcribe.NewService(transcribe.Config{
		Store: store, Blobs: memory.NewBlobStore(), Decoder: dec, Key: transcribe.NewKey(),
		Recognizer: &transcribetest.FakeRecognizer{Text: words},
		Notifier:   notifier, AllowPrivateURLs: true, Workers: 1, PollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	svc.Start()
	defer svc.Close(ctx)

	up, err := svc.Upload(ctx, "project-1", bytes.NewReader(toneWAV(t)))
	if err != nil {
		t.Fatal(err)
	}
	hookURL, name, value := receiver.URL+hookPath, "X-Hook-Auth", hookSecret
	tr, err := svc.Submit(ctx, "project-1", transcribe.SubmitRequest{UploadID: up.ID, Params: transcribe.TranscriptParams{
		WebhookURL: &hookURL, WebhookAuthHeaderName: &name, WebhookAuthHeaderValue: &value,
	}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if tr, err = svc.Get(ctx, "project-1", tr.ID); err != nil {
			t.Fatal(err)
		}
		rec, err := store.Get(ctx, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Status.Final() && rec.WebhookStatus == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("transcript %s: status %s, webhook status %d after 30s", tr.ID, tr.Status, rec.WebhookStatus)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if tr.Status != transcribe.StatusCompleted || tr.Text == nil || !strings.Contains(strings.ToLower(*tr.Text), "zebra umbrella") {
		t.Fatalf("transcript: status %s text %v", tr.Status, tr.Text)
	}
	mu.Lock()
	got := strings.Join(hooks, "\n")
	mu.Unlock()
	if !strings.Contains(got, hookPath+" "+hookSecret) || !strings.Contains(got, tr.ID) {
		t.Errorf("webhook requests: %q", got)
	}

	// Everything the database holds, as raw bytes.
	conn := admin(t, url)
	var dump bytes.Buffer
	for _, table := range []string{"transcripts", "uploads", "deliveries"} {
		rows, err := conn.Query(ctx, `SELECT t::text FROM `+pgx.Identifier{"earshot", table}.Sanitize()+` AS t`)
		if err != nil {
			t.Fatal(err)
		}
		texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			dump.WriteString(s + "\n")
		}
		// bytea renders as hex in text; read the binary too.
		if table != "uploads" {
			rows, err := conn.Query(ctx, `SELECT data FROM `+pgx.Identifier{"earshot", table}.Sanitize())
			if err != nil {
				t.Fatal(err)
			}
			blobs, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range blobs {
				dump.Write(b)
			}
		}
	}
	if !strings.Contains(dump.String(), tr.ID) {
		t.Fatalf("the dump does not even hold the transcript id: %q", dump.String())
	}
	for _, secret := range []string{"zebra", "umbrella", "xylophone", "quokka", hookSecret, receiver.URL} {
		if bytes.Contains(bytes.ToLower(dump.Bytes()), []byte(strings.ToLower(secret))) {
			t.Errorf("the database holds %q in clear", secret)
		}
	}
}
