package safety

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// FuzzParseLexicon checks that the lexicon parser never panics and that
// every term it accepts is well formed.
func FuzzParseLexicon(f *testing.F) {
	f.Add(lexiconText[:2000])
	for _, s := range []string{"", "a 1 0 b", "a 1 0 =b !c !!d", "a 1 0 !!", "x NaN 0 y", "a 1 1 - -", "a 1e308 0 =", "safe 1 0 killed it"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		idx, _ := parseLexicon(s)
		for first, ts := range idx.byFirst {
			for _, tm := range ts {
				if len(tm.stems) == 0 || tm.stems[0] != first || tm.weight <= 0 || tm.severity < 0 || tm.severity > 1 {
					t.Fatalf("bad term %+v", tm)
				}
			}
		}
	})
}

// FuzzDetect checks that any words give labels from the list with
// confidences and severities in range.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{"", "Police said the gunman opened fire.", "s*** f***!", "killed it killed it killed", "=bomb !!server", "\xff\x00 [PERSON_NAME] - — ...", "no no no not never crash"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var ws []transcribe.Word
		for i, w := range strings.Fields(s) {
			ws = append(ws, transcribe.Word{Text: w, Start: int64(i) * 100, End: int64(i)*100 + 90})
		}
		for _, sc := range Detect(nlp.Tokens(ws)) {
			ok := false
			for _, l := range Labels() {
				ok = ok || l == sc.Label
			}
			if !ok || !(sc.Confidence > 0 && sc.Confidence <= 1) || (sc.Severity != -1 && (sc.Severity < 0 || sc.Severity > 1)) {
				t.Fatalf("%q: %+v", s, sc)
			}
		}
	})
}
