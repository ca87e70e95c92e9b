package diarize_test

import (
	"context"
	"fmt"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/diarize"
)

func str(s string) *string { return &s }

// Utterances are built turn by turn from words that carry speakers.
func ExampleBuildUtterances() {
	words := []transcribe.Word{
		{Text: "Hello,", Start: 0, End: 300, Confidence: 0.9, Speaker: str("A")},
		{Text: "Bob.", Start: 320, End: 600, Confidence: 0.7, Speaker: str("A")},
		{Text: "Hi!", Start: 900, End: 1100, Confidence: 0.8, Speaker: str("B")},
	}
	for _, u := range diarize.BuildUtterances(words) {
		fmt.Printf("%s %d-%d %.2f %q\n", u.Speaker, u.Start, u.End, u.Confidence, u.Text)
	}
	// Output:
	// A 0-600 0.80 "Hello, Bob."
	// B 900-1100 0.80 "Hi!"
}

// ScoreDER compares a hypothesis with the truth under the best speaker
// mapping; hypothesis labels need not match reference labels.
func ExampleScoreDER() {
	ref := []diarize.Segment{{Start: 0, End: 2000, Speaker: 0}, {Start: 2000, End: 4000, Speaker: 1}}
	hyp := []diarize.Segment{{Start: 0, End: 2500, Speaker: 1}, {Start: 2500, End: 4000, Speaker: 0}}
	res := diarize.ScoreDER(ref, hyp, 0)
	fmt.Printf("DER %.1f%%, confusion %v, hyp 1 is ref %d\n", 100*res.DER, res.Confusion, res.Mapping[1])
	// With a 250 ms collar only the part of the error beyond it counts.
	res = diarize.ScoreDER(ref, hyp, 250*time.Millisecond)
	fmt.Printf("DER %.1f%% with collar\n", 100*res.DER)
	// Output:
	// DER 12.5%, confusion 500ms, hyp 1 is ref 0
	// DER 8.3% with collar
}

// The stages go after text formatting in the Service's pipeline; a
// stronger diarizer replaces the default through SpeakerStage.Diarizer.
func ExampleStages() {
	var formatting []transcribe.Stage // punctuation, casing, ...
	stages := append(formatting, diarize.Stages()...)
	for _, s := range stages {
		fmt.Println(s.Name())
	}
	custom := []transcribe.Stage{&diarize.SpeakerStage{Diarizer: myEngine{}}, diarize.UtteranceStage{}}
	_ = transcribe.Config{Stages: custom}
	// Output:
	// speaker_labels
	// utterances
}

// myEngine stands in for a model-based diarizer (for example one built on
// sherpa-onnx speaker embeddings).
type myEngine struct{}

func (myEngine) Diarize(ctx context.Context, audio []int16, rate int, o diarize.Options) ([]diarize.Segment, error) {
	return []diarize.Segment{{Start: 0, End: int64(len(audio)) * 1000 / int64(rate), Speaker: 0}}, nil
}

func ExampleLetter() {
	fmt.Println(diarize.Letter(0), diarize.Letter(1), diarize.Letter(25), diarize.Letter(26))
	// Output: A B Z AA
}
