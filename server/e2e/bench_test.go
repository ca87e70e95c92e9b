package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"golang.org/x/sync/errgroup"
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
	if _, err := svc.Submit(context.Background(), "p", transcribe.SubmitRequest{UploadID: u.ID, Params: transcribe.TranscriptParams{WebhookURL: transcribe.Ptr("https://hook.test/")}}); err != nil {
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

// longRecording is about minutes of read speech: the librivox clips with
// half a second of silence after each, repeated.
func longRecording(b *testing.B, minutes float64) string {
	path, _ := longRecordingRef(b, minutes)
	return path
}

// longRecordingRef is longRecording with its reference transcript, from
// the clips' transcription file (lowercase words; nil when the file is
// missing).
func longRecordingRef(b *testing.B, minutes float64) (string, []transcribe.Word) {
	clips := testaudio.Librivox(b)
	refs := map[string][]string{}
	if t, err := os.ReadFile(filepath.Join(testaudio.LibrivoxDir, "transcription")); err == nil {
		for _, line := range strings.Split(string(t), "\n") {
			if i := strings.LastIndex(line, "("); i > 0 {
				refs[strings.TrimSuffix(strings.TrimSpace(line[i+1:]), ")")] = strings.Fields(strings.ToLower(line[:i]))
			}
		}
	}
	var cycleRef []transcribe.Word
	for _, c := range clips {
		words, ok := refs[strings.TrimSuffix(filepath.Base(c), ".wav")]
		if !ok {
			cycleRef = nil
			break
		}
		for _, w := range words {
			cycleRef = append(cycleRef, transcribe.Word{Text: w})
		}
	}
	var inputs []string
	half := testaudio.SoxEffects(b, "wav", []string{"-n", "-r", "16000", "-c", "1", "-b", "16"}, "trim", "0", "0.5")
	for _, c := range clips {
		inputs = append(inputs, c, half)
	}
	cycle := testaudio.SoxEffects(b, "wav", inputs)
	pcm, err := mustDecoder(b).Decode(context.Background(), cycle, 16000, false)
	if err != nil {
		b.Fatal(err)
	}
	secs := float64(len(pcm.Channels[0])) / 16000
	repeats := max(int(minutes*60/secs+0.5), 1)
	var ref []transcribe.Word
	for range repeats {
		ref = append(ref, cycleRef...)
	}
	if cycleRef == nil {
		ref = nil
	}
	return testaudio.SoxEffects(b, "wav", []string{cycle}, "repeat", fmt.Sprint(repeats-1)), ref
}

func mustDecoder(b *testing.B) *media.Decoder {
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		b.Fatal(err)
	}
	return dec
}

// norm is a word without the formatting stages' case and punctuation.
func norm(w transcribe.Word) string {
	return strings.ToLower(strings.TrimFunc(w.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// wordDiff is the word-level edit distance between a and b (compared
// without case and punctuation) as a fraction of len(a).
func wordDiff(a, b []transcribe.Word) float64 {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if norm(a[i-1]) != norm(b[j-1]) {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(b)]) / float64(max(len(a), 1))
}

// benchMinutes is the length of the long recording: EARSHOT_BENCH_MINUTES,
// default 10 (the figure is for 60; a 60-minute run takes about
// 20 minutes on two cores).
func benchMinutes(b *testing.B) float64 {
	if s := os.Getenv("EARSHOT_BENCH_MINUTES"); s != "" {
		m, err := strconv.ParseFloat(s, 64)
		if err != nil || m <= 0 {
			b.Fatalf("EARSHOT_BENCH_MINUTES=%q: want minutes", s)
		}
		return m
	}
	return 10
}

// serviceVsRaw transcribes the recording minutes long through the Service
// (upload, decode, pieces recognized on every core, default stages) and
// with the raw engine (one Recognize call over the whole decoded audio on
// one decoder), alternately, and reports the median time ratio and the
// word difference between the two transcripts.
func serviceVsRaw(b *testing.B, minutes float64) {
	clip, ref := longRecordingRef(b, minutes)
	cores := runtime.NumCPU()
	rec, err := pocketsphinx.New(pocketsphinx.Config{Decoders: cores})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	rec.Warm(context.Background(), cores)
	pcm, err := mustDecoder(b).Decode(context.Background(), clip, 16000, false)
	if err != nil {
		b.Fatal(err)
	}
	svc, done := benchService(b, rec, 1)
	var ratios, diffs, cuts []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		raw, err := rec.Recognize(context.Background(), pcm.Channels[0], transcribe.RecognizeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		rawTime := time.Since(t0)
		t1 := time.Now()
		submitClip(b, svc, clip)
		id := <-done
		svcTime := time.Since(t1)
		tr, err := svc.Get(context.Background(), "p", id)
		if err != nil || tr.Status != transcribe.StatusCompleted {
			b.Fatalf("%v %v", err, tr.Error)
		}
		ratios = append(ratios, svcTime.Seconds()/rawTime.Seconds())
		diffs = append(diffs, 100*wordDiff(raw.Words, tr.Words))
		b.Logf("%.0f min on %d cores: raw engine %.1f s (%d words), service %.1f s (%d words)",
			minutes, cores, rawTime.Seconds(), len(raw.Words), svcTime.Seconds(), len(tr.Words))
		if minutes*60 > 90 {
			// What cutting alone changes: the engine's own words for the
			// whole audio against its words for the pieces the Service
			// cuts, with no formatting stage in between.
			pieces := recognizePieces(b, rec, pcm.Channels[0], cores)
			cuts = append(cuts, 100*wordDiff(raw.Words, pieces))
			b.Logf("the engine on the pieces: %d words, %.2f%% different from the whole", len(pieces), cuts[len(cuts)-1])
			if ref != nil {
				// Which is closer to what was read: word error rates
				// against the clips' reference transcripts.
				b.Logf("word error rate against the reference (%d words): whole %.2f%%, pieces %.2f%%, transcript %.2f%% (formatted)",
					len(ref), 100*wordDiff(ref, raw.Words), 100*wordDiff(ref, pieces), 100*wordDiff(ref, tr.Words))
				b.ReportMetric(100*(wordDiff(ref, pieces)-wordDiff(ref, raw.Words)), "pieces-minus-whole-WER-points")
			}
		}
	}
	b.ReportMetric(median(ratios), "service/raw")
	b.ReportMetric(median(diffs), "word-diff-%")
	if len(cuts) > 0 {
		b.ReportMetric(median(cuts), "cut-word-diff-%")
	}
}

// recognizePieces recognizes samples cut as the Service cuts long audio
// (transcribe.SplitAtPauses, 60 s at most), parallel pieces at once, and
// joins the words with their offsets.
func recognizePieces(b *testing.B, rec transcribe.Recognizer, samples []int16, parallel int) []transcribe.Word {
	spans := transcribe.SplitAtPauses(samples, 16000, 60*time.Second)
	out := make([][]transcribe.Word, len(spans))
	var g errgroup.Group
	g.SetLimit(parallel)
	for i, sp := range spans {
		g.Go(func() error {
			r, err := rec.Recognize(context.Background(), samples[sp.Start:sp.End], transcribe.RecognizeOptions{})
			if err != nil {
				return err
			}
			off := int64(sp.Start) * 1000 / 16000
			for _, w := range r.Words {
				w.Start += off
				w.End += off
				out[i] = append(out[i], w)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	var words []transcribe.Word
	for _, ws := range out {
		words = append(words, ws...)
	}
	return words
}

// BenchmarkLongFile: a long recording (EARSHOT_BENCH_MINUTES, default 10)
// through the Service against the raw engine on the same audio. Targets:
// service/raw at most 0.6 on two cores (pieces recognized in parallel).
// word-diff-% compares the engine's words for the whole audio with the
// transcript's (formatting included: numbers written as digits and the
// like count as differences); cut-word-diff-% compares them with the
// engine's own words for the pieces, which is what cutting alone changes.
func BenchmarkLongFile(b *testing.B) { serviceVsRaw(b, benchMinutes(b)) }

// BenchmarkOneMinute: a one-minute recording (recognized in one call)
// through the Service against the raw engine. Target: service/raw at most
// 1 (no slower than the engine alone).
func BenchmarkOneMinute(b *testing.B) { serviceVsRaw(b, 1) }

// BenchmarkFourJobsAtOnce compares four one-minute jobs submitted at once
// to four workers with the same four run one after another on one worker.
// Metric: throughput ratio (target at least 1.8 on two cores); also with
// the server's default of one worker per core (speedup-default-workers).
func BenchmarkFourJobsAtOnce(b *testing.B) {
	clip := longRecording(b, 1)
	rec, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	rec.Warm(context.Background(), 4)
	seq, doneSeq := benchService(b, rec, 1)
	par, donePar := benchService(b, rec, 4)
	def, doneDef := benchService(b, rec, runtime.NumCPU()) // the server's default
	run := func(svc *transcribe.Service, done chan string) time.Duration {
		t0 := time.Now()
		for j := 0; j < 4; j++ {
			submitClip(b, svc, clip)
		}
		for j := 0; j < 4; j++ {
			<-done
		}
		return time.Since(t0)
	}
	var ratios, defRatios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t1 := run(seq, doneSeq)
		t4 := run(par, donePar)
		tDef := run(def, doneDef)
		ratios = append(ratios, t1.Seconds()/t4.Seconds())
		defRatios = append(defRatios, t1.Seconds()/tDef.Seconds())
	}
	b.ReportMetric(median(ratios), "speedup")
	b.ReportMetric(median(defRatios), "speedup-default-workers")
}
