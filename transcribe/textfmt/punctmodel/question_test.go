package punctmodel_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

// TestQuestions: the committed classifier turns the decoder's sentence
// ends into "?" where the sentence reads as a question and leaves the
// others "."; it changes no other mark.
func TestQuestions(t *testing.T) {
	t.Parallel()
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	if m.Questions() == nil {
		t.Fatal("the default model has no question classifier")
	}
	plain := m.WithQuestions(nil)
	for _, c := range []struct {
		text string
		q    bool
	}{
		{"do you really think so", true},
		{"where did you put the keys", true},
		{"it is rather cold today isn't it", true},
		{"would you like some more tea", true},
		{"i put the keys on the table", false},
		{"she walked to the station in the rain", false},
		{"when i was young we lived by the sea", false},
	} {
		ws := strings.Fields(c.text)
		gaps := make([]punctmodel.Gap, len(ws))
		got := m.Marks(ws, gaps)
		if q := got[len(ws)-1] == punctmodel.Question; q != c.q {
			t.Errorf("%q: question %v, want %v", c.text, q, c.q)
		}
		base := plain.Marks(ws, gaps)
		for i := range got {
			if got[i].EndsSentence() != base[i].EndsSentence() || (!got[i].EndsSentence() && got[i] != base[i]) {
				t.Errorf("%q: word %d mark %q, the decoder's %q: the classifier may only choose between ? and .", c.text, i, got[i], base[i])
			}
		}
	}
}

func TestQuestionsFile(t *testing.T) {
	t.Parallel()
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Questions().Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := punctmodel.ReadQuestions(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if q.Threshold != m.Questions().Threshold {
		t.Errorf("threshold %v after a round trip, want %v", q.Threshold, m.Questions().Threshold)
	}
	ws := strings.Fields("what are you doing here i thought you had gone home do you want some tea")
	gaps := make([]punctmodel.Gap, len(ws))
	gaps[4].PauseMs, gaps[10].PauseMs = 400, 400
	a, b := m.Marks(ws, gaps), m.WithQuestions(q).Marks(ws, gaps)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("marks differ after a round trip at word %d: %v vs %v", i, a, b)
		}
	}
	gz := func(body []byte) []byte { return []byte(gzipped(string(body))) }
	for name, bad := range map[string][]byte{
		"not gzip":    []byte("not gzip"),
		"other magic": gz([]byte("EPUNCT02....")),
		"truncated":   buf.Bytes()[:buf.Len()/2],
		"no weights":  gz([]byte("EQUEST01\x12\x00\x00\x00\x00\x00\x00\x00")),
		"bad size":    gz([]byte("EQUEST01\x40\x00\x00\x00\x00\x00\x00\x00")),
	} {
		if _, err := punctmodel.ReadQuestions(bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: ReadQuestions accepted it", name)
		}
	}
}
