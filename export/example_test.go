package export_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/earshot-dev/earshot/export"
	"github.com/earshot-dev/earshot/transcribe"
)

// demo is a completed transcript of six words.
func demo() *transcribe.Transcript {
	words := []transcribe.Word{
		{Text: "Welcome", Start: 250, End: 650, Confidence: 0.98},
		{Text: "to", Start: 700, End: 800, Confidence: 0.99},
		{Text: "New", Start: 850, End: 1000, Confidence: 0.97},
		{Text: "York.", Start: 1000, End: 1400, Confidence: 0.95},
		{Text: "Enjoy", Start: 1900, End: 2300, Confidence: 0.96},
		{Text: "it!", Start: 2350, End: 2600, Confidence: 0.99},
	}
	t := &transcribe.Transcript{ID: "tr-1", Status: transcribe.StatusCompleted, Words: words}
	t.Fill()
	return t
}

func ExampleSRT() {
	t := demo()
	os.Stdout.Write(export.SRT(t, 0))
	fmt.Println("---")
	os.Stdout.Write(export.SRT(t, 12)) // at most 12 characters per caption
	// Output:
	// 1
	// 00:00:00,250 --> 00:00:01,400
	// Welcome to New York.
	//
	// 2
	// 00:00:01,900 --> 00:00:02,600
	// Enjoy it!
	// ---
	// 1
	// 00:00:00,250 --> 00:00:00,800
	// Welcome to
	//
	// 2
	// 00:00:00,850 --> 00:00:01,400
	// New York.
	//
	// 3
	// 00:00:01,900 --> 00:00:02,600
	// Enjoy it!
}

func ExampleVTT() {
	os.Stdout.Write(export.VTT(demo(), 0))
	// Output:
	// WEBVTT
	//
	// 00:00.250 --> 00:01.400
	// Welcome to New York.
	//
	// 00:01.900 --> 00:02.600
	// Enjoy it!
}

func ExampleSentences() {
	for _, s := range export.Sentences(demo()).Sentences {
		fmt.Printf("%d-%d %q (%d words)\n", s.Start, s.End, s.Text, len(s.Words))
	}
	// Output:
	// 250-1400 "Welcome to New York." (4 words)
	// 1900-2600 "Enjoy it!" (2 words)
}

func ExampleSearch() {
	// The form-decoded value of ?words=new+york%2Cwelcome%2Cboston
	terms, err := export.ParseSearchTerms("new york,welcome,boston")
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(export.Search(demo(), terms))
	fmt.Println(string(b))
	// Output:
	// {"id":"tr-1","total_count":2,"matches":[{"text":"new york","count":1,"timestamps":[[850,1400]],"indexes":[2]},{"text":"welcome","count":1,"timestamps":[[250,650]],"indexes":[0]}]}
}

func ExampleParseSearchTerms() {
	_, err := export.ParseSearchTerms("one two three four five six")
	var pe *transcribe.ParamError
	fmt.Println(errors.As(err, &pe), pe.Field)
	// Output:
	// true words
}
