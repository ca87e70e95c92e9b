package topics

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// FuzzClassify checks that any words classify without panicking into
// known labels with relevance in [0, 1), sorted, at most the cap.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"The quarterback threw a touchdown.", "[PERSON_NAME] ##### — … f-150 r&b 401k", "children's book's", "\x00 \xff ' - / &", ""} {
		f.Add(s, uint8(3))
	}
	c, err := Default()
	if err != nil {
		f.Fatal(err)
	}
	known := map[string]bool{}
	for _, l := range c.Labels() {
		known[l] = true
	}
	f.Fuzz(func(t *testing.T, s string, max uint8) {
		var ws []transcribe.Word
		for i, w := range strings.Split(s, " ") {
			ws = append(ws, transcribe.Word{Text: w, Start: int64(i), End: int64(i) + 1})
		}
		ls := c.ClassifyStems(Stems(ws), int(max), 0)
		if ls == nil {
			t.Fatal("nil labels")
		}
		if max > 0 && len(ls) > int(max) {
			t.Fatalf("%d labels, cap %d", len(ls), max)
		}
		for i, l := range ls {
			if !known[l.Label] || l.Relevance < 0 || l.Relevance >= 1 || i > 0 && l.Relevance > ls[i-1].Relevance {
				t.Fatalf("bad labels %v", ls)
			}
		}
	})
}
