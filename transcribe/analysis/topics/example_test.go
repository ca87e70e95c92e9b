package topics_test

import (
	"context"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics"
)

func ExampleClassifier_Classify() {
	c, err := topics.Default()
	if err != nil {
		panic(err)
	}
	for _, l := range c.Classify("The pitcher threw a perfect game, and the fans cheered in the ninth inning.", 1, 0) {
		fmt.Println(l.Label)
	}
	// Output:
	// Sports>Baseball
}

func ExampleStage() {
	t := nlptest.Transcript(nlptest.Words("Smoke from the wildfires is triggering air quality alerts. Stay inside and run an air purifier if you have one."))
	t.IABCategories = transcribe.Ptr(true)
	st := topics.Stages(topics.Options{})[0]
	if err := st.Apply(context.Background(), &transcribe.Job{Transcript: t}); err != nil {
		panic(err)
	}
	r := t.IABCategoriesResult
	fmt.Println(r.Status, len(r.Results), r.Results[0].Labels[0].Label, r.Results[0].Timestamp.Start)
	// Output:
	// success 1 Home&Garden>IndoorEnvironmentalQuality 0
}
