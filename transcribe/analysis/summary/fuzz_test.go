package summary

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// FuzzSummarize checks that any words, times and speakers summarize and
// segment without panicking, into well-formed results.
func FuzzSummarize(f *testing.F) {
	for _, s := range []string{"Bees are dying. Rates are up. So, okay, the end.", "[PERSON_NAME] ##### — … ,,, ?", "a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a", "", "!", ",", "2024.", "##### #######."} {
		f.Add(s, []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, text string, shape []byte) {
		var ws []transcribe.Word
		at := int64(0)
		for i, w := range strings.Fields(text) {
			var sp *string
			if len(shape) > 0 {
				s := string(rune('A' + shape[i%len(shape)]%3))
				sp = &s
				at += int64(shape[i%len(shape)]) * 10
			}
			ws = append(ws, transcribe.Word{Text: w, Start: at, End: at + 200, Speaker: sp})
			at += 250
		}
		x := NewTextFromTranscript(&transcribe.Transcript{Words: ws})
		for _, m := range []transcribe.SummaryModel{transcribe.SummaryInformative, transcribe.SummaryConversational, transcribe.SummaryCatchy} {
			for _, typ := range []transcribe.SummaryType{transcribe.SummaryBullets, transcribe.SummaryBulletsVerbose, transcribe.SummaryGist, transcribe.SummaryHeadline, transcribe.SummaryParagraph} {
				s := x.Summarize(typ, m)
				if x.Len() > 0 && typ != transcribe.SummaryGist && s == "" {
					t.Fatalf("%s/%s: empty summary of %d sentences", m, typ, x.Len())
				}
				if (typ == transcribe.SummaryBullets || typ == transcribe.SummaryBulletsVerbose) && s != "" {
					for _, l := range strings.Split(s, "\n") {
						if !strings.HasPrefix(l, "- ") {
							t.Fatalf("bullet %q", l)
						}
					}
				}
			}
		}
		cuts := x.Segment(1, 0)
		for i, c := range cuts {
			if c <= 0 || c >= x.Len() || i > 0 && c <= cuts[i-1] {
				t.Fatalf("cuts %v of %d sentences", cuts, x.Len())
			}
		}
	})
}
