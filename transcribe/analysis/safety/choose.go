package safety

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/earshot-dev/earshot/transcribe"
)

// Chooser picks the items of a list that fit a text, best first, at most
// max of them, each as written in options: a language model (package
// llm's Client). Implementations must be safe for concurrent use.
type Chooser interface {
	Choose(ctx context.Context, task, text string, options []string, max int) ([]string, error)
}

// chooseTask is what the Chooser is asked for each flagged segment.
const chooseTask = "the content safety labels that truly apply to this passage " +
	"(leave out a label when the passage only uses a word figuratively, as in \"smoke from the fire\" for tobacco " +
	"or \"a shot at goal\" for weapons, or names it in passing); an empty array when none applies"

// maxConfirmations bounds the Chooser's calls for one transcript; the
// segments beyond it keep the detector's labels.
const maxConfirmations = 50

// confirmParallel is how many of one transcript's questions are in flight
// at once: a long, heavily flagged file waits for about a quarter of its
// answers one after another, and a local model server is not flooded.
const confirmParallel = 4

// confirm asks ch, for each flagged segment of res, which of its labels
// apply, and keeps those alone: a segment left with none is dropped (an
// empty answer is the model's "none applies"). A segment whose question
// fails (any error of ch, or only names that are not its labels) keeps the
// detector's labels. The questions go out confirmParallel at a time. The
// summaries are computed again. It returns ctx's error when ctx is done.
func confirm(ctx context.Context, ch Chooser, res *transcribe.ContentSafetyLabelsResult) error {
	n := min(len(res.Results), maxConfirmations)
	answers := make([][]string, n)
	failed := make([]bool, n)
	var g errgroup.Group
	g.SetLimit(confirmParallel)
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r := res.Results[i]
			names := make([]string, len(r.Labels))
			for j, l := range r.Labels {
				names[j] = l.Label
			}
			var err error
			answers[i], err = ch.Choose(ctx, chooseTask, r.Text, names, len(names))
			failed[i] = err != nil
			return nil
		})
	}
	_ = g.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("safety: %w", ctx.Err())
	}
	kept := res.Results[:0]
	for i, r := range res.Results {
		if i >= n || failed[i] {
			kept = append(kept, r)
			continue
		}
		chosen := answers[i]
		keep := map[string]bool{}
		for _, c := range chosen {
			keep[c] = true
		}
		labels := r.Labels[:0:0]
		for _, l := range r.Labels {
			if keep[l.Label] {
				labels = append(labels, l)
			}
		}
		switch {
		case len(labels) > 0:
			r.Labels = labels
			kept = append(kept, r)
		case len(chosen) > 0: // only names that are not its labels: no answer
			kept = append(kept, r)
		}
	}
	res.Results = kept
	res.Summary = map[string]float64{}
	res.SeverityScoreSummary = map[string]transcribe.SeverityScoreSummary{}
	summarize(res)
	return nil
}
