package punctmodel

import (
	"strings"
	"testing"
)

func render(toks []Token) string {
	var b strings.Builder
	for _, t := range toks {
		if t.Start {
			b.WriteString("^")
		}
		b.WriteString(t.Word + t.Mark.String() + " ")
	}
	return strings.TrimSpace(b.String())
}

func TestTokenize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`Mr. John Dashwood had then leisure; he was ill-disposed: but well.`,
			`^mr john dashwood had then leisure, he was ill disposed, but well.`},
		{`"Oh!" said she, "is it you?" He laughed.`, `^oh, said she, ^is it you? ^he laughed.`},
		{`It cost 3,000 pounds--a lot`, `^it cost <num> pounds, a lot.`},
		{`Don't you see it's o'clock`, `^don't you see it's o'clock.`},
	} {
		if got := render(Tokenize(c.in)); got != c.want {
			t.Errorf("Tokenize(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestParagraphs(t *testing.T) {
	t.Parallel()
	text := "CHAPTER 1\n\nAlgernon.  Did you hear what I was\nplaying, Lane?\n\nLane.  [Bows.]  I didn't think it polite.\n\n" +
		"Mr. Dashwood came in.\n\nA heading without a mark"
	ps := Paragraphs(text)
	want := []Paragraph{{"algernon", "Did you hear what I was playing, Lane?"}, {"lane", "I didn't think it polite."}, {"", "Mr. Dashwood came in."}}
	if len(ps) != len(want) {
		t.Fatalf("got %q", ps)
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("paragraph %d: %q, want %q", i, ps[i], want[i])
		}
	}
	if g := Gutenberg("head\n*** START OF X ***\nbody\n*** END OF X ***\nlicence"); g != "body\n" {
		t.Errorf("Gutenberg body %q", g)
	}
}

func TestAlignTransfer(t *testing.T) {
	t.Parallel()
	ref := strings.Fields("he was not an ill disposed young man unless he was")
	marks := make([]Mark, len(ref))
	marks[7], marks[10] = Comma, Period
	// "young man" dropped to "young", "an" misheard, "was" inserted.
	hyp := strings.Fields("he was not and ill disposed young unless he was was")
	al := align(ref, hyp)
	got := transferMarks(marks, al)
	want := []Mark{None, None, None, None, None, None, Comma, None, None, None, Period}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("marks %v, want %v (alignment %v)", got, want, al)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	f.Add(`"Oh!" said Mr. Smith--"is it 3,000?"`)
	f.Add("Algernon.  [x] Yes.\n\nB")
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range Paragraphs(s) {
			toks := Tokenize(p.Text)
			for _, tk := range toks {
				if tk.Word == "" || tk.Mark >= numMarks {
					t.Fatalf("bad token %+v from %q", tk, p.Text)
				}
			}
			if len(toks) > 0 && !toks[len(toks)-1].Mark.EndsSentence() {
				t.Fatalf("paragraph %q does not end a sentence", p.Text)
			}
		}
	})
}
