package pii

import (
	"strings"
	"unicode/utf8"

	"github.com/earshot-dev/earshot/transcribe"
)

// Substitution policies of redact_pii_sub.
const (
	SubHash       = "hash"        // each redacted word becomes '#' of the same length
	SubEntityName = "entity_name" // the entity becomes one "[ENTITY_TYPE]" token
)

// Redact returns a copy of ws in which every span whose type is in
// policies is redacted with substitution sub (SubHash, the default for any
// other value, or SubEntityName), and the spans re-indexed over the
// returned words. ws is not modified.
//
//   - SubHash replaces the letters and digits of each word, everything
//     but the leading and trailing punctuation, with '#' of the same
//     length in characters: "Sarah" -> "#####", "555-1234." -> "########.".
//     The punctuation is kept because it belongs to the sentence, not to
//     the entity, and keeps sentences, paragraphs and captions intact. Word
//     times and confidences are kept.
//   - SubEntityName replaces the entity's words with one token
//     "[PERSON_NAME]" (the type in capitals) that spans their time (start of
//     the first, end of the last), carries the first word's leading and the
//     last word's trailing punctuation, the mean confidence and the first
//     word's speaker and channel.
func Redact(ws []transcribe.Word, spans []Span, policies []string, sub string) ([]transcribe.Word, []Span) {
	want := map[string]bool{}
	for _, p := range policies {
		want[p] = true
	}
	out := make([]transcribe.Word, 0, len(ws))
	outSpans := make([]Span, 0, len(spans))
	next := 0
	for _, s := range spans {
		out = append(out, ws[next:s.From]...)
		next = s.To
		from := len(out)
		switch {
		case !want[s.Type]:
			out = append(out, ws[s.From:s.To]...)
		case sub == SubEntityName:
			out = append(out, entityToken(ws[s.From:s.To], s.Type))
		default:
			for _, w := range ws[s.From:s.To] {
				w.Text = hashText(w.Text)
				out = append(out, w)
			}
		}
		outSpans = append(outSpans, Span{s.Type, from, len(out)})
	}
	out = append(out, ws[next:]...)
	return out, outSpans
}

// hashText replaces a word's characters, except leading and trailing
// punctuation, with '#'.
func hashText(text string) string {
	lead, core, trail := splitPunct(text)
	return lead + strings.Repeat("#", utf8.RuneCountInString(core)) + trail
}

func entityToken(ws []transcribe.Word, typ string) transcribe.Word {
	lead, _, _ := splitPunct(ws[0].Text)
	_, _, trail := splitPunct(ws[len(ws)-1].Text)
	w := ws[0]
	w.Text = lead + "[" + strings.ToUpper(typ) + "]" + trail
	w.End = ws[len(ws)-1].End
	c := 0.0
	for _, x := range ws {
		c += x.Confidence
	}
	w.Confidence = c / float64(len(ws))
	return w
}

// ranges returns the time ranges (milliseconds, original media) of the
// spans whose type is in policies, merged where they touch or overlap.
func ranges(ws []transcribe.Word, spans []Span, policies []string) []transcribe.Timestamp {
	want := map[string]bool{}
	for _, p := range policies {
		want[p] = true
	}
	var all []transcribe.Timestamp
	for _, s := range spans {
		if !want[s.Type] {
			continue
		}
		ts := transcribe.Timestamp{Start: ws[s.From].Start, End: ws[s.To-1].End}
		for _, w := range ws[s.From:s.To] {
			ts.Start = min(ts.Start, w.Start)
			ts.End = max(ts.End, w.End)
		}
		all = append(all, ts)
	}
	sortRanges(all)
	var out []transcribe.Timestamp
	for _, ts := range all {
		if n := len(out); n > 0 && ts.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, ts.End)
			continue
		}
		out = append(out, ts)
	}
	return out
}
