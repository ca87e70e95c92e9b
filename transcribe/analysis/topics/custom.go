package topics

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// CustomStage fills Transcript.CustomTopicsResults (custom_topics with
// topics): the relevance of each requested topic in every paragraph and a
// summary over the transcript, in the shape of iab_categories_result
// ({"status", "results": [{"text", "labels": [{"label", "relevance"}],
// "timestamp"}], "summary"}), labels being the requested topics as
// written. It is safe for concurrent use.
//
// A topic's relevance in a paragraph is the larger of
//
//   - its wording: 1 − exp(−e/1.6), with e = 2 per occurrence of the
//     whole topic phrase and 1/(words of the topic) per occurrence of one
//     of its content words, compared as stems ("elections" matches
//     "election");
//   - its subject: when the topic is an IAB label ("Sports>Tennis") or
//     a category name ("Tennis"), that label's relevance; otherwise the
//     overlap of the family model's class probabilities for the topic and
//     the paragraph (Σ √(p_topic × p_paragraph), weighted by how sure the
//     model is of the topic's class, × 0.9), so "politics" is relevant to
//     a paragraph about an election that never says the word.
//
// Labels under Options.MinRelevance are left out; the summary is the
// word-weighted mean of a topic's relevance over the paragraphs.
type CustomStage struct {
	Options Options
}

var (
	_ transcribe.PendingStage  = CustomStage{}
	_ transcribe.FallibleStage = CustomStage{}
)

// Name returns "custom_topics".
func (CustomStage) Name() string { return "custom_topics" }

// Enabled reports whether custom_topics is on.
func (CustomStage) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.CustomTopics)
}

// Pending sets the result to what a queued transcript shows: {}.
func (CustomStage) Pending(t *transcribe.Transcript) { t.CustomTopicsResults = json.RawMessage(`{}`) }

// Unavailable sets {"status": "unavailable", "results": [], "summary": {}}.
func (CustomStage) Unavailable(t *transcribe.Transcript) {
	t.CustomTopicsResults = json.RawMessage(`{"status":"unavailable","results":[],"summary":{}}`)
}

// Apply sets job.Transcript.CustomTopicsResults. It fails only when ctx
// is done or the embedded data is broken.
func (s CustomStage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	c, err := Default()
	if err != nil {
		return err
	}
	res, err := c.DetectCustom(ctx, job.Transcript, job.Transcript.Topics, s.Options)
	if err != nil {
		return err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	job.Transcript.CustomTopicsResults = b
	return nil
}

// customTopic is one requested topic, prepared.
type customTopic struct {
	label  string   // as requested
	stems  []string // its content words' stems
	phrase string   // all its stems joined
	node   int      // its taxonomy node, or -1
	class  []float64
	sure   float64 // the family model's top class probability for it
}

func (c *Classifier) prepareTopics(topics []string) []customTopic {
	var out []customTopic
	seen := map[string]bool{}
	for _, l := range topics {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		ct := customTopic{label: l, node: -1}
		if i, ok := c.p.tx.index[l]; ok {
			ct.node = i
		} else {
			for i, n := range c.p.tx.nodes {
				if strings.EqualFold(n.name, l) {
					ct.node = i
					break
				}
			}
		}
		all := textStems(strings.NewReplacer(">", " ", "&", " ").Replace(l))
		ct.phrase = strings.Join(all, " ")
		ct.stems = Features(all)
		if c.fm != nil && len(ct.stems) > 0 {
			if p, ok := c.fm.familyShares(all, c.modelEvidence(all)); ok {
				ct.class = p
				for _, x := range p {
					ct.sure = max(ct.sure, x)
				}
			}
		}
		out = append(out, ct)
	}
	return out
}

// customRelevance is a topic's relevance in a paragraph of stems, whose
// taxonomy labels and class probabilities are given.
func (c *Classifier) customRelevance(t customTopic, stems []string, labels map[string]float64, p []float64) float64 {
	e := 0.0
	if n := strings.Count(t.phrase, " ") + 1; t.phrase != "" {
		for i := 0; i+n <= len(stems); i++ {
			if strings.Join(stems[i:i+n], " ") == t.phrase {
				e += 2
			}
		}
	}
	if len(t.stems) > 0 {
		want := map[string]bool{}
		for _, s := range t.stems {
			want[s] = true
		}
		for _, s := range stems {
			if want[s] {
				e += 1 / float64(len(t.stems))
			}
		}
	}
	rel := 1 - math.Exp(-e/1.6)
	switch {
	case t.node >= 0:
		rel = max(rel, labels[c.p.tx.nodes[t.node].label])
	case t.class != nil && p != nil:
		bc := 0.0
		for k := range p {
			bc += math.Sqrt(p[k] * t.class[k])
		}
		rel = max(rel, 0.9*bc*t.sure)
	}
	return math.Round(rel*1e4) / 1e4
}

// DetectCustom returns the custom_topics_results of a transcript for the
// requested topics (see CustomStage). It fails only when ctx is done.
func (c *Classifier) DetectCustom(ctx context.Context, t *transcribe.Transcript, topics []string, opts Options) (*transcribe.TopicDetectionResult, error) {
	o := opts.withDefaults()
	res := &transcribe.TopicDetectionResult{Status: "success", Results: []transcribe.TopicDetectionItem{}, Summary: map[string]float64{}}
	ts := c.prepareTopics(topics)
	total := make([]float64, len(ts))
	words := 0
	for _, para := range nlp.Paragraphs(t) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("topics: %w", err)
		}
		stems := Stems(t.Words[para.From:para.To])
		labels := map[string]float64{}
		for _, l := range c.ClassifyStems(stems, len(c.p.tx.nodes), 0) {
			labels[l.Label] = l.Relevance
		}
		var p []float64
		if c.fm != nil {
			p, _ = c.fm.familyShares(stems, c.modelEvidence(stems))
		}
		item := transcribe.TopicDetectionItem{Text: para.Text, Labels: []transcribe.TopicLabel{},
			Timestamp: transcribe.Timestamp{Start: para.Start, End: para.End}}
		for i, ct := range ts {
			r := c.customRelevance(ct, stems, labels, p)
			total[i] += r * float64(para.Len())
			if r >= o.MinRelevance && r > 0 {
				item.Labels = append(item.Labels, transcribe.TopicLabel{Label: ct.label, Relevance: r})
			}
		}
		sort.SliceStable(item.Labels, func(a, b int) bool { return item.Labels[a].Relevance > item.Labels[b].Relevance })
		res.Results = append(res.Results, item)
		words += para.Len()
	}
	for i, ct := range ts {
		if v := math.Round(total[i]/float64(max(words, 1))*1e4) / 1e4; v > 0 {
			res.Summary[ct.label] = v
		}
	}
	return res, nil
}
