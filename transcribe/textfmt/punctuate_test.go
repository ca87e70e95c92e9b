package textfmt

import (
	"testing"
	"time"
)

// TestPunctuate: the pause rules (PauseOnly), the baseline.
func TestPunctuate(t *testing.T) {
	cases := []struct{ in, want string }{
		{"hello there", "hello there."},
		{"however it worked", "however, it worked."},
		{"it was fine // what happened next", "it was fine. what happened next?"},
		{"so how are you", "so how are you?"},
		{"is it raining", "is it raining?"},
		{"the cat sat / on the mat", "the cat sat, on the mat."},
		{"well i think so", "well, i think so."},
		{"no one came", "no one came."},
		{"no i did not", "no, i did not."},
		{"i tried it but it failed", "i tried it, but it failed."},
		{"we were late so we left", "we were late, so we left."},
		{"it was so good", "it was so good."},
		{"i went to / the shop", "i went to the shop."},
		{"done", "done."},
		{"done.", "done."},
		{"what, // yes", "what? yes."},
		{"um what is it", "um what is it?"},
		{"when i was young we lived there", "when i was young we lived there."},
		{"what i mean is this", "what i mean is this."},
		{"had he known he would have come", "had he known he would have come."},
		{"do it now", "do it now."},
		{"do you know", "do you know?"},
		{"have a nice day", "have a nice day."},
		{"have you eaten", "have you eaten?"},
		{"did the train leave", "did the train leave?"},
		{"can sarah come", "can sarah come?"},
		{"it is cold isn't it", "it is cold isn't it?"},
		{"will power matters", "will power matters."},
		{"what a day", "what a day."},
	}
	for _, c := range cases {
		ws := words(c.in)
		Punctuator{PauseOnly: true}.Punctuate(ws)
		if got := text(ws); got != c.want {
			t.Errorf("Punctuate(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPunctuateSpeakerChangeEndsSentence(t *testing.T) {
	a, b := "A", "B"
	ws := words("how are you fine thanks")
	for i := range ws {
		ws[i].Speaker = &a
		if i >= 3 {
			ws[i].Speaker = &b
		}
	}
	Punctuator{PauseOnly: true}.Punctuate(ws)
	if got := text(ws); got != "how are you? fine thanks." {
		t.Errorf("got %q", got)
	}
}

func TestPunctuateLongSentenceSplit(t *testing.T) {
	in := ""
	for i := 0; i < 30; i++ {
		in += "word "
	}
	in += "/ "
	for i := 0; i < 30; i++ {
		in += "word "
	}
	ws := words(in)
	Punctuator{PauseOnly: true}.Punctuate(ws)
	if ws[29].Text != "word." || ws[59].Text != "word." {
		t.Errorf("long sentence not split at its pause: %q", text(ws))
	}
	ws = words(in)
	Punctuator{MaxSentenceWords: -1, PauseOnly: true}.Punctuate(ws)
	if ws[29].Text != "word," {
		t.Errorf("MaxSentenceWords -1 split anyway: %q", ws[29].Text)
	}
}

func TestPunctuatorValidate(t *testing.T) {
	if err := (Punctuator{}).Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []Punctuator{
		{SentencePause: -time.Second},
		{CommaPause: time.Second},
		{CommaPause: -1},
	}
	for _, p := range bad {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v validated", p)
		}
	}
}
