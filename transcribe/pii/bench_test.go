package pii

import (
	"strings"
	"testing"
)

// BenchmarkDetect measures detection over a formatted transcript of about
// 1,000 words (the corpus' reference sentences).
func BenchmarkDetect(b *testing.B) {
	var parts []string
	for _, c := range corpus() {
		parts = append(parts, c.say)
	}
	ws := formatted(words(strings.Join(parts, " ")))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Detector{}.Spans(ws)
	}
	b.ReportMetric(float64(len(ws)), "words")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(len(ws))*100, "µs/100words")
}
