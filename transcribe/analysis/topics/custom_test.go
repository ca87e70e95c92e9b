package topics

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

func customTranscript(text string, topics ...string) *transcribe.Transcript {
	tr := nlptest.Transcript(nlptest.Words(text))
	tr.CustomTopics = transcribe.Ptr(true)
	tr.Topics = topics
	return tr
}

// findStage returns the stage of Stages named name.
func findStage(t *testing.T, name string) transcribe.Stage {
	t.Helper()
	for _, s := range Stages(Options{}) {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("Stages has no %q stage", name)
	return nil
}

// TestCustomTopics checks custom_topics_results: every requested topic
// scored per paragraph, by wording and by subject, decoded with the
// official SDK's type.
func TestCustomTopics(t *testing.T) {
	t.Parallel()
	tr := customTranscript("Voters went to the polls on Tuesday, and the senator conceded the race after the ballots were counted.\n\n"+
		"The striker scored twice in the second half and the club moved to the top of the league table.",
		"politics", "Sports>Soccer", "climate change", "politics")
	st := findStage(t, "custom_topics")
	if !st.Enabled(&tr.TranscriptParams) {
		t.Fatal("custom_topics stage not enabled by custom_topics")
	}
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	var got aai.TopicDetectionModelResult
	if err := json.Unmarshal(tr.CustomTopicsResults, &got); err != nil {
		t.Fatalf("SDK cannot decode %s: %v", tr.CustomTopicsResults, err)
	}
	if got.Status != "success" || len(got.Results) != 2 {
		t.Fatalf("result %s", tr.CustomTopicsResults)
	}
	rel := func(i int, label string) float64 {
		for _, l := range got.Results[i].Labels {
			if *l.Label == label {
				return *l.Relevance
			}
		}
		return 0
	}
	if rel(0, "politics") < 0.5 || rel(0, "politics") <= rel(1, "politics") {
		t.Errorf("politics: %.2f in the election paragraph, %.2f in the football one", rel(0, "politics"), rel(1, "politics"))
	}
	if rel(1, "Sports>Soccer") < 0.5 || rel(0, "Sports>Soccer") >= 0.5 {
		t.Errorf("Sports>Soccer: %.2f in the election paragraph, %.2f in the football one", rel(0, "Sports>Soccer"), rel(1, "Sports>Soccer"))
	}
	if rel(0, "climate change") >= 0.5 || rel(1, "climate change") >= 0.5 {
		t.Errorf("climate change is in neither paragraph: %s", tr.CustomTopicsResults)
	}
	if *got.Results[1].Timestamp.Start <= *got.Results[0].Timestamp.End-1 || *got.Results[1].Text == "" {
		t.Errorf("paragraph timestamps or text: %s", tr.CustomTopicsResults)
	}
	if len(got.Summary) == 0 || got.Summary["politics"] <= 0 || got.Summary["Sports>Soccer"] <= 0 {
		t.Errorf("summary %v", got.Summary)
	}
	// A repeated topic is scored once.
	n := 0
	for _, l := range got.Results[0].Labels {
		if *l.Label == "politics" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("politics appears %d times in the first paragraph's labels", n)
	}
}

func TestCustomTopicsForms(t *testing.T) {
	t.Parallel()
	st := findStage(t, "custom_topics").(CustomStage)
	tr := customTranscript("")
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if string(tr.CustomTopicsResults) != `{"status":"success","results":[],"summary":{}}` {
		t.Errorf("empty transcript: %s", tr.CustomTopicsResults)
	}
	st.Pending(tr)
	if string(tr.CustomTopicsResults) != `{}` {
		t.Errorf("pending: %s", tr.CustomTopicsResults)
	}
	st.Unavailable(tr)
	if string(tr.CustomTopicsResults) != `{"status":"unavailable","results":[],"summary":{}}` {
		t.Errorf("unavailable: %s", tr.CustomTopicsResults)
	}
	if st.Enabled(&transcribe.TranscriptParams{Topics: []string{"x"}}) {
		t.Error("enabled without custom_topics")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Apply(ctx, nlptest.Job(customTranscript("The senate passed the bill.", "politics"))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
