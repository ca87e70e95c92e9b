package pii_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
)

// TestServiceRedactsEverywhere runs the done-when example through
// a real Service (embedded pocketsphinx, media decoder, the default
// pipeline with speaker labels and entity detection) and checks that the
// name and number appear nowhere in the transcript the API returns - text,
// words, utterances, entities - and that the redacted audio and its
// webhook are there.
var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestServiceRedactsEverywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes speech")
	}
	rec, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		t.Fatalf("pocketsphinx: %v (./scripts/setup.sh installs it)", err)
	}
	defer rec.Close()
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	notes := make(chan transcribe.Notification, 4)
	blobs := memory.NewBlobStore()
	svc, err := transcribe.NewService(transcribe.Config{
		Store: memory.New(), Blobs: blobs, Recognizer: rec, Decoder: dec, Key: transcribe.NewKey(),
		Workers: 1, PollInterval: 10 * time.Millisecond, Stages: pipeline.Default(pipeline.Options{}),
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Notifier: transcribe.NotifierFunc(func(ctx context.Context, n transcribe.Notification) error { notes <- n; return nil }),
	})
	if err != nil {
		t.Fatal(err)
	}
	svc.Start()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Close(ctx)
	}()
	ctx := context.Background()
	wav, err := os.ReadFile(testaudio.Speech(t, "slt", "hi my name is sarah johnson and my number is five five five one two three four"))
	if err != nil {
		t.Fatal(err)
	}
	up, err := svc.Upload(ctx, "p1", bytes.NewReader(wav))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	hook := "https://hooks.example/done"
	p := transcribe.TranscriptParams{RedactPII: &yes, RedactPIIAudio: &yes,
		RedactPIIPolicies: []string{"person_name", "phone_number"}, EntityDetection: &yes, SpeakerLabels: &yes, WebhookURL: &hook}
	tr, err := svc.Submit(ctx, "p1", transcribe.SubmitRequest{Params: p, UploadID: up.ID})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for tr.Status != transcribe.StatusCompleted && tr.Status != transcribe.StatusError && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if tr, err = svc.Get(ctx, "p1", tr.ID); err != nil {
			t.Fatal(err)
		}
	}
	if tr.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s, error %v", tr.Status, tr.Error)
	}
	body, err := json.Marshal(tr.Public())
	if err != nil {
		t.Fatal(err)
	}
	// Ids are random hex: they may hold "555" by chance.
	low := uuidRE.ReplaceAllString(strings.ToLower(string(body)), "<id>")
	for _, secret := range []string{"sarah", "johnson", "555", "1234"} {
		if strings.Contains(low, secret) {
			t.Errorf("%q appears in the transcript JSON", secret)
		}
	}
	if !strings.Contains(*tr.Text, "my name is ##### ####### and my number is ########") {
		t.Errorf("text %q", *tr.Text)
	}
	if len(tr.Utterances) == 0 || !strings.Contains(tr.Utterances[0].Text, "#####") {
		t.Errorf("utterances %+v", tr.Utterances)
	}
	var types []string
	for _, e := range tr.Entities {
		types = append(types, e.EntityType+":"+e.Text)
	}
	if strings.Join(types, " | ") != "person_name:##### ####### | phone_number:########" {
		t.Errorf("entities %v", types)
	}
	ra, err := svc.RedactedAudio(ctx, "p1", tr.ID)
	if err != nil || ra.Format != "mp3" {
		t.Fatalf("RedactedAudio: %+v %v", ra, err)
	}
	rc, _, err := svc.OpenRedactedAudio(ctx, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	mp3, _ := io.ReadAll(rc)
	rc.Close()
	if len(mp3) < 1000 || !(bytes.HasPrefix(mp3, []byte("ID3")) || mp3[0] == 0xFF) {
		t.Errorf("redacted audio: %d bytes starting %x", len(mp3), mp3[:min(4, len(mp3))])
	}
	events := map[transcribe.Event]bool{}
	for len(events) < 2 {
		select {
		case n := <-notes:
			events[n.Event] = true
			if n.TranscriptID != tr.ID {
				t.Errorf("webhook for %q, want %q", n.TranscriptID, tr.ID)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("webhooks received: %v", events)
		}
	}
}
