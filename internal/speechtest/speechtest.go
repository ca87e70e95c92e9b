// Package speechtest runs a transcript through a real Service on real
// speech, for the end-to-end tests of the stages that run after
// recognition (PII redaction, key phrases, sentiment, content safety,
// topics, summaries, chapters).
//
// Engine(t) loads the embedded pocketsphinx recognizer (one decoder) and
// the media decoder, closed when the test ends. NewService(t, e, stages,
// edit) starts a Service over them with memory stores, one worker and a
// fast poll, its log discarded, closed when the test ends; edit (may be
// nil) changes the Config first (a Notifier, a shared BlobStore).
// Transcribe(t, svc, wav, params, queued) uploads the audio, submits it,
// hands the transcript Submit returned to queued (may be nil: tests check
// the "queued" shape of their fields there), waits up to Timeout for the
// job to end and returns the completed transcript, failing the test on an
// error status.
//
// Audio comes from internal/testaudio (flite speech).
package speechtest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// Timeout bounds one Transcribe.
const Timeout = 3 * time.Minute

// Project is the project the transcripts belong to.
const Project = "p1"

// Speech is a recognizer and a decoder.
type Speech struct {
	Recognizer transcribe.Recognizer
	Decoder    transcribe.Decoder
}

// Engine loads embedded pocketsphinx (one decoder) and the media decoder.
func Engine(t testing.TB) Speech {
	t.Helper()
	rec, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		t.Fatalf("pocketsphinx: %v (./scripts/setup.sh installs it)", err)
	}
	t.Cleanup(func() { rec.Close() })
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return Speech{Recognizer: rec, Decoder: dec}
}

// NewService starts a Service on e with stages.
func NewService(t testing.TB, e Speech, stages []transcribe.Stage, edit func(*transcribe.Config)) *transcribe.Service {
	t.Helper()
	cfg := transcribe.Config{
		Store: memory.New(), Blobs: memory.NewBlobStore(), Recognizer: e.Recognizer, Decoder: e.Decoder, Key: transcribe.NewKey(),
		Workers: 1, PollInterval: 10 * time.Millisecond, Stages: stages,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if edit != nil {
		edit(&cfg)
	}
	svc, err := transcribe.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	svc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		svc.Close(ctx)
	})
	return svc
}

// Transcribe runs wav through svc with p and returns the completed
// transcript.
func Transcribe(t testing.TB, svc *transcribe.Service, wav []byte, p transcribe.TranscriptParams, queued func(*transcribe.Transcript)) *transcribe.Transcript {
	t.Helper()
	ctx := context.Background()
	up, err := svc.Upload(ctx, Project, bytes.NewReader(wav))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := svc.Submit(ctx, Project, transcribe.SubmitRequest{Params: p, UploadID: up.ID})
	if err != nil {
		t.Fatal(err)
	}
	if queued != nil {
		queued(tr)
	}
	deadline := time.Now().Add(Timeout)
	for !tr.Status.Final() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if tr, err = svc.Get(ctx, Project, tr.ID); err != nil {
			t.Fatal(err)
		}
	}
	if tr.Status != transcribe.StatusCompleted {
		msg := ""
		if tr.Error != nil {
			msg = *tr.Error
		}
		t.Fatalf("transcript %s: status %s, error %q", tr.ID, tr.Status, msg)
	}
	return tr
}
