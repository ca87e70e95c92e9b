package safety

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// scripted is a Chooser that answers with a function of the passage and
// its labels.
type scripted func(text string, options []string) ([]string, error)

func (s scripted) Choose(ctx context.Context, task, text string, options []string, max int) ([]string, error) {
	return s(text, options)
}

const twoFlagged = "He pulled a gun and shot the cashier during the robbery.\n\n" +
	"She smoked two packs of cigarettes a day and could not quit smoking."

func confirmed(t *testing.T, o Options) *transcribe.ContentSafetyLabelsResult {
	t.Helper()
	tr := nlptest.Transcript(nlptest.Words(twoFlagged))
	tr.ContentSafety = transcribe.Ptr(true)
	if err := Stages(o)[0].Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	return tr.ContentSafetyLabels
}

func TestChooser(t *testing.T) {
	t.Parallel()
	own := confirmed(t, Options{})
	if len(own.Results) < 2 || own.Summary["tobacco"] == 0 {
		t.Fatalf("the detector flags %d segments (summary %v); the test needs the robbery and the smoking flagged", len(own.Results), own.Summary)
	}
	// The model says the smoking passage has no label that applies, and
	// keeps every label of the other.
	var asked int
	got := confirmed(t, Options{Chooser: scripted(func(text string, opts []string) ([]string, error) {
		asked++
		if strings.Contains(text, "cigarettes") {
			return []string{}, nil
		}
		return opts, nil
	})})
	if asked != len(own.Results) {
		t.Errorf("asked %d times for %d flagged segments", asked, len(own.Results))
	}
	if len(got.Results) != len(own.Results)-1 || got.Summary["tobacco"] != 0 {
		t.Fatalf("results %d (own %d), summary %v: the smoking passage should be gone", len(got.Results), len(own.Results), got.Summary)
	}
	if _, ok := got.SeverityScoreSummary["tobacco"]; ok {
		t.Errorf("severity summary still has tobacco: %v", got.SeverityScoreSummary)
	}
	for l, v := range got.Summary {
		if own.Summary[l] != v {
			t.Errorf("summary of %s: %v, was %v", l, v, own.Summary[l])
		}
	}
	// Failures and answers naming no label of the passage keep the
	// detector's labels.
	for name, ch := range map[string]scripted{
		"error":   func(string, []string) ([]string, error) { return nil, errors.New("model down") },
		"unknown": func(string, []string) ([]string, error) { return []string{"astrology"}, nil },
	} {
		got := confirmed(t, Options{Chooser: ch})
		if len(got.Results) != len(own.Results) || len(got.Summary) != len(own.Summary) {
			t.Errorf("%s: %d results, summary %v; want the detector's %d, %v", name, len(got.Results), got.Summary, len(own.Results), own.Summary)
		}
	}
}
