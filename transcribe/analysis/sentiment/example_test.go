package sentiment_test

import (
	"context"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/sentiment"
)

func ExampleAnalyzer_Classify() {
	for _, s := range []string{
		"The support team fixed it in ten minutes, brilliant!",
		"I've been on hold for an hour and nobody has helped me.",
		"The invoice is attached to the email.",
	} {
		r, err := sentiment.Analyzer{}.Classify(s)
		if err != nil {
			panic(err)
		}
		fmt.Println(r.Sentiment)
	}
	// Output:
	// POSITIVE
	// NEGATIVE
	// NEUTRAL
}

func ExampleStage() {
	a := "A"
	var ws []transcribe.Word
	for i, w := range []string{"The", "demo", "went", "really", "well.", "The", "invoice", "was", "wrong", "again."} {
		ws = append(ws, transcribe.Word{Text: w, Start: int64(i) * 400, End: int64(i)*400 + 300, Speaker: &a})
	}
	on := true
	t := &transcribe.Transcript{Words: ws}
	t.SentimentAnalysis = &on
	st := sentiment.Stages(sentiment.Options{})[0]
	if err := st.Apply(context.Background(), &transcribe.Job{Transcript: t}); err != nil {
		panic(err)
	}
	for _, r := range t.SentimentAnalysisResults {
		fmt.Printf("%d-%d %s %s: %s\n", r.Start, r.End, *r.Speaker, r.Sentiment, r.Text)
	}
	// Output:
	// 0-1900 A POSITIVE: The demo went really well.
	// 2000-3900 A NEGATIVE: The invoice was wrong again.
}
