package nlp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/export"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	cases := []struct {
		word                  string
		pre, text, post, norm string
		redacted, isWord      bool
	}{
		{"Hello,", "", "Hello", ",", "hello", false, true},
		{"(quoted)", "(", "quoted", ")", "quoted", false, true},
		{"\"Don’t!\"", "\"", "Don’t", "!\"", "don't", false, true},
		{"$25.", "", "$25", ".", "$25", false, false},
		{"50%", "", "50%", "", "50%", false, false},
		{"U.S.", "", "U.S", ".", "u.s", false, true},
		{"e-mail", "", "e-mail", "", "e-mail", false, true},
		{"—", "—", "", "", "", false, false},
		{"...", "...", "", "", "", false, false},
		{"#####", "", "#####", "", "#####", true, false},
		{"########.", "", "########", ".", "########", true, false},
		{"[PERSON_NAME].", "", "[PERSON_NAME]", ".", "[person_name]", true, false},
		{"[sic]", "[", "sic", "]", "sic", false, true},
		{"", "", "", "", "", false, false},
		{"Café", "", "Café", "", "café", false, true},
	}
	for _, c := range cases {
		ws := []transcribe.Word{{Text: c.word, Start: 100, End: 400}}
		tk := nlp.Tokens(ws)[0]
		if tk.Pre != c.pre || tk.Text != c.text || tk.Post != c.post || tk.Norm != c.norm || tk.Redacted != c.redacted || tk.IsWord() != c.isWord {
			t.Errorf("Tokens(%q) = pre %q text %q post %q norm %q redacted %v word %v; want %q %q %q %q %v %v",
				c.word, tk.Pre, tk.Text, tk.Post, tk.Norm, tk.Redacted, tk.IsWord(), c.pre, c.text, c.post, c.norm, c.redacted, c.isWord)
		}
		if tk.Start != 100 || tk.End != 400 {
			t.Errorf("Tokens(%q) times %d-%d", c.word, tk.Start, tk.End)
		}
	}
}

func TestSentenceAndClauseEnds(t *testing.T) {
	t.Parallel()
	toks := nlp.Tokens(nlptest.Words("Well, it rained. Did it? Yes! Then: nothing"))
	var ends, clauses []string
	for _, tk := range toks {
		if tk.EndsSentence() {
			ends = append(ends, tk.Text)
		}
		if tk.EndsClause() {
			clauses = append(clauses, tk.Text)
		}
	}
	if got := strings.Join(ends, " "); got != "rained it Yes" {
		t.Errorf("sentence ends %q", got)
	}
	if got := strings.Join(clauses, " "); got != "Well rained it Yes Then" {
		t.Errorf("clause ends %q", got)
	}
}

func TestIsRedacted(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"#####": true, "###-####.": false, "##.": true, "[PERSON_NAME]": true, "[PHONE_NUMBER],": true,
		"[sic]": false, "#hashtag": false, "": false, "[]": false, "Name": false,
	} {
		if got := nlp.IsRedacted(s); got != want {
			t.Errorf("IsRedacted(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestStopWordsAndStem(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"the", "and", "don't", "um", "yeah", "gonna", "really", "would"} {
		if !nlp.IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = false", w)
		}
	}
	for _, w := range []string{"quality", "wildfire", "refund", "professor", "smoke", "first"} {
		if nlp.IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = true", w)
		}
	}
	stems := map[string]string{}
	for _, w := range []string{"alerts", "alerted", "alerting", "alert"} {
		stems[nlp.Stem(w)] = w
	}
	if len(stems) != 1 {
		t.Errorf("alert forms have stems %v", stems)
	}
	if nlp.Stem("weapons") == nlp.Stem("weather") {
		t.Error("weapons and weather share a stem")
	}
}

func tags(t *testing.T, text string) string {
	t.Helper()
	toks := nlp.Tokens(nlptest.Words(text))
	if err := nlp.Tag(toks); err != nil {
		t.Fatal(err)
	}
	var b []string
	for _, tk := range toks {
		b = append(b, tk.Pre+tk.Text+tk.Post+"/"+tk.Tag)
	}
	return strings.Join(b, " ")
}

func TestTag(t *testing.T) {
	t.Parallel()
	got := tags(t, "Smoke from hundreds of wildfires is triggering air quality alerts. The company's earnings didn't beat expectations, sadly.")
	for _, want := range []string{"Smoke/NN", "wildfires/NNS", "triggering/VBG", "air/NN", "quality/NN", "alerts./NNS",
		"company's/NN", "earnings/NNS", "didn't/VBD", "expectations,/NNS"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("want %s in %s", want, got)
		}
	}
	// Redacted words are tagged as names, punctuation-only words as
	// punctuation, and nothing is left untagged.
	got = tags(t, "Call ##### at [PHONE_NUMBER] — now.")
	if !strings.Contains(got, "#####/NNP") || !strings.Contains(got, "[PHONE_NUMBER]/NNP") || !strings.Contains(got, "—/:") {
		t.Errorf("got %s", got)
	}
	if strings.Contains(got, "/ ") || strings.HasSuffix(got, "/") || !strings.Contains(got, "now./RB") {
		t.Errorf("untagged token in %s", got)
	}
	if !nlp.IsNounTag("NNPS") || nlp.IsNounTag("JJ") || !nlp.IsAdjectiveTag("JJS") {
		t.Error("tag class helpers")
	}
}

// TestSpansMatchExport checks that Sentences and Paragraphs are the
// export endpoints' segmentation, with word ranges that tile the words.
func TestSpansMatchExport(t *testing.T) {
	t.Parallel()
	a, b := "A", "B"
	ws := nlptest.Words("First point here. Second one? Yes.\n\nA new paragraph starts. It goes on.")
	for i := range ws {
		ws[i].Speaker = &a
		if i >= 10 {
			ws[i].Speaker = &b
		}
	}
	tr := nlptest.Transcript(ws)
	ss, ps := nlp.Sentences(tr), nlp.Paragraphs(tr)
	es, ep := export.Sentences(tr).Sentences, export.Paragraphs(tr).Paragraphs
	if len(ss) != len(es) || len(ps) != len(ep) {
		t.Fatalf("%d sentences, %d paragraphs; export has %d and %d", len(ss), len(ps), len(es), len(ep))
	}
	check := func(kind string, spans []nlp.Span, texts []string, starts, ends []int64, speakers []*string) {
		at := 0
		for i, s := range spans {
			if s.From != at || s.To <= s.From || s.Text != texts[i] || s.Start != starts[i] || s.End != ends[i] || s.Speaker != speakers[i] && *s.Speaker != *speakers[i] {
				t.Errorf("%s %d = %+v, export %q %d-%d", kind, i, s, texts[i], starts[i], ends[i])
			}
			if got := transcribe.JoinWords(ws[s.From:s.To]); got != s.Text {
				t.Errorf("%s %d words %q, text %q", kind, i, got, s.Text)
			}
			at = s.To
		}
		if at != len(ws) {
			t.Errorf("%s spans end at word %d of %d", kind, at, len(ws))
		}
	}
	var texts []string
	var starts, ends []int64
	var speakers []*string
	for _, s := range es {
		texts, starts, ends, speakers = append(texts, s.Text), append(starts, s.Start), append(ends, s.End), append(speakers, s.Speaker)
	}
	check("sentence", ss, texts, starts, ends, speakers)
	texts, starts, ends, speakers = nil, nil, nil, nil
	for _, p := range ep {
		texts, starts, ends, speakers = append(texts, p.Text), append(starts, p.Start), append(ends, p.End), append(speakers, p.Speaker)
	}
	check("paragraph", ps, texts, starts, ends, speakers)
	if len(ss) != 5 || len(ps) != 3 {
		t.Errorf("want 5 sentences in 3 paragraphs (speaker change and pause), got %d and %d", len(ss), len(ps))
	}
	if nlp.Sentences(nil) != nil || nlp.Paragraphs(&transcribe.Transcript{}) != nil {
		t.Error("empty transcripts must give no spans")
	}
}

func ExampleTokens() {
	ws := nlptest.Words(`Smoke from "hundreds" of wildfires, reported ##### today.`)
	toks := nlp.Tokens(ws)
	if err := nlp.Tag(toks); err != nil {
		panic(err)
	}
	for _, tk := range toks {
		if tk.IsWord() && !nlp.IsStopWord(tk.Norm) {
			fmt.Printf("%s %s %s %d-%d\n", tk.Text, tk.Tag, nlp.Stem(tk.Norm), tk.Start, tk.End)
		}
	}
	// Output:
	// Smoke NN smoke 0-250
	// hundreds NNS hundr 600-850
	// wildfires NNS wildfir 1200-1450
	// reported VBD report 1500-1750
	// today NN today 2100-2350
}
