package summary

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// TestLongSentencePiecesEndAtClauses checks that a summary point quoted
// from a sentence too long to quote whole (speech the punctuate stage
// could not cut) ends where a clause ends, not in the middle of one ("in
// particular the fire Fox.").
func TestLongSentencePiecesEndAtClauses(t *testing.T) {
	t.Parallel()
	clauses := []string{
		"the browser based on the open source code has been winning users since its first full version was released in November",
		"estimates of how many users the new browser has won over vary widely between the market research firms",
		"according to statistics gathered by one website its market share is now about five percent of all users",
		"other firms say that figure is closer to ten percent in Europe where the browser has been popular with students",
		"the company behind the browser says it will release a new version with better security and faster pages next spring",
		"rival browser makers have answered with updates of their own to patch the holes that criminals exploit",
	}
	long := strings.Join(clauses, ", ") + "."
	text := long + " " + strings.ReplaceAll(long, "browser", "program") + " The weather was fine on the day of the launch."
	words := nlptest.Words(text)
	x := NewTextFromTranscript(nlptest.Transcript(words))
	b := x.Summarize(transcribe.SummaryBullets, transcribe.SummaryInformative)
	ends := map[string]bool{}
	for _, w := range words {
		if strings.HasSuffix(w.Text, ",") || strings.HasSuffix(w.Text, ".") {
			ends[strings.ToLower(strings.TrimRight(w.Text, ",."))] = true
		}
	}
	// Pieces moved to clause breaks may reach into each other: every word
	// is still quoted once.
	all := make([]int, len(x.sents))
	for i := range all {
		all[i] = i
	}
	_, ranges := x.rendered(all)
	for k := 1; k < len(ranges); k++ {
		if ranges[k][0] < ranges[k-1][1] {
			t.Errorf("quoted ranges %v and %v overlap", ranges[k-1], ranges[k])
		}
	}
	for _, line := range strings.Split(b, "\n") {
		f := strings.Fields(line)
		last := strings.ToLower(strings.TrimRight(f[len(f)-1], ",.?!"))
		if !ends[last] {
			t.Errorf("summary point ends inside a clause (%q): %s", last, line)
		}
	}
}
