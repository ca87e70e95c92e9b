package safety

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Defaults of Options.
const (
	DefaultMaxSegmentWords  = 80
	DefaultMaxSegmentMillis = 30000
)

// ErrOptions is wrapped by the error of an invalid Options.
var ErrOptions = errors.New("safety: invalid options")

// Options configures the stage. The zero value means the defaults.
type Options struct {
	// MaxSegmentWords caps a segment (a run of whole sentences of one
	// paragraph that is classified as a unit). Zero means
	// DefaultMaxSegmentWords (80); a sentence longer than the cap is a
	// segment alone.
	MaxSegmentWords int
	// MaxSegmentMillis caps a segment's duration. Zero means
	// DefaultMaxSegmentMillis (30 s, about the length of the API's
	// documented example segment).
	MaxSegmentMillis int64
	// Chooser, when not nil, lets a language model confirm the labels of
	// each flagged segment (Stage.Apply only): a label it does not keep
	// leaves the segment. Default: the detector's labels alone.
	Chooser Chooser
}

// Validate reports an invalid field, wrapping ErrOptions.
func (o Options) Validate() error {
	if o.MaxSegmentWords < 0 {
		return fmt.Errorf("%w: MaxSegmentWords must not be negative, got %d", ErrOptions, o.MaxSegmentWords)
	}
	if o.MaxSegmentMillis < 0 {
		return fmt.Errorf("%w: MaxSegmentMillis must not be negative, got %d", ErrOptions, o.MaxSegmentMillis)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.MaxSegmentWords == 0 {
		o.MaxSegmentWords = DefaultMaxSegmentWords
	}
	if o.MaxSegmentMillis == 0 {
		o.MaxSegmentMillis = DefaultMaxSegmentMillis
	}
	return o
}

// Stages returns the content safety stage configured by opts, for
// transcribe.Config.Stages (after formatting, redaction and utterances).
func Stages(opts Options) []transcribe.Stage { return []transcribe.Stage{Stage{Options: opts}} }

// Stage fills Transcript.ContentSafetyLabels (content_safety). See the
// package documentation for the method. It implements
// transcribe.PendingStage ({} while queued) and transcribe.FallibleStage
// ({"status": "unavailable", ...} when it fails). It is safe for
// concurrent use.
type Stage struct {
	Options Options
}

var (
	_ transcribe.PendingStage  = Stage{}
	_ transcribe.FallibleStage = Stage{}
)

// Name returns "content_safety".
func (Stage) Name() string { return "content_safety" }

// Enabled reports whether content_safety is on.
func (Stage) Enabled(p *transcribe.TranscriptParams) bool {
	return p.ContentSafety != nil && *p.ContentSafety
}

// Pending sets the {} the API shows before the analysis has run.
func (Stage) Pending(t *transcribe.Transcript) {
	t.ContentSafetyLabels = &transcribe.ContentSafetyLabelsResult{}
}

// Unavailable sets the API's "unavailable" form.
func (Stage) Unavailable(t *transcribe.Transcript) {
	t.ContentSafetyLabels = &transcribe.ContentSafetyLabelsResult{Status: "unavailable"}
}

// Apply sets job.Transcript.ContentSafetyLabels. It fails on invalid
// options (wrapping ErrOptions) and on a cancelled context.
func (s Stage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	t := job.Transcript
	threshold := float64(transcribe.DefaultContentSafetyConf) / 100
	if c := t.ContentSafetyConfidence; c != nil {
		threshold = float64(*c) / 100
	}
	r, err := s.Analyze(ctx, t, threshold)
	if err != nil {
		return err
	}
	if s.Options.Chooser != nil && len(r.Results) > 0 {
		if err := confirm(ctx, s.Options.Chooser, r); err != nil {
			return err
		}
	}
	t.ContentSafetyLabels = r
	return nil
}

// Analyze returns the content safety result of t, reporting labels whose
// confidence is at least threshold (0..1), without changing t.
func (s Stage) Analyze(ctx context.Context, t *transcribe.Transcript, threshold float64) (*transcribe.ContentSafetyLabelsResult, error) {
	if err := s.Options.Validate(); err != nil {
		return nil, err
	}
	if math.IsNaN(threshold) || threshold < 0 || threshold > 1 {
		return nil, fmt.Errorf("%w: threshold must be in [0, 1], got %v", ErrOptions, threshold)
	}
	o := s.Options.withDefaults()
	res := &transcribe.ContentSafetyLabelsResult{
		Status:               "success",
		Results:              []transcribe.ContentSafetyLabelResult{},
		Summary:              map[string]float64{},
		SeverityScoreSummary: map[string]transcribe.SeverityScoreSummary{},
	}
	if t == nil || len(t.Words) == 0 {
		return res, nil
	}
	toks := nlp.Tokens(t.Words)
	sentences := nlp.Sentences(t)
	for _, seg := range segments(sentences, nlp.Paragraphs(t), o) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		first, last := sentences[seg[0]], sentences[seg[1]]
		var labels []transcribe.ContentSafetyLabel
		for _, sc := range Detect(toks[first.From:last.To]) {
			if sc.Confidence < threshold {
				continue
			}
			l := transcribe.ContentSafetyLabel{Label: sc.Label, Confidence: sc.Confidence}
			if sc.Severity >= 0 {
				v := sc.Severity
				l.Severity = &v
			}
			labels = append(labels, l)
		}
		if len(labels) == 0 {
			continue
		}
		res.Results = append(res.Results, transcribe.ContentSafetyLabelResult{
			Text:              transcribe.JoinWords(t.Words[first.From:last.To]),
			Labels:            labels,
			SentencesIdxStart: int64(seg[0]),
			SentencesIdxEnd:   int64(seg[1]),
			Timestamp:         transcribe.Timestamp{Start: first.Start, End: last.End},
		})
	}
	summarize(res)
	return res, ctx.Err()
}

// segments groups sentences into the units classified: consecutive
// sentences of one paragraph, up to o.MaxSegmentWords words and
// o.MaxSegmentMillis. It returns inclusive sentence index ranges.
func segments(ss, ps []nlp.Span, o Options) [][2]int {
	var out [][2]int
	p := 0
	start, words := -1, 0
	for i, s := range ss {
		for p < len(ps) && ps[p].To <= s.From {
			p++
		}
		newPara := start >= 0 && p < len(ps) && s.From == ps[p].From
		if start >= 0 && (newPara || words+s.Len() > o.MaxSegmentWords || s.End-ss[start].Start > o.MaxSegmentMillis) {
			out = append(out, [2]int{start, i - 1})
			start, words = -1, 0
		}
		if start < 0 {
			start = i
		}
		words += s.Len()
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(ss) - 1})
	}
	return out
}

// Severity levels of severity_score_summary: a severity below
// LowSeverityBelow is low, from MediumSeverityFrom to HighSeverityFrom
// medium, above high.
const (
	LowSeverityBelow   = 0.4
	MediumSeverityFrom = LowSeverityBelow
	HighSeverityFrom   = 0.7
)

// summarize fills summary and severity_score_summary from the results.
//
// summary[label] is the probability that the file contains the label,
// reading the segment confidences as independent: 1 - Π(1 - c).
// severity_score_summary[label] is the share of the label's flagged time
// (segment durations) at low, medium and high severity; the three add up
// to 1. Labels without severity are absent from it.
func summarize(res *transcribe.ContentSafetyLabelsResult) {
	notP := map[string]float64{}
	bins := map[string]*[3]float64{}
	for _, r := range res.Results {
		d := float64(max(r.Timestamp.End-r.Timestamp.Start, 1))
		for _, l := range r.Labels {
			if _, ok := notP[l.Label]; !ok {
				notP[l.Label] = 1
			}
			notP[l.Label] *= 1 - l.Confidence
			if l.Severity == nil {
				continue
			}
			b := bins[l.Label]
			if b == nil {
				b = &[3]float64{}
				bins[l.Label] = b
			}
			switch s := *l.Severity; {
			case s < LowSeverityBelow:
				b[0] += d
			case s < HighSeverityFrom:
				b[1] += d
			default:
				b[2] += d
			}
		}
	}
	for l, q := range notP {
		res.Summary[l] = round(1 - q)
	}
	for l, b := range bins {
		total := b[0] + b[1] + b[2]
		low, medium := round(b[0]/total), round(b[1]/total)
		res.SeverityScoreSummary[l] = transcribe.SeverityScoreSummary{Low: low, Medium: medium, High: round(1 - low - medium)}
	}
	sort.SliceStable(res.Results, func(i, j int) bool { return res.Results[i].SentencesIdxStart < res.Results[j].SentencesIdxStart })
}
