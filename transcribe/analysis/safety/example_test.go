package safety_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety"
)

func ExampleStage() {
	var ws []transcribe.Word
	for i, w := range strings.Fields("Welcome back to the show. Officials said the earthquake destroyed hundreds of homes. Now, the weather.") {
		ws = append(ws, transcribe.Word{Text: w, Start: int64(i) * 300, End: int64(i)*300 + 250})
	}
	on, conf := true, int64(50)
	t := &transcribe.Transcript{Words: ws}
	t.ContentSafety, t.ContentSafetyConfidence = &on, &conf
	st := safety.Stages(safety.Options{})[0]
	if err := st.Apply(context.Background(), &transcribe.Job{Transcript: t}); err != nil {
		panic(err)
	}
	for _, r := range t.ContentSafetyLabels.Results {
		fmt.Printf("sentences %d-%d, %d-%d ms: %s\n", r.SentencesIdxStart, r.SentencesIdxEnd, r.Timestamp.Start, r.Timestamp.End, r.Text)
		for _, l := range r.Labels {
			fmt.Printf("  %s severity known: %v\n", l.Label, l.Severity != nil)
		}
	}
	// Output:
	// sentences 0-2, 0-4750 ms: Welcome back to the show. Officials said the earthquake destroyed hundreds of homes. Now, the weather.
	//   disasters severity known: true
	//   negative_news severity known: false
}
