package textfmt_test

import (
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
)

// spoken builds recognizer-style words, 250 ms each with 20 ms gaps.
func spoken(words ...string) []transcribe.Word {
	ws := make([]transcribe.Word, len(words))
	for i, w := range words {
		start := int64(i) * 270
		ws[i] = transcribe.Word{Text: w, Start: start, End: start + 250, Confidence: 0.9}
	}
	return ws
}

func ExampleFormat() {
	ws := spoken("um", "my", "name", "is", "sarah", "and", "i", "paid", "twenty", "five", "dollars",
		"at", "three", "thirty", "p", "m")
	p := &transcribe.TranscriptParams{}
	p.Normalize() // punctuate, format_text: true; disfluencies: false
	out := textfmt.Format(ws, p)
	fmt.Println(transcribe.JoinWords(out))
	for _, w := range out[7:] {
		fmt.Printf("%s %d-%d\n", w.Text, w.Start, w.End)
	}
	// Output:
	// My name is Sarah and I paid $25 at 3:30 PM.
	// $25 2160-2950
	// at 2970-3220
	// 3:30 3240-3760
	// PM. 3780-4300
}

func ExampleStages() {
	for _, s := range textfmt.Stages() {
		fmt.Println(s.Name())
	}
	// Output:
	// format_text
	// punctuate
	// disfluencies
	// casing
	// custom_spelling
	// filter_profanity
}

func ExampleITN_Format() {
	for _, s := range [][]string{
		{"one", "hundred", "and", "twelve", "people"},
		{"the", "twenty", "first", "of", "june"},
		{"ten", "percent", "of", "five", "million"},
		{"call", "five", "five", "five", "one", "two", "three", "four"},
		{"john", "at", "example", "dot", "com"},
		{"in", "nineteen", "ninety", "nine"},
	} {
		fmt.Println(transcribe.JoinWords(textfmt.ITN{}.Format(spoken(s...))))
	}
	// Output:
	// 112 people
	// the 21st of june
	// 10% of 5 million
	// call 555-1234
	// john@example.com
	// in 1999
}

func ExampleProfanityFilter_Censor() {
	f := textfmt.ProfanityFilter{}
	fmt.Println(f.Censor("shit."), f.Censor("assess"), f.Censor("class"))
	// Output: s***. assess class
}
