package topics

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

const twoTopics = "Voters went to the polls on Tuesday, and the senator conceded the race after the ballots were counted.\n\n" +
	"The striker scored twice in the second half and the club moved to the top of the league table."

func detect(t *testing.T, o Options) *transcribe.TopicDetectionResult {
	t.Helper()
	tr := nlptest.Transcript(nlptest.Words(twoTopics))
	tr.IABCategories = transcribe.Ptr(true)
	if err := Stages(o)[0].Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	return tr.IABCategoriesResult
}

func TestChooser(t *testing.T) {
	t.Parallel()
	own := detect(t, Options{})
	if len(own.Summary) < 2 {
		t.Fatalf("the classifier gives %d summary labels; the test needs two or more", len(own.Summary))
	}
	// The model keeps the second label of the summary only.
	c := &nlptest.Chooser{Answer: func(opts []string) ([]string, error) { return []string{opts[1], "Not>A>Label"}, nil }}
	got := detect(t, Options{Chooser: c})
	if len(c.Options) != len(own.Summary) || c.Text == "" {
		t.Fatalf("asked with %d options (summary has %d), text %q", len(c.Options), len(own.Summary), c.Text)
	}
	if own.Summary[c.Options[0]] < own.Summary[c.Options[1]] {
		t.Errorf("options not in order of relevance: %q", c.Options)
	}
	kept := c.Options[1]
	if want := map[string]float64{kept: own.Summary[kept]}; !maps.Equal(got.Summary, want) {
		t.Fatalf("summary %v, want %v", got.Summary, want)
	}
	for _, r := range got.Results {
		for _, l := range r.Labels {
			if l.Label != kept {
				t.Errorf("paragraph %q keeps label %q", r.Text, l.Label)
			}
		}
	}
	// On a failure, an empty choice or only unknown labels, the
	// classifier's result stays.
	for name, answer := range map[string]func([]string) ([]string, error){
		"error":   func([]string) ([]string, error) { return nil, errors.New("model down") },
		"empty":   func([]string) ([]string, error) { return []string{}, nil },
		"unknown": func([]string) ([]string, error) { return []string{"Not>A>Label"}, nil },
	} {
		got := detect(t, Options{Chooser: &nlptest.Chooser{Answer: answer}})
		if !maps.Equal(got.Summary, own.Summary) || len(got.Results) != len(own.Results) ||
			!slices.EqualFunc(got.Results, own.Results, func(a, b transcribe.TopicDetectionItem) bool { return len(a.Labels) == len(b.Labels) }) {
			t.Errorf("%s: summary %v, want the classifier's %v", name, got.Summary, own.Summary)
		}
	}
}
