package summary_test

import (
	"context"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/summary"
)

const talk = "Beekeepers across the country lost almost half of their honeybee colonies last winter. " +
	"The biggest problem is a tiny parasite called the varroa mite, which feeds on the bees and spreads viruses through the hive. " +
	"Pesticides sprayed on nearby crops weaken the colonies even further. " +
	"Some beekeepers now plant wildflower strips and feed their bees sugar syrup in the autumn."

func ExampleSummaryStage() {
	t := nlptest.Transcript(nlptest.Words(talk))
	t.Summarization = transcribe.Ptr(true)
	typ, model := transcribe.SummaryHeadline, transcribe.SummaryInformative
	t.SummaryType, t.SummaryModel = &typ, &model
	st := summary.Stages(summary.Options{})[0]
	if err := st.Apply(context.Background(), &transcribe.Job{Transcript: t}); err != nil {
		panic(err)
	}
	fmt.Println(*t.Summary)
	// Output:
	// Beekeepers across the country lost almost half of their honeybee colonies last winter.
}

func ExampleText_Gist() {
	x := summary.NewTextFromTranscript(nlptest.Transcript(nlptest.Words(talk)))
	fmt.Println(x.Gist(transcribe.SummaryInformative))
	fmt.Println(x.Gist(transcribe.SummaryCatchy))
	// Output:
	// Beekeepers
	// Beekeepers
}
