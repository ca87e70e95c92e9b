package textfmt

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// BenchmarkFormat formats a 1,000-word transcript (a mix of plain speech,
// numbers, fillers and addresses) with every stage on.
func BenchmarkFormat(b *testing.B) { benchmarkFormat(b, params(nil)) }

// BenchmarkFormatAll adds the profanity filter and five custom spellings.
func BenchmarkFormatAll(b *testing.B) {
	benchmarkFormat(b, params(func(p *transcribe.TranscriptParams) {
		p.FilterProfanity = transcribe.Ptr(true)
		p.CustomSpelling = []transcribe.CustomSpelling{{From: []string{"sarah", "john smith"}, To: "Sara"},
			{From: []string{"new york city", "big apple"}, To: "NYC"}, {From: []string{"k eight s"}, To: "k8s"}}
	}))
}

func benchmarkFormat(b *testing.B, p *transcribe.TranscriptParams) {
	sentence := "um so my name is sarah and i paid twenty five dollars at three thirty p m / " +
		"call me on five five five one two three four or write to john at example dot com // " +
		"what happened in nineteen ninety nine on january fifth // "
	in := words(strings.Repeat(sentence, 1000/40+1))[:1000]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Format(in, p)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/word")
}
