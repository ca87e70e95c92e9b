package textfmt

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt/punctmodel"
)

func TestCasing(t *testing.T) {
	cases := []struct{ in, want string }{
		{"my name is sarah.", "My name is Sarah."},
		{"i think i'm right and i'll go.", "I think I'm right and I'll go."},
		{"we flew to new york from san francisco.", "We flew to New York from San Francisco."},
		{"it was monday. then tuesday.", "It was Monday. Then Tuesday."},
		{"i will go in may.", "I will go in May."},
		{"you may go.", "You may go."},
		{"it may rain on may 5th.", "It may rain on May 5th."},
		{"we march in march.", "We march in March."},
		{"write to john@example.com today.", "Write to john@example.com today."},
		{"example.com is up.", "example.com is up."},
		{"$25 is fine. ok?", "$25 is fine. Ok?"},
		{"sarah's car.", "Sarah's car."},
		{"the united states of america.", "The United States of America."},
		{"rio de janeiro.", "Rio de Janeiro."},
		{"mark will bring grace.", "Mark will bring grace."},
		{"new. york", "New. York"},
		{"and mr john dashwood came.", "And Mr. John dashwood came."},
		{"ask mrs smith and dr jones.", "Ask Mrs. Smith and Dr. Jones."},
		{"it was mister.", "It was mister."},
	}
	for _, c := range cases {
		ws := words(c.in)
		Casing{}.Case(ws)
		if got := text(ws); got != c.want {
			t.Errorf("Case(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCasingSpeakerTurn(t *testing.T) {
	a, b := "A", "B"
	ws := words("yes sure")
	ws[0].Speaker, ws[1].Speaker = &a, &b
	Casing{}.Case(ws)
	if got := text(ws); got != "Yes Sure" {
		t.Errorf("got %q", got)
	}
}

// TestTitlesInAddress: a title said to someone, after a comma and before
// a mark, is capitalised like a name; the same word in a sentence, or
// "sir", is not.
func TestTitlesInAddress(t *testing.T) {
	m, err := punctmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"thank you, governor.", "thank you, Governor."},
		{"no, doctor, I was not there.", "no, Doctor, I was not there."},
		{"the governor, said it.", "the governor, said it."},
		{"yes, sir.", "yes, sir."},
		{"call the doctor.", "call the doctor."},
		{"so help me governor.", "so help me Governor."},
		{"yes doctor, I will.", "yes Doctor, I will."},
		{"thank you, the doctor said.", "thank you, the doctor said."},
	} {
		var ws []transcribe.Word
		for _, f := range strings.Fields(c.in) {
			ws = append(ws, transcribe.Word{Text: f})
		}
		if got := text(trueCase(m, ws)); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}
