// Command customstage adds a feature stage of one's own to Earshot's
// default pipeline: it replaces a company's internal code names with a
// neutral word in every transcript, before PII redaction and the analyses
// run, so no stored field, export or summary carries them. The stage goes
// right after custom_spelling (the last text formatting stage), found by
// name in pipeline.Default's order.
//
//	go run ./examples/customstage
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// codeNames maps the lower-cased code names to what is written instead.
var codeNames = map[string]string{"falcon": "[project]", "bluebird": "[project]"}

// maskCodeNames is the stage. A transcribe.StageFunc suits a small stage;
// a type implementing transcribe.Stage suits one with configuration.
var maskCodeNames = transcribe.StageFunc{
	StageName: "mask_code_names",
	// When decides from the request's parameters; nil runs it always.
	Run: func(ctx context.Context, job *transcribe.Job) error {
		tr := job.Transcript
		for i, w := range tr.Words {
			core := strings.Trim(strings.ToLower(w.Text), ".,?!")
			if repl, ok := codeNames[core]; ok {
				tr.Words[i].Text = strings.Replace(strings.ToLower(w.Text), core, repl, 1)
			}
		}
		tr.Fill() // Text (and confidence) again from the words
		return nil
	},
}

// stages is the default pipeline with maskCodeNames after custom_spelling.
func stages() []transcribe.Stage {
	st := pipeline.Default(pipeline.Options{})
	at := slices.IndexFunc(st, func(s transcribe.Stage) bool { return s.Name() == "custom_spelling" })
	return slices.Insert(st, at+1, transcribe.Stage(maskCodeNames))
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run transcribes a clip whose (scripted) recognizer hears a code name and
// prints the stored text and key phrases.
func run(ctx context.Context, w io.Writer) error {
	store := memory.New()
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		return err
	}
	svc, err := transcribe.NewService(transcribe.Config{
		Store: store, Uploads: store, Blobs: memory.NewBlobStore(), Decoder: dec, Key: transcribe.NewKey(),
		Recognizer:   &transcribetest.FakeRecognizer{Text: "the falcon launch moves to friday and the falcon budget doubles"},
		Stages:       stages(),
		PollInterval: 10 * time.Millisecond,
	})
	if err != nil {
		return err
	}
	svc.Start()
	defer svc.Close(ctx)

	up, err := svc.Upload(ctx, "p1", bytes.NewReader(transcribetest.ToneWAV(3)))
	if err != nil {
		return err
	}
	tr, err := svc.Submit(ctx, "p1", transcribe.SubmitRequest{UploadID: up.ID,
		Params: transcribe.TranscriptParams{AudioURL: "https://example.com/standup.wav", AutoHighlights: transcribe.Ptr(true)}})
	if err != nil {
		return err
	}
	for !tr.Status.Final() {
		time.Sleep(10 * time.Millisecond)
		if tr, err = svc.Get(ctx, "p1", tr.ID); err != nil {
			return err
		}
	}
	if tr.Error != nil {
		return fmt.Errorf("transcript failed: %s", *tr.Error)
	}
	fmt.Fprintf(w, "text: %s\n", *tr.Text)
	if tr.AutoHighlightsResult != nil {
		for _, h := range tr.AutoHighlightsResult.Results {
			fmt.Fprintf(w, "key phrase: %s\n", h.Text)
		}
	}
	return nil
}
