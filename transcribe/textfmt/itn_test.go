package textfmt

import "testing"

func TestITN(t *testing.T) {
	cases := []struct{ in, want string }{
		// cardinals
		{"i have twenty five apples", "i have 25 apples"},
		{"one hundred and twelve people", "112 people"},
		{"a hundred people", "a hundred people"},
		{"a million thanks", "a million thanks"},
		{"a hundred dollars", "$100"},
		{"open twenty four seven", "open 24/7"},
		{"back in the nineteen eighties", "back in the 1980s"},
		{"the twenty twenties", "the 2020s"},
		{"one of them had two cats", "one of them had two cats"},
		{"ten people", "10 people"},
		{"twelve thousand five hundred", "12,500"},
		{"two thousand five hundred people", "2,500 people"},
		{"in two thousand twenty four we", "in 2024 we"},
		{"five million people", "5 million people"},
		{"three point one four", "3.14"},
		{"zero point five", "0.5"},
		{"zero", "zero"},
		{"one two", "one two"},
		// years
		{"in nineteen ninety nine", "in 1999"},
		{"twenty twenty four was long", "2024 was long"},
		{"since eighteen twelve", "since 1812"},
		{"nineteen hundred", "1900"},
		{"twenty oh five", "2005"},
		// ordinals
		{"the twenty first century", "the 21st century"},
		{"the first time", "the first time"},
		{"the tenth time", "the 10th time"},
		{"the fifth of may", "the 5th of may"},
		{"the one hundredth day", "the 100th day"},
		{"twenty second", "22nd"},
		{"the eleventh the twelfth", "the 11th the 12th"},
		{"one hundred thirteenth", "113th"},
		{"twenty third", "23rd"},
		{"one hundred and first", "101st"},
		{"the one thousandth", "the 1000th"},
		// already digits (another engine)
		{"25 dollars", "$25"},
		{"50 percent", "50%"},
		{"at 3 p m", "at 3 PM"},
		{"1999", "1999"},
		// money
		{"twenty five dollars", "$25"},
		{"three dollars and fifty cents", "$3.50"},
		{"one dollar", "$1"},
		{"two dollars five cents", "$2.05"},
		{"five million dollars", "$5 million"},
		{"three point five dollars", "$3.50"},
		{"ten bucks", "$10"},
		{"fifty cents", "50 cents"},
		// percent
		{"ten percent", "10%"},
		{"five per cent", "5%"},
		{"twelve point five percent", "12.5%"},
		// times
		{"at three thirty p m", "at 3:30 PM"},
		{"three thirty pm", "3:30 PM"},
		{"seven o'clock", "7 o'clock"},
		{"seven o clock", "7 o'clock"},
		{"ten a m", "10 AM"},
		{"at seven fifteen", "at 7:15"},
		{"at seven oh five", "at 7:05"},
		{"twelve forty five a m", "12:45 AM"},
		{"three thirty people", "three 30 people"},
		// dates
		{"january fifth", "january 5th"},
		{"on march third twenty twenty four", "on march 3rd, 2024"},
		{"july four", "july 4"},
		{"may twenty twenty", "may 2020"},
		{"june first two thousand twenty", "june 1st, 2020"},
		// digit sequences
		{"call five five five one two three four", "call 555-1234"},
		{"five five five one two three four five six seven", "555-123-4567"},
		{"one eight hundred", "one 800"},
		{"room three oh five", "room 305"},
		{"one eight zero zero five five five one two three four", "1-800-555-1234"},
		{"pin one two three four", "pin 1234"},
		// addresses
		{"email john at example dot com", "email john@example.com"},
		{"john dot smith at mail dot example dot co dot uk", "john.smith@mail.example.co.uk"},
		{"reach me at example dot com", "reach me at example.com"},
		{"visit w w w dot example dot com", "visit www.example.com"},
		{"visit example dot com slash pricing", "visit example.com/pricing"},
		{"connect the dot to me", "connect the dot to me"},
		{"he was at home", "he was at home"},
	}
	for _, c := range cases {
		got := text(ITN{}.Format(words(c.in)))
		if got != c.want {
			t.Errorf("ITN(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestITNTimingAndConfidence(t *testing.T) {
	ws := words("paid twenty five dollars today")
	ws[1].Confidence, ws[2].Confidence, ws[3].Confidence = 0.6, 0.9, 0.9
	out := ITN{}.Format(ws)
	if len(out) != 3 || out[1].Text != "$25" {
		t.Fatalf("got %q", text(out))
	}
	if out[1].Start != ws[1].Start || out[1].End != ws[3].End {
		t.Errorf("span %d-%d, want %d-%d", out[1].Start, out[1].End, ws[1].Start, ws[3].End)
	}
	if c := out[1].Confidence; c < 0.799 || c > 0.801 {
		t.Errorf("confidence %v, want mean 0.8", c)
	}
	if ws[1].Text != "twenty" {
		t.Error("Format modified its input")
	}
}

func TestITNSpeakerBoundary(t *testing.T) {
	a, b := "A", "B"
	ws := words("twenty five")
	ws[0].Speaker, ws[1].Speaker = &a, &b
	if got := text(ITN{}.Format(ws)); got != "20 five" {
		t.Errorf("merged across speakers: %q", got)
	}
	ws[1].Speaker = &a
	if got := text(ITN{}.Format(ws)); got != "25" {
		t.Errorf("same speaker: %q", got)
	}
}

func TestITNSpellOutBelow(t *testing.T) {
	if got := text(ITN{SpellOutBelow: -1}.Format(words("one of two"))); got != "1 of 2" {
		t.Errorf("SpellOutBelow -1: %q", got)
	}
	if got := text(ITN{SpellOutBelow: 100}.Format(words("fifty and one hundred"))); got != "fifty and 100" {
		t.Errorf("SpellOutBelow 100: %q", got)
	}
}
