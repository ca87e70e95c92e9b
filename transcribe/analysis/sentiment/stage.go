package sentiment

import (
	"context"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
)

// Stages returns the sentiment stage configured by opts, for
// transcribe.Config.Stages (after formatting, redaction and utterances).
func Stages(opts Options) []transcribe.Stage {
	return []transcribe.Stage{Stage{Analyzer: Analyzer{Options: opts}}}
}

// Stage fills Transcript.SentimentAnalysisResults (sentiment_analysis):
// one result per sentence of the /sentences endpoint, with the sentence's
// text, start, end, speaker and channel (nil when not labelled). An empty
// transcript gets an empty list. It implements transcribe.FallibleStage:
// the API has no "unavailable" form for this field, so a failed analysis
// leaves it null. Stage is safe for concurrent use.
type Stage struct {
	Analyzer Analyzer
}

var _ transcribe.FallibleStage = Stage{}

// Name returns "sentiment_analysis".
func (Stage) Name() string { return "sentiment_analysis" }

// Enabled reports whether sentiment_analysis is on.
func (Stage) Enabled(p *transcribe.TranscriptParams) bool {
	return p.SentimentAnalysis != nil && *p.SentimentAnalysis
}

// Apply sets job.Transcript.SentimentAnalysisResults. It fails on invalid
// options (wrapping ErrOptions) and on a cancelled context.
func (s Stage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	res, err := s.Analyze(ctx, job.Transcript)
	if err != nil {
		return err
	}
	job.Transcript.SentimentAnalysisResults = res
	return nil
}

// Unavailable leaves sentiment_analysis_results null.
func (Stage) Unavailable(t *transcribe.Transcript) { t.SentimentAnalysisResults = nil }

// Analyze returns the per-sentence results for t without changing it.
func (s Stage) Analyze(ctx context.Context, t *transcribe.Transcript) ([]transcribe.SentimentResult, error) {
	if err := s.Analyzer.Options.Validate(); err != nil {
		return nil, err
	}
	out := []transcribe.SentimentResult{}
	if t == nil {
		return out, nil
	}
	toks := nlp.Tokens(t.Words)
	if err := nlp.Tag(toks); err != nil {
		return nil, err
	}
	for _, sp := range nlp.Sentences(t) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := s.Analyzer.classifyTokens(toks[sp.From:sp.To])
		out = append(out, transcribe.SentimentResult{
			Text: sp.Text, Start: sp.Start, End: sp.End,
			Sentiment: r.Sentiment, Confidence: r.Confidence,
			Speaker: sp.Speaker, Channel: sp.Channel,
		})
	}
	return out, ctx.Err()
}

// wordsOf splits text into words without times.
func wordsOf(text string) []transcribe.Word {
	fs := strings.Fields(text)
	ws := make([]transcribe.Word, len(fs))
	for i, f := range fs {
		ws[i].Text = f
	}
	return ws
}
