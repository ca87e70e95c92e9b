package nlp_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/keyphrases"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety"
	"github.com/earshot-dev/earshot/transcribe/analysis/sentiment"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

// benchTranscript is a transcript of about 750 words (five minutes of
// speech at 150 words a minute) made of the dev texts of the key phrase,
// sentiment and content safety packages, spoken in turns by two speakers.
func benchTranscript(b *testing.B) *transcribe.Transcript {
	b.Helper()
	var parts []string
	kp, err := os.ReadFile("../keyphrases/testdata/dev.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, block := range strings.Split(string(kp), "\n---\n") {
		for _, line := range strings.Split(block, "\n") {
			if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "keys:") {
				parts = append(parts, line)
			}
		}
	}
	for _, f := range []string{"../sentiment/testdata/dev.txt", "../safety/testdata/dev.txt"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if _, text, ok := strings.Cut(line, " | "); ok && !strings.HasPrefix(line, "#") {
				parts = append(parts, text)
			}
		}
	}
	var ws []transcribe.Word
	for _, p := range parts {
		w := nlptest.Words(p)
		if len(ws)+len(w) > 750 {
			break
		}
		off := int64(0)
		if len(ws) > 0 {
			off = ws[len(ws)-1].End + 600
		}
		sp := []string{"A", "B"}[len(ws)%2]
		for i := range w {
			w[i].Start += off
			w[i].End += off
			w[i].Speaker = &sp
		}
		ws = append(ws, w...)
	}
	t := nlptest.Transcript(ws)
	on := true
	t.AutoHighlights, t.SentimentAnalysis, t.ContentSafety = &on, &on, &on
	t.Normalize()
	return t
}

// BenchmarkStages measures the key phrase, sentiment and content safety
// stages, alone and together, on a 750-word transcript, against the
// default formatting stages on the same words as a baseline taken in the
// same run. It prints milliseconds per transcript and the ratio to the
// baseline:
//
//	go test -run '^$' -bench Stages ./transcribe/analysis/nlp
func BenchmarkStages(b *testing.B) {
	tr := benchTranscript(b)
	words := len(tr.Words)
	stages := map[string][]transcribe.Stage{
		"keyphrases": keyphrases.Stages(keyphrases.Options{}),
		"sentiment":  sentiment.Stages(sentiment.Options{}),
		"safety":     safety.Stages(safety.Options{}),
	}
	stages["all three"] = append(append(append([]transcribe.Stage{}, stages["keyphrases"]...), stages["sentiment"]...), stages["safety"]...)
	run := func(ss []transcribe.Stage) {
		t := *tr
		for _, s := range ss {
			if err := s.Apply(context.Background(), &transcribe.Job{Transcript: &t}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Cold start: the first call loads VADER's lexicon, the tagger model
	// and the safety lexicon.
	start := time.Now()
	run(stages["all three"])
	b.Logf("%d words; first call (loads the models): %.1f ms", words, ms(time.Since(start)))

	measure := func(f func()) float64 {
		const n = 20
		start := time.Now()
		for range n {
			f()
		}
		return ms(time.Since(start)) / n
	}
	base := measure(func() { textfmt.Format(tr.Words, nil) })
	b.Logf("baseline textfmt.Format: %.2f ms", base)
	for _, name := range []string{"keyphrases", "sentiment", "safety", "all three"} {
		m := measure(func() { run(stages[name]) })
		b.Logf("%-10s %7.2f ms per transcript (%.2fx the formatting baseline)", name, m, m/base)
	}
	b.ResetTimer()
	for b.Loop() {
		run(stages["all three"])
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
