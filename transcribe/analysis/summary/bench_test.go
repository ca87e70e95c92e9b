package summary

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// fiveMinutes returns a transcript of about five minutes of speech (750
// words): the held-out passages in order.
func fiveMinutes(b testing.TB) *transcribe.Transcript {
	var texts []string
	n := 0
	for _, p := range readPassages(b, "test.txt") {
		if n >= 750 {
			break
		}
		texts = append(texts, p.text)
		n += len(strings.Fields(p.text))
	}
	tr := nlptest.Transcript(nlptest.Words(strings.Join(texts, "\n\n")))
	tr.IABCategories, tr.Summarization, tr.AutoChapters = transcribe.Ptr(true), transcribe.Ptr(true), transcribe.Ptr(true)
	typ, model := transcribe.SummaryBullets, transcribe.SummaryInformative
	tr.SummaryType, tr.SummaryModel = &typ, &model
	return tr
}

// BenchmarkStagesFiveMinutes runs topic detection, the summary and the
// chapters on a five-minute (750-word) transcript, as a server would with
// all three requested (the API does not allow summarization with
// auto_chapters, so this is more than one request does), and reports the
// milliseconds per transcript and their share of the time the embedded
// recognizer needs for five minutes of speech, measured in the same run
// on a flite clip (recognitionPerAudioSecond). Each stage alone is a
// sub-benchmark. The target is at most 5%.
func BenchmarkStagesFiveMinutes(b *testing.B) {
	recog := recognitionPerAudioSecond(b) * 300
	b.Logf("recognizing five minutes takes about %.1f s here", recog.Seconds())
	tr := fiveMinutes(b)
	b.Logf("%d words", len(tr.Words))
	stages := map[string][]transcribe.Stage{
		"topics":   topics.Stages(topics.Options{}),
		"summary":  {SummaryStage{}},
		"chapters": {ChaptersStage{}},
	}
	stages["all"] = append(append(append([]transcribe.Stage{}, stages["topics"]...), stages["summary"]...), stages["chapters"]...)
	if _, err := topics.Default(); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"all", "topics", "summary", "chapters"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				job := nlptest.Job(tr)
				for _, s := range stages[name] {
					if err := s.Apply(context.Background(), job); err != nil {
						b.Fatal(err)
					}
				}
			}
			ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(ms, "ms/transcript")
			b.ReportMetric(100*ms/float64(recog.Milliseconds()), "%-of-recognition")
		})
	}
}

// recognitionPerAudioSecond times the embedded pocketsphinx recognizer on
// about fifteen seconds of flite speech (after one warm-up run) and
// returns the recognition time per second of audio.
func recognitionPerAudioSecond(b *testing.B) time.Duration {
	b.Helper()
	wav := testaudio.Speech(b, "slt", readPassages(b, "test.txt")[0].text)
	pcm, rate, err := transcribetest.ReadWAV16(wav)
	if err != nil {
		b.Fatal(err)
	}
	r, err := pocketsphinx.New(pocketsphinx.Config{Decoders: 1})
	if err != nil {
		b.Fatalf("pocketsphinx: %v", err)
	}
	defer r.Close()
	ctx := context.Background()
	if _, err := r.Recognize(ctx, pcm[:rate], transcribe.RecognizeOptions{}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := r.Recognize(ctx, pcm, transcribe.RecognizeOptions{}); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start).Seconds()
	audio := float64(len(pcm)) / float64(rate)
	return time.Duration(elapsed / audio * float64(time.Second))
}
