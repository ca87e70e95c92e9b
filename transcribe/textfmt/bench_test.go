package textfmt

import (
	"strings"
	"testing"
)

// BenchmarkFormat formats a 1,000-word transcript (a mix of plain speech,
// numbers, fillers and addresses) with every stage on.
func BenchmarkFormat(b *testing.B) {
	sentence := "um so my name is sarah and i paid twenty five dollars at three thirty p m / " +
		"call me on five five five one two three four or write to john at example dot com // " +
		"what happened in nineteen ninety nine on january fifth // "
	in := words(strings.Repeat(sentence, 1000/40+1))[:1000]
	p := params(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Format(in, p)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/word")
}
