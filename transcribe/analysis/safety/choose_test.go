package safety

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	var asked atomic.Int32
	got := confirmed(t, Options{Chooser: scripted(func(text string, opts []string) ([]string, error) {
		asked.Add(1)
		if strings.Contains(text, "cigarettes") {
			return []string{}, nil
		}
		return opts, nil
	})})
	if int(asked.Load()) != len(own.Results) {
		t.Errorf("asked %d times for %d flagged segments", asked.Load(), len(own.Results))
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

// TestChooserParallel: the questions of one transcript go out together,
// at most confirmParallel at a time.
func TestChooserParallel(t *testing.T) {
	t.Parallel()
	var now, most atomic.Int32
	got := confirmed(t, Options{Chooser: scripted(func(text string, opts []string) ([]string, error) {
		n := now.Add(1)
		defer now.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
		return opts, nil
	})})
	if len(got.Results) < 2 {
		t.Fatalf("%d flagged segments; the test needs two", len(got.Results))
	}
	if m := most.Load(); m < 2 || m > confirmParallel {
		t.Errorf("at most %d questions in flight at once; want 2 to %d", m, confirmParallel)
	}
}
