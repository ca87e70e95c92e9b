package topics

import (
	"context"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// fiveMinutes is about five minutes of speech (750 words) in paragraphs:
// the held-out test set's paragraphs repeated.
func fiveMinutes(b testing.TB) string {
	var paras []string
	n := 0
	for n < 750 {
		for _, x := range readSet(b, "test.txt") {
			paras = append(paras, x.text)
			n += len(strings.Fields(x.text))
			if n >= 750 {
				break
			}
		}
	}
	return strings.Join(paras, "\n\n")
}

// BenchmarkStageFiveMinutes runs the stage on a 750-word transcript; it
// reports ms per transcript (compare with the ~60 s pocketsphinx takes to
// recognize five minutes).
func BenchmarkStageFiveMinutes(b *testing.B) {
	tr := transcriptOf(fiveMinutes(b))
	if _, err := Default(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := (Stage{}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/transcript")
}

// BenchmarkDefault measures building the classifier from the embedded data
// (done once per process).
func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		tx, err := loadTaxonomy()
		if err != nil {
			b.Fatal(err)
		}
		for _, strict := range []bool{false, true} {
			if _, err := buildProfiles(tx, strict); err != nil {
				b.Fatal(err)
			}
		}
	}
}
