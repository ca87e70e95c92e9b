package nlp

import (
	"github.com/earshot-dev/earshot/export"
	"github.com/earshot-dev/earshot/transcribe"
)

// Span is a run of whole words of a transcript: a sentence or a paragraph.
type Span struct {
	// From and To are word indexes: the span is Words[From:To].
	From, To int
	// Text is the words joined by single spaces.
	Text string
	// Start and End are the first word's start and the last word's end in
	// milliseconds.
	Start, End int64
	// Speaker and Channel are those of the span's words (a span never
	// crosses a change of speaker or channel); nil when not labelled.
	Speaker, Channel *string
}

// Len returns the number of words in the span.
func (s Span) Len() int { return s.To - s.From }

// Sentences returns the transcript's sentences exactly as GET
// /v2/transcript/{id}/sentences cuts them (export.Sentences), in order,
// with their word ranges: index i here is sentence i of that endpoint, as
// content_safety_labels' sentences_idx_start/_end require. An empty or nil
// transcript gives none.
func Sentences(t *transcribe.Transcript) []Span {
	if t == nil || len(t.Words) == 0 {
		return nil
	}
	ss := export.Sentences(t).Sentences
	out := make([]Span, 0, len(ss))
	at := 0
	for _, s := range ss {
		out = append(out, Span{From: at, To: at + len(s.Words), Text: s.Text, Start: s.Start, End: s.End, Speaker: s.Speaker, Channel: s.Channel})
		at += len(s.Words)
	}
	return out
}

// Paragraphs returns the transcript's paragraphs exactly as GET
// /v2/transcript/{id}/paragraphs cuts them (export.Paragraphs), with their
// word ranges. Every paragraph is a run of whole sentences.
func Paragraphs(t *transcribe.Transcript) []Span {
	if t == nil || len(t.Words) == 0 {
		return nil
	}
	ps := export.Paragraphs(t).Paragraphs
	out := make([]Span, 0, len(ps))
	at := 0
	for _, p := range ps {
		out = append(out, Span{From: at, To: at + len(p.Words), Text: p.Text, Start: p.Start, End: p.End, Speaker: p.Speaker, Channel: p.Channel})
		at += len(p.Words)
	}
	return out
}
