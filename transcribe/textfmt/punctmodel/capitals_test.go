package punctmodel_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// TestCapitals: the committed casing classifier capitalises ordinary
// words that are part of a name here, leaves them where they are ordinary
// words, and only adds capitals to what the lexicon and rules give.
func TestCapitals(t *testing.T) {
	t.Parallel()
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	if m.Capitals() == nil {
		t.Fatal("the default model has no casing classifier")
	}
	plain := m.WithCapitals(nil)
	for _, c := range []struct {
		text string
		want map[string]string // word -> form ("" for lower case)
	}{
		{"the labour party won the vote", map[string]string{"labour": "Labour", "vote": ""}},
		{"england lost in the world cup final", map[string]string{"world": "World", "cup": "Cup", "final": ""}},
		{"the home office said on monday", map[string]string{"home": "Home", "office": "Office"}},
		{"she went home to the office", map[string]string{"home": "", "office": ""}},
		{"yes sir i shall miss you", map[string]string{"sir": "", "miss": ""}},
		{"we grow cabbages in the garden", map[string]string{"garden": "", "cabbages": ""}},
	} {
		ws := strings.Fields(c.text)
		got, base := m.Case(ws), plain.Case(ws)
		for i, w := range ws {
			if want, ok := c.want[w]; ok && got[i] != want {
				t.Errorf("%q: %q -> %q, want %q", c.text, w, got[i], want)
			}
			if base[i] != "" && got[i] != base[i] {
				t.Errorf("%q: %q -> %q, the lexicon's %q: the classifier only adds capitals", c.text, w, got[i], base[i])
			}
		}
	}
}

func TestCapitalsFile(t *testing.T) {
	t.Parallel()
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Capitals().Write(&buf); err != nil {
		t.Fatal(err)
	}
	c, err := punctmodel.ReadCapitals(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	ws := strings.Fields("the prime minister met the labour party and the bbc in the white house")
	a, b := m.Case(ws), m.WithCapitals(c).Case(ws)
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Fatalf("forms differ after a round trip: %q vs %q", a, b)
	}
	for name, bad := range map[string]string{
		"not gzip":    "not gzip",
		"other magic": gzipped("EQUEST01...."),
		"truncated":   buf.String()[:buf.Len()/2],
		"bad size":    gzipped("ECAPS001\x40\x00\x00\x00\x00\x00\x00\x00"),
		"bad form":    gzipped("ECAPS001\x08\x00\x00\x00\x00\x00\x00\x00" + strings.Repeat("\x00", 4<<8) + "bbc\tCNN\n"),
	} {
		if _, err := punctmodel.ReadCapitals(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: ReadCapitals accepted it", name)
		}
	}
}
