package keyphrases

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// FuzzExtract checks that any words give well-formed results: ranks in
// (0, 1] in order, counts equal to the timestamps, times of real words.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{"", "air quality alerts air quality", "The The The. ##### [PERSON_NAME]", "\xff\x00 — … $25 50%", "new new new new new cars cars cars"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, maxWords int) {
		var ws []transcribe.Word
		for i, w := range strings.Fields(s) {
			ws = append(ws, transcribe.Word{Text: w, Start: int64(i) * 100, End: int64(i)*100 + 90})
		}
		res, err := Extract(ws, Options{MaxWords: maxWords % 8})
		if maxWords%8 < 0 {
			if err == nil {
				t.Fatal("negative MaxWords accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(res) > DefaultMaxResults {
			t.Fatalf("%d results", len(res))
		}
		for i, h := range res {
			if h.Rank <= 0 || h.Rank > 1 || i > 0 && h.Rank > res[i-1].Rank || int(h.Count) != len(h.Timestamps) || h.Text == "" {
				t.Fatalf("bad result %+v", h)
			}
			for _, ts := range h.Timestamps {
				if ts.Start > ts.End || ts.Start < 0 || ts.End > int64(len(ws))*100 {
					t.Fatalf("bad timestamp %+v", ts)
				}
			}
		}
	})
}
