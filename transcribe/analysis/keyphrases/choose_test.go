package keyphrases

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

func highlights(t *testing.T, o Options) ([]transcribe.AutoHighlight, error) {
	t.Helper()
	tr := nlptest.Transcript(nlptest.Words(sample))
	on := true
	tr.AutoHighlights = &on
	if err := Stages(o)[0].Apply(context.Background(), nlptest.Job(tr)); err != nil {
		return nil, err
	}
	return tr.AutoHighlightsResult.Results, nil
}

func texts(hs []transcribe.AutoHighlight) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Text)
	}
	return out
}

func TestChooser(t *testing.T) {
	t.Parallel()
	own, err := highlights(t, Options{MaxResults: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The model picks the last two of a wider pool, in its own order.
	c := &nlptest.Chooser{Answer: func(opts []string) ([]string, error) {
		return []string{opts[len(opts)-1], "not an option", opts[len(opts)-2]}, nil
	}}
	got, err := highlights(t, Options{MaxResults: 3, Chooser: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Options) <= 3 || len(c.Options) > 9 || c.Max != 3 || c.Text == "" || c.Task == "" {
		t.Fatalf("asked with %d options (max %d), text %q, task %q", len(c.Options), c.Max, c.Text, c.Task)
	}
	want := []string{c.Options[len(c.Options)-1], c.Options[len(c.Options)-2]}
	if !slices.Equal(texts(got), want) {
		t.Fatalf("chosen %q, want %q (options %q)", texts(got), want, c.Options)
	}
	if got[0].Rank != 1 || got[1].Rank != 0.5 {
		t.Errorf("ranks %v, %v; want 1, 0.5", got[0].Rank, got[1].Rank)
	}
	for _, h := range got {
		if h.Count == 0 || int(h.Count) != len(h.Timestamps) {
			t.Errorf("%q: count %d, %d timestamps", h.Text, h.Count, len(h.Timestamps))
		}
	}
	// On a failure, an empty choice or only unknown phrases, the stage
	// keeps its own result.
	for name, answer := range map[string]func([]string) ([]string, error){
		"error":   func([]string) ([]string, error) { return nil, errors.New("model down") },
		"empty":   func([]string) ([]string, error) { return []string{}, nil },
		"unknown": func([]string) ([]string, error) { return []string{"bitcoin"}, nil },
	} {
		got, err := highlights(t, Options{MaxResults: 3, Chooser: &nlptest.Chooser{Answer: answer}})
		if err != nil || !slices.Equal(texts(got), texts(own)) {
			t.Errorf("%s: %q, %v; want the stage's own %q", name, texts(got), err, texts(own))
		}
	}
}

func TestChooserCancelled(t *testing.T) {
	t.Parallel()
	tr := nlptest.Transcript(nlptest.Words(sample))
	on := true
	tr.AutoHighlights = &on
	ctx, cancel := context.WithCancel(context.Background())
	c := &nlptest.Chooser{Answer: func([]string) ([]string, error) { cancel(); return nil, context.Canceled }}
	if err := Stages(Options{Chooser: c})[0].Apply(ctx, nlptest.Job(tr)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Apply with the job cancelled while the model answers: %v", err)
	}
}
