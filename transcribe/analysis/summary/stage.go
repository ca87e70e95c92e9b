package summary

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// Generator writes summaries and chapter titles with a language model. It
// is the optional back end of the stages (package
// transcribe/analysis/llm implements it over any OpenAI-compatible
// chat-completions server); the stages fall back to the extractive method
// whenever it fails.
//
//   - Summarize returns a summary of req.Text of type req.Type ("bullets":
//     one "- " line per point; "bullets_verbose": more and longer "- "
//     lines; "gist": a few words; "headline": one sentence; "paragraph":
//     one paragraph) in the style of req.Model. It returns an error when
//     the back end cannot be reached, times out, answers with an error or
//     with something that is not a summary of that type, or when ctx is
//     done.
//   - Chapter returns the gist, headline and summary of one chapter's
//     text, with the same error cases.
//
// Implementations must be safe for concurrent use.
type Generator interface {
	Summarize(ctx context.Context, req Request) (string, error)
	Chapter(ctx context.Context, req Request) (ChapterText, error)
}

// Request is what a Generator summarizes.
type Request struct {
	// Text is the transcript or chapter: one sentence per line, each
	// prefixed with its speaker ("Speaker A: ") when speakers are known.
	// A text longer than Options.MaxGeneratorChars is condensed to its
	// most central sentences first.
	Text string
	// Type and Model are summary_type and summary_model (Summarize only).
	Type  transcribe.SummaryType
	Model transcribe.SummaryModel
}

// ChapterText is a chapter's gist (a few words), headline (one sentence)
// and summary (a paragraph).
type ChapterText struct {
	Gist, Headline, Summary string
}

// Defaults of Options.
const (
	DefaultMaxGeneratorChars   = 24000
	DefaultMinChapterSentences = 3
	DefaultMinChapterMillis    = 20000
)

// Options configures the summary and chapter stages. The zero value is
// the extractive method with default chapter lengths.
type Options struct {
	// Generator, when not nil, writes summaries, chapter gists, headlines
	// and summaries; the transcript text is then sent to it. nil (the
	// default) keeps everything in process with the extractive method.
	Generator Generator
	// MaxGeneratorChars caps the text sent to the Generator for one
	// request; a longer text is condensed to its most central sentences,
	// in order. 0 means DefaultMaxGeneratorChars (24,000 characters, about
	// 6,000 tokens).
	MaxGeneratorChars int
	// MinChapterSentences and MinChapterMillis are the shortest chapter.
	// 0 means DefaultMinChapterSentences (3) and DefaultMinChapterMillis
	// (20 s).
	MinChapterSentences int
	MinChapterMillis    int64
}

func (o Options) withDefaults() Options {
	if o.MaxGeneratorChars <= 0 {
		o.MaxGeneratorChars = DefaultMaxGeneratorChars
	}
	if o.MinChapterSentences <= 0 {
		o.MinChapterSentences = DefaultMinChapterSentences
	}
	if o.MinChapterMillis <= 0 {
		o.MinChapterMillis = DefaultMinChapterMillis
	}
	return o
}

// Stages returns the summary and chapter stages, for transcribe/pipeline.
func Stages(opts Options) []transcribe.Stage {
	return []transcribe.Stage{SummaryStage{Options: opts}, ChaptersStage{Options: opts}}
}

// ErrGenerated reports a Generator answer that is not a usable summary.
var ErrGenerated = errors.New("summary: unusable generated text")

// SummaryStage fills Transcript.Summary (summarization) with a summary of
// summary_type and summary_model (defaults bullets and informative). It is
// a FallibleStage: when it fails the summary stays null and the transcript
// completes. It is safe for concurrent use.
type SummaryStage struct {
	Options Options
}

var _ transcribe.FallibleStage = SummaryStage{}

// Name returns "summarization".
func (SummaryStage) Name() string { return "summarization" }

// Enabled reports whether summarization is on.
func (SummaryStage) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.Summarization)
}

// Unavailable leaves the summary null (the API has no other form for it).
func (SummaryStage) Unavailable(t *transcribe.Transcript) { t.Summary = nil }

// Apply writes the summary. With a Generator it asks it first and falls
// back to the extractive summary when it fails; it fails only when ctx is
// done. An empty transcript gets an empty summary.
func (s SummaryStage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	t := job.Transcript
	typ, model := transcribe.SummaryBullets, transcribe.SummaryInformative
	if t.SummaryType != nil && *t.SummaryType != "" {
		typ = *t.SummaryType
	}
	if t.SummaryModel != nil && *t.SummaryModel != "" {
		model = *t.SummaryModel
	}
	x := NewTextFromTranscript(t)
	o := s.Options.withDefaults()
	out := ""
	if o.Generator != nil && x.Len() > 0 {
		in := x.promptText(o.MaxGeneratorChars)
		g, err := o.Generator.Summarize(ctx, Request{Text: in, Type: typ, Model: model})
		if err == nil {
			g, err = checkGenerated(typ, g, utf8.RuneCountInString(in))
		}
		if err == nil {
			g = redactGenerated(t, g)
		}
		if err == nil {
			out = g
		} else {
			if ctx.Err() != nil {
				return fmt.Errorf("summary: %w", ctx.Err())
			}
			logger(job).Warn("summary: generator failed; using the extractive summary", "error", err)
		}
	}
	if out == "" {
		out = x.Summarize(typ, model)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	t.Summary = &out
	return nil
}

// ChaptersStage fills Transcript.Chapters (auto_chapters): the transcript
// cut into chapters by topic, in order and without overlap, each with a
// gist, headline, summary and its first word's start and last word's end.
// It is a FallibleStage: when it fails chapters stay null. It is safe for
// concurrent use.
type ChaptersStage struct {
	Options Options
}

var _ transcribe.FallibleStage = ChaptersStage{}

// Name returns "auto_chapters".
func (ChaptersStage) Name() string { return "auto_chapters" }

// Enabled reports whether auto_chapters is on.
func (ChaptersStage) Enabled(p *transcribe.TranscriptParams) bool {
	return transcribe.IsTrue(p.AutoChapters)
}

// Unavailable leaves chapters null.
func (ChaptersStage) Unavailable(t *transcribe.Transcript) { t.Chapters = nil }

// Apply writes the chapters. With a Generator, each chapter's texts come
// from it; after its first failure the remaining chapters of the
// transcript use the extractive method. It fails only when ctx is done. An
// empty transcript gets an empty list.
func (s ChaptersStage) Apply(ctx context.Context, job *transcribe.Job) error {
	if job == nil || job.Transcript == nil {
		return nil
	}
	o := s.Options.withDefaults()
	t := job.Transcript
	x := NewTextFromTranscript(t)
	chapters := []transcribe.Chapter{}
	gen := o.Generator
	bounds := append(append([]int{0}, x.Segment(o.MinChapterSentences, o.MinChapterMillis)...), x.Len())
	for c := 0; c+1 < len(bounds) && x.Len() > 0; c++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("chapters: %w", err)
		}
		sub := x.topic(bounds[c], bounds[c+1])
		ch := transcribe.Chapter{Start: sub.sents[0].Start, End: sub.sents[sub.Len()-1].End}
		done := false
		if gen != nil {
			in := sub.promptText(o.MaxGeneratorChars)
			ct, err := gen.Chapter(ctx, Request{Text: in})
			if err == nil {
				ct, err = checkChapter(ct, utf8.RuneCountInString(in))
			}
			if err == nil {
				ct = ChapterText{redactGenerated(t, ct.Gist), redactGenerated(t, ct.Headline), redactGenerated(t, ct.Summary)}
			}
			if err == nil {
				ch.Gist, ch.Headline, ch.Summary = ct.Gist, ct.Headline, ct.Summary
				done = true
			} else {
				if ctx.Err() != nil {
					return fmt.Errorf("chapters: %w", ctx.Err())
				}
				logger(job).Warn("chapters: generator failed; using extractive chapter texts", "error", err, "chapter", c)
				gen = nil
			}
		}
		if !done {
			ch.Gist, ch.Headline, ch.Summary = sub.ChapterTexts()
		}
		chapters = append(chapters, ch)
	}
	t.Chapters = chapters
	return nil
}

// ChapterTexts returns the extractive gist, headline and summary of a
// chapter: its best noun phrase, a title (Title), and two to four of its
// central sentences (one per 50 words) as a paragraph, each a whole
// sentence of the transcript.
func (x *Text) ChapterTexts() (gist, headline, summary string) {
	_, ranges := x.rendered(x.pickMMR(clamp(x.nWord/50, 2, 4), style{}))
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		parts[i] = x.rangeText(r[0], r[1])
	}
	return x.Gist(transcribe.SummaryInformative), x.Title(), strings.Join(parts, " ")
}

// promptText returns the text for a Generator: one sentence per line with
// its voice, condensed to the most central sentences when longer than
// limit characters.
func (x *Text) promptText(limit int) string {
	line := func(i int) string {
		s := x.sents[i].Text
		if v := x.sents[i].voice; v != "" {
			s = v + ": " + s
		}
		return s
	}
	total := 0
	for i := range x.sents {
		total += len(line(i)) + 1
	}
	keep := make([]bool, len(x.sents))
	if total <= limit {
		for i := range keep {
			keep[i] = true
		}
	} else {
		order := make([]int, len(x.sents))
		for i := range order {
			order[i] = i
		}
		q := make([]float64, len(x.sents))
		for i := range q {
			q[i] = x.quality(i, style{})
		}
		sortByScore(order, q)
		used := 0
		for _, i := range order {
			if n := len(line(i)) + 1; used+n <= limit {
				keep[i] = true
				used += n
			}
		}
	}
	var b strings.Builder
	for i, k := range keep {
		if k {
			b.WriteString(line(i))
			b.WriteByte('\n')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func logger(job *transcribe.Job) *slog.Logger {
	if job.Logger != nil {
		return job.Logger
	}
	return slog.New(slog.DiscardHandler)
}
