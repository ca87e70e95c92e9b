package summary

import (
	"context"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// TestGeneratedAnswerChecked: whatever Generator writes the summary, an
// answer that is not plain text, has more bullets or characters than its
// type allows, or is longer than the text it summarizes is refused and the
// extractive summary stored (transcribe/analysis/llm replays the same
// through a real chat server).
func TestGeneratedAnswerChecked(t *testing.T) {
	t.Parallel()
	run := func(g Generator, typ transcribe.SummaryType, words string) string {
		tr := nlptest.Transcript(nlptest.Words(words))
		tr.Summarization = transcribe.Ptr(true)
		m := transcribe.SummaryInformative
		tr.SummaryType, tr.SummaryModel = &typ, &m
		if err := (SummaryStage{Options: Options{Generator: g}}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
			t.Fatal(err)
		}
		return *tr.Summary
	}
	short := "Bees are dying across the country this winter. Mites spread viruses through the hives."
	for _, c := range []struct {
		name, answer string
		typ          transcribe.SummaryType
		text         string
	}{
		{"html", "- Bees <b>die</b>", transcribe.SummaryBullets, lecture},
		{"markdown link", "- Bees [die](https://evil.example)", transcribe.SummaryBullets, lecture},
		{"code", "- Bees `die`", transcribe.SummaryBullets, lecture},
		{"escape", "Bees \x1b]0;title\x07die.", transcribe.SummaryHeadline, lecture},
		{"bidi override", "Bees \u202edie.", transcribe.SummaryHeadline, lecture},
		{"11 bullets", strings.Repeat("- Bees die.\n", 11), transcribe.SummaryBullets, lecture},
		{"a bullet of 401 characters", "- " + strings.Repeat("b", 401), transcribe.SummaryBullets, lecture},
		{"a gist of 11 words", "one two three four five six seven eight nine ten eleven", transcribe.SummaryGist, lecture},
		{"a paragraph 200 characters longer than its text", strings.Repeat("Bees die. ", 30), transcribe.SummaryParagraph, short},
	} {
		extractive := run(nil, c.typ, c.text)
		if got := run(&fakeGenerator{summary: c.answer}, c.typ, c.text); got != extractive {
			t.Errorf("%s: stored %q, want the extractive %q", c.name, got, extractive)
		}
	}
	// Within the limits the answer is used, and redaction marks are no markup.
	for typ, c := range map[transcribe.SummaryType]struct{ answer, text string }{
		transcribe.SummaryBullets:   {strings.TrimSpace(strings.Repeat("- [PERSON_NAME] keeps bees; ##### sells honey.\n", 10)), lecture},
		transcribe.SummaryParagraph: {strings.Repeat("Bees die. ", 28), short},
	} {
		answer := c.answer
		if got := run(&fakeGenerator{summary: answer}, typ, c.text); got != strings.TrimSpace(answer) {
			t.Errorf("%s: %q not used: %q", typ, answer, got)
		}
	}
	// Chapters: markup, a long gist or summary falls back.
	ps := readPassages(t, "dev.txt")
	for _, ct := range []ChapterText{
		{Gist: "<i>Bees</i>", Headline: "Bees die.", Summary: "Colonies are lost."},
		{Gist: strings.Repeat("Bees ", 11), Headline: "Bees die.", Summary: "Colonies are lost."},
		// A gist the extractive method never writes, so that storing it
		// cannot pass for the fallback.
		{Gist: "Bee trouble", Headline: "Bees die.", Summary: strings.Repeat("Colonies are lost. ", 100)},
	} {
		cs := chaptersOf(t, referenceDocs(ps, [][]int{{0, 1}})[0].t, Options{Generator: &fakeGenerator{chapter: ct}})
		if cs[0].Gist == ct.Gist || strings.Contains(cs[0].Summary, "Colonies are lost") {
			t.Errorf("generated chapter %+v stored: %+v", ct, cs[0])
		}
	}
}
