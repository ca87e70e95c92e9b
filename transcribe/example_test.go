package transcribe_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	mediapkg "github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// toneWAV is two seconds of a 300 Hz tone as a 16 kHz WAV file.
func toneWAV() []byte {
	pcm := &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{make([]int16, 32000)}}
	for i := range pcm.Channels[0] {
		pcm.Channels[0][i] = int16(8000 * math.Sin(2*math.Pi*300*float64(i)/16000))
	}
	var b bytes.Buffer
	mediapkg.WriteWAV(&b, pcm)
	return b.Bytes()
}

// Example embeds the Service with no HTTP at all: in-memory adapters, a
// fake recognizer (any real engine fits the same contract), the default
// feature pipeline. Upload returns an id; Submit takes it.
func Example() {
	ctx := context.Background()
	dec, err := mediapkg.NewDecoder(mediapkg.Config{})
	if err != nil {
		panic(err)
	}
	svc, err := transcribe.NewService(transcribe.Config{
		Store:      memory.New(), // also the UploadStore
		Blobs:      memory.NewBlobStore(),
		Recognizer: &transcribetest.FakeRecognizer{Text: "good morning from the embedded service"},
		Decoder:    dec,
		Key:        transcribe.NewKey(), // seals transcripts at rest
		Stages:     pipeline.Default(pipeline.Options{}),
		Logger:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	svc.Start()
	defer svc.Close(ctx)

	up, err := svc.Upload(ctx, "my-project", bytes.NewReader(toneWAV()))
	if err != nil {
		panic(err)
	}
	tr, err := svc.Submit(ctx, "my-project", transcribe.SubmitRequest{UploadID: up.ID})
	if err != nil {
		panic(err)
	}
	fmt.Println(tr.Status)
	for !tr.Status.Final() {
		time.Sleep(10 * time.Millisecond)
		if tr, err = svc.Get(ctx, "my-project", tr.ID); err != nil {
			panic(err)
		}
	}
	fmt.Println(tr.Status, *tr.Text)
	page, _ := svc.List(ctx, "my-project", transcribe.ListOptions{Limit: 5})
	fmt.Println(len(page.Entries), page.Entries[0].ID == tr.ID)
	// Output:
	// queued
	// completed Good morning from the embedded service.
	// 1 true
}
