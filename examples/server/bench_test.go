package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
)

// benchService is an in-process Service on the real recognizer and decoder
// whose Notifier reports completions on done.
func benchService(b *testing.B, rec transcribe.Recognizer, workers int) (*transcribe.Service, chan string) {
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan string, 16)
	svc, err := transcribe.NewService(transcribe.Config{
		Store: memory.New(), Blobs: memory.NewBlobStore(), Recognizer: rec, Decoder: dec, Key: transcribe.NewKey(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Workers: workers, Stages: pipeline.Default(pipeline.Options{}), TempDir: b.TempDir(),
		Notifier: transcribe.NotifierFunc(func(ctx context.Context, n transcribe.Notification) error { done <- n.TranscriptID; return nil }),
	})
	if err != nil {
		b.Fatal(err)
	}
	svc.Start()
	b.Cleanup(func() { svc.Close(context.Background()) })
	return svc, done
}

func submitClip(b *testing.B, svc *transcribe.Service, clip string) {
	f, err := os.Open(clip)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	u, err := svc.Upload(context.Background(), "p", f)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.Submit(context.Background(), "p", transcribe.SubmitRequest{UploadID: u.ID, Params: transcribe.TranscriptParams{WebhookURL: transcribe.String("https://hook.test/")}}); err != nil {
		b.Fatal(err)
	}
}

func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// BenchmarkTurnaround compares, on one librivox clip, the service's
// turnaround (submit of an uploaded file to completion, with decoding and
// the default feature stages) with the raw engine's Recognize time on the
// same audio, alternating the two in one run. Metric: median ratio
// (target at most 1.05).
func BenchmarkTurnaround(b *testing.B) {
	clip := testaudio.Librivox(b)[0]
	rec, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	rec.Warm(context.Background(), 1)
	dec, _ := media.NewDecoder(media.Config{})
	pcm, err := dec.Decode(context.Background(), clip, 16000, false)
	if err != nil {
		b.Fatal(err)
	}
	svc, done := benchService(b, rec, 1)
	var ratios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := rec.Recognize(context.Background(), pcm.Channels[0], transcribe.RecognizeOptions{}); err != nil {
			b.Fatal(err)
		}
		raw := time.Since(t0)
		t1 := time.Now()
		submitClip(b, svc, clip)
		<-done
		ratios = append(ratios, time.Since(t1).Seconds()/raw.Seconds())
	}
	b.ReportMetric(median(ratios), "service/raw")
}

// BenchmarkTwoJobsTwoWorkers compares the time to finish two jobs with one
// worker against two workers (two decoders). Metric: median throughput
// ratio (target at least 1.8 on two idle cores).
func BenchmarkTwoJobsTwoWorkers(b *testing.B) {
	clip := testaudio.Librivox(b)[0]
	rec, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 2})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	rec.Warm(context.Background(), 2)
	one, done1 := benchService(b, rec, 1)
	two, done2 := benchService(b, rec, 2)
	run := func(svc *transcribe.Service, done chan string) time.Duration {
		t0 := time.Now()
		submitClip(b, svc, clip)
		submitClip(b, svc, clip)
		<-done
		<-done
		return time.Since(t0)
	}
	var ratios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t1 := run(one, done1)
		t2 := run(two, done2)
		ratios = append(ratios, t1.Seconds()/t2.Seconds())
	}
	b.ReportMetric(median(ratios), "speedup")
}
