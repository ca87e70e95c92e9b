package pii_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/speechtest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
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
	notes := make(chan transcribe.Notification, 4)
	blobs := memory.NewBlobStore()
	svc := speechtest.NewService(t, speechtest.Engine(t), pipeline.Default(pipeline.Options{}), func(c *transcribe.Config) {
		c.Blobs = blobs
		c.Notifier = transcribe.NotifierFunc(func(ctx context.Context, n transcribe.Notification) error { notes <- n; return nil })
	})
	ctx := context.Background()
	wav, err := os.ReadFile(testaudio.Speech(t, "slt", "hi my name is sarah johnson and my number is five five five one two three four"))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	hook := "https://hooks.example/done"
	p := transcribe.TranscriptParams{RedactPII: &yes, RedactPIIAudio: &yes,
		RedactPIIPolicies: []string{"person_name", "phone_number"}, EntityDetection: &yes, SpeakerLabels: &yes, WebhookURL: &hook}
	tr := speechtest.Transcribe(t, svc, wav, p, nil)
	body, err := json.Marshal(tr.Public())
	if err != nil {
		t.Fatal(err)
	}
	// Every string of the JSON (text, words, utterances, entities, urls),
	// not its numbers: a time such as 15550 or a confidence holds "555"
	// by chance, and so may an id (random hex).
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	strs := jsonStrings(doc, nil)
	if len(strs) < 20 {
		t.Fatalf("only %d strings in the transcript JSON", len(strs))
	}
	for _, str := range strs {
		low := uuidRE.ReplaceAllString(strings.ToLower(str), "<id>")
		for _, secret := range []string{"sarah", "johnson", "555", "1234"} {
			if strings.Contains(low, secret) {
				t.Errorf("%q appears in the transcript JSON: %q", secret, str)
			}
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

// jsonStrings appends every string value (and object key) in v to out.
func jsonStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = jsonStrings(e, out)
		}
	case map[string]any:
		for k, e := range v {
			out = jsonStrings(e, append(out, k))
		}
	}
	return out
}
