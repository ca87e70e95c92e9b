package topics

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Limits from the API documentation: up to 20 of the 698 categories are
// assigned.
const (
	DefaultMaxLabels    = 20
	DefaultMaxSummary   = 20
	DefaultMinRelevance = 0.05
)

// Options configures the topic stage. The zero value means the defaults.
type Options struct {
	// MaxLabels caps the labels of one paragraph. 0 means
	// DefaultMaxLabels (20).
	MaxLabels int
	// MaxSummary caps the labels of the transcript-wide summary. 0 means
	// DefaultMaxSummary (20).
	MaxSummary int
	// MinRelevance drops paragraph labels less relevant than this. 0 means
	// DefaultMinRelevance (0.05); a negative value keeps every label that
	// has any evidence.
	MinRelevance float64
	// Chooser, when not nil, lets a language model keep the labels of the
	// summary that the transcript is really about (Stage only; the other
	// labels leave the summary and the paragraphs). Default: the
	// classifier's labels alone.
	Chooser Chooser
}

// Chooser picks the items of a list that fit a text, best first, at most
// max of them, each as written in options: a language model (package
// llm's Client). Stage keeps the classifier's result on any error or an
// empty choice. Implementations must be safe for concurrent use.
type Chooser interface {
	Choose(ctx context.Context, task, text string, options []string, max int) ([]string, error)
}

func (o Options) withDefaults() Options {
	if o.MaxLabels <= 0 {
		o.MaxLabels = DefaultMaxLabels
	}
	if o.MaxSummary <= 0 {
		o.MaxSummary = DefaultMaxSummary
	}
	switch {
	case o.MinRelevance == 0:
		o.MinRelevance = DefaultMinRelevance
	case o.MinRelevance < 0:
		o.MinRelevance = 0
	}
	return o
}

// Stages returns the topic detection stages, for transcribe/pipeline:
// Stage (iab_categories) and CustomStage (custom_topics with topics).
func Stages(opts Options) []transcribe.Stage {
	return []transcribe.Stage{Stage{Options: opts}, CustomStage{Options: opts}}
}

// Stage fills Transcript.IABCategoriesResult (iab_categories): one result
// per paragraph of GET /v2/transcript/{id}/paragraphs with its labels and
// timestamp, and a summary of at most MaxSummary labels over the whole
// transcript. It is safe for concurrent use.
type Stage struct {
	Options Options
}

var (
	_ transcribe.PendingStage  = Stage{}
	_ transcribe.FallibleStage = Stage{}
)

// Name returns "iab_categories".
func (Stage) Name() string { return "iab_categories" }

// Enabled reports whether iab_categories is on.
func (Stage) Enabled(p *transcribe.TranscriptParams) bool { return transcribe.IsTrue(p.IABCategories) }

// Pending sets the result to what a queued transcript shows: {}.
func (Stage) Pending(t *transcribe.Transcript) {
	t.IABCategoriesResult = &transcribe.TopicDetectionResult{}
}

// Unavailable sets the result to {"status": "unavailable", "results": [],
// "summary": {}}.
func (Stage) Unavailable(t *transcribe.Transcript) {
	t.IABCategoriesResult = &transcribe.TopicDetectionResult{Status: "unavailable"}
}

// Apply classifies every paragraph. An empty transcript gets status
// "success" with no results. It fails only when ctx is done or the
// embedded data is broken.
func (s Stage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	c, err := Default()
	if err != nil {
		return err
	}
	res, err := c.Detect(ctx, job.Transcript, s.Options)
	if err != nil {
		return err
	}
	if s.Options.Chooser != nil && len(res.Summary) > 0 {
		if err := choose(ctx, s.Options.Chooser, job.Transcript, res); err != nil {
			return err
		}
	}
	job.Transcript.IABCategoriesResult = res
	return nil
}

// chooseTask is what the Chooser is asked for.
const chooseTask = "the IAB topics this transcript is really about (leave out those it only mentions in passing)"

// choose asks ch which of the summary's labels the transcript is about and
// drops the others from the summary and the paragraphs' labels. It leaves
// res as it is on any error of ch or an empty or unknown choice, and
// returns ctx's error when ctx is done.
func choose(ctx context.Context, ch Chooser, t *transcribe.Transcript, res *transcribe.TopicDetectionResult) error {
	labels := make([]string, 0, len(res.Summary))
	for l := range res.Summary {
		labels = append(labels, l)
	}
	sort.Slice(labels, func(i, j int) bool {
		if a, b := res.Summary[labels[i]], res.Summary[labels[j]]; a != b {
			return a > b
		}
		return labels[i] < labels[j]
	})
	text := ""
	if t.Text != nil {
		text = *t.Text
	}
	chosen, err := ch.Choose(ctx, chooseTask, text, labels, len(labels))
	if ctx.Err() != nil {
		return fmt.Errorf("topics: %w", ctx.Err())
	}
	keep := map[string]bool{}
	for _, l := range chosen {
		if _, ok := res.Summary[l]; ok {
			keep[l] = true
		}
	}
	if err != nil || len(keep) == 0 {
		return nil
	}
	for l := range res.Summary {
		if !keep[l] {
			delete(res.Summary, l)
		}
	}
	for i := range res.Results {
		ls := res.Results[i].Labels[:0:0]
		for _, l := range res.Results[i].Labels {
			if keep[l.Label] {
				ls = append(ls, l)
			}
		}
		res.Results[i].Labels = ls
	}
	return nil
}

// Detect returns the topic detection result of a transcript (see Stage).
// It fails only when ctx is done.
func (c *Classifier) Detect(ctx context.Context, t *transcribe.Transcript, opts Options) (*transcribe.TopicDetectionResult, error) {
	o := opts.withDefaults()
	res := &transcribe.TopicDetectionResult{Status: "success", Results: []transcribe.TopicDetectionItem{}, Summary: map[string]float64{}}
	total := map[string]float64{}
	words := 0
	for _, p := range nlp.Paragraphs(t) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("topics: %w", err)
		}
		labels := c.ClassifyStems(Stems(t.Words[p.From:p.To]), o.MaxLabels, o.MinRelevance)
		res.Results = append(res.Results, transcribe.TopicDetectionItem{
			Text: p.Text, Labels: labels, Timestamp: transcribe.Timestamp{Start: p.Start, End: p.End},
		})
		for _, l := range labels {
			total[l.Label] += l.Relevance * float64(p.Len())
		}
		words += p.Len()
	}
	type kv struct {
		label string
		v     float64
	}
	var all []kv
	for l, v := range total {
		if v = math.Round(v/float64(words)*1e4) / 1e4; v > 0 {
			all = append(all, kv{l, v})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return all[i].label < all[j].label
	})
	for i, x := range all {
		if i >= o.MaxSummary {
			break
		}
		res.Summary[x.label] = x.v
	}
	return res, nil
}
