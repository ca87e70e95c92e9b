package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestEmbed runs the example application on loopback: its own route
// answers, and the official Go SDK, pointed at the same server, uploads
// real speech and gets its transcript with the features asked for.
func TestEmbed(t *testing.T) {
	wav := testaudio.Speech(t, "slt", "Please call me back tomorrow morning.")
	srv := httptest.NewUnstartedServer(nil)
	a, err := newApp("http://" + srv.Listener.Addr().String())
	if err != nil {
		t.Fatalf("newApp: %v (install libpocketsphinx3 and pocketsphinx-en-us: ./scripts/setup.sh)", err)
	}
	srv.Config.Handler = a
	srv.Start()
	defer func() {
		srv.Close()
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	}()

	res, err := http.Get(srv.URL + "/app/hello")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "own route") {
		t.Errorf("GET /app/hello: %d %q", res.StatusCode, body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := aai.NewClientWithOptions(aai.WithAPIKey(apiKey), aai.WithBaseURL(srv.URL))
	f, err := os.Open(wav)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := client.Transcripts.TranscribeFromReader(ctx, f, &aai.TranscriptOptionalParams{SentimentAnalysis: aai.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != aai.TranscriptStatusCompleted || tr.Text == nil {
		t.Fatalf("transcript %v: %+v", tr.Status, tr.Error)
	}
	text := strings.ToLower(*tr.Text)
	if !strings.Contains(text, "call") || !strings.Contains(text, "morning") {
		t.Errorf("text %q: want the spoken words", *tr.Text)
	}
	if len(tr.SentimentAnalysisResults) == 0 {
		t.Error("no sentiment results")
	}
	if _, err := aai.NewClientWithOptions(aai.WithAPIKey("wrong"), aai.WithBaseURL(srv.URL)).Transcripts.Get(ctx, *tr.ID); err == nil {
		t.Error("another key read the transcript")
	}
}
