package summary

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"unicode"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

// lecture is a single-speaker text on two topics.
const lecture = "Beekeepers across the country lost almost half of their honeybee colonies last winter. " +
	"The biggest problem is a tiny parasite called the varroa mite, which feeds on the bees and spreads viruses through the hive. " +
	"Pesticides sprayed on nearby crops weaken the colonies even further. " +
	"Some beekeepers now plant wildflower strips and feed their bees sugar syrup in the autumn. " +
	"Others breed queens from colonies that survive the mites on their own. " +
	"Mortgage rates have roughly doubled in the past two years. " +
	"On a typical home loan that adds several hundred dollars to the monthly payment. " +
	"First time buyers are hit hardest, because they have smaller savings for a down payment. " +
	"Many are choosing to keep renting, while others look at smaller houses farther from the city. " +
	"Lenders say applications for new mortgage loans dropped to their lowest level in a decade."

// call is a two-speaker support call; turns alternate A, B, A...
var call = []string{
	"Hi, I'm calling because my internet has been down since this morning.",
	"I'm sorry to hear that, can you tell me the account number on the bill?",
	"Sure, it's the account under my name on Elm Street.",
	"Thanks, I see an outage in your area caused by a cut fiber cable near the highway.",
	"When will the internet service be fixed?",
	"The technicians expect to restore service by six tonight, and we will credit your bill for the day.",
	"Great, thank you for the credit on my bill.",
	"You're welcome, is there anything else I can help with today?",
}

func callTranscript() *transcribe.Transcript {
	var ws []transcribe.Word
	for i, turn := range call {
		sp := string(rune('A' + i%2))
		for _, w := range nlptest.Words(turn) {
			w.Speaker = &sp
			if len(ws) > 0 {
				off := ws[len(ws)-1].End + 600
				w.Start, w.End = w.Start+off, w.End+off
			}
			ws = append(ws, w)
		}
	}
	// Words of one turn were made from 0; shift each turn after the last.
	for i := 1; i < len(ws); i++ {
		if ws[i].Start < ws[i-1].End {
			d := ws[i-1].End + 300 - ws[i].Start
			ws[i].Start += d
			ws[i].End += d
		}
	}
	return nlptest.Transcript(ws)
}

func summarize(t *testing.T, tr *transcribe.Transcript, typ transcribe.SummaryType, model transcribe.SummaryModel) string {
	t.Helper()
	tr.Summarization = transcribe.Ptr(true)
	tr.SummaryType, tr.SummaryModel = &typ, &model
	if err := (SummaryStage{}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if tr.Summary == nil {
		t.Fatal("no summary")
	}
	return *tr.Summary
}

// TestEveryTypeAndModel checks the shape of every summary_type for every
// summary_model, on a lecture and on a two-speaker call.
func TestEveryTypeAndModel(t *testing.T) {
	t.Parallel()
	for _, src := range []struct {
		name string
		tr   func() *transcribe.Transcript
	}{
		{"lecture", func() *transcribe.Transcript { return nlptest.Transcript(nlptest.Words(lecture)) }},
		{"call", callTranscript},
	} {
		for _, model := range transcribe.SummaryModels() {
			for _, typ := range transcribe.SummaryTypes() {
				s := summarize(t, src.tr(), typ, model)
				where := src.name + " " + string(model) + "/" + string(typ)
				if s == "" {
					t.Errorf("%s: empty", where)
					continue
				}
				lines := strings.Split(s, "\n")
				switch typ {
				case transcribe.SummaryBullets, transcribe.SummaryBulletsVerbose:
					for _, l := range lines {
						if !strings.HasPrefix(l, "- ") || len(l) < 10 {
							t.Errorf("%s: bad bullet line %q", where, l)
						}
					}
					if min := 2; len(lines) < min {
						t.Errorf("%s: %d bullets", where, len(lines))
					}
				case transcribe.SummaryGist:
					if len(lines) != 1 || len(strings.Fields(s)) > maxGistWords || strings.HasSuffix(s, ".") {
						t.Errorf("%s: gist %q is not a few words", where, s)
					}
				case transcribe.SummaryHeadline:
					if len(lines) != 1 || strings.Count(strings.TrimRight(s, ".?!"), ". ") > 0 {
						t.Errorf("%s: headline %q is not one sentence", where, s)
					}
				case transcribe.SummaryParagraph:
					if len(lines) != 1 || !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") {
						t.Errorf("%s: paragraph %q", where, s)
					}
				}
				if r := []rune(s); typ != transcribe.SummaryBullets && typ != transcribe.SummaryBulletsVerbose && !unicode.IsUpper(r[0]) {
					t.Errorf("%s: %q does not start with a capital", where, s)
				}
				t.Logf("%s:\n%s", where, s)
			}
		}
	}
}

func TestConversationalSpeakers(t *testing.T) {
	t.Parallel()
	b := summarize(t, callTranscript(), transcribe.SummaryBullets, transcribe.SummaryConversational)
	if !strings.Contains(b, "- Speaker A: ") || !strings.Contains(b, "- Speaker B: ") {
		t.Errorf("conversational bullets do not give both speakers:\n%s", b)
	}
	h := summarize(t, callTranscript(), transcribe.SummaryHeadline, transcribe.SummaryConversational)
	if !strings.HasPrefix(h, "Speaker A and Speaker B discuss ") {
		t.Errorf("conversational headline %q", h)
	}
	// Without speaker labels a conversational summary has no prefixes.
	plain := summarize(t, nlptest.Transcript(nlptest.Words(lecture)), transcribe.SummaryBullets, transcribe.SummaryConversational)
	if strings.Contains(plain, "Speaker") {
		t.Errorf("prefixes without speakers:\n%s", plain)
	}
	// Informative bullets of a call have no prefixes either.
	if b := summarize(t, callTranscript(), transcribe.SummaryBullets, transcribe.SummaryInformative); strings.Contains(b, "Speaker") {
		t.Errorf("informative bullets with prefixes:\n%s", b)
	}
}

func TestCatchy(t *testing.T) {
	t.Parallel()
	h := summarize(t, nlptest.Transcript(nlptest.Words(lecture)), transcribe.SummaryHeadline, transcribe.SummaryCatchy)
	if strings.HasSuffix(h, ".") || len(strings.Fields(h)) > 20 {
		t.Errorf("catchy headline %q", h)
	}
	for _, w := range strings.Fields(h)[:1] {
		if !unicode.IsUpper([]rune(w)[0]) {
			t.Errorf("catchy headline %q not in title case", h)
		}
	}
	if g := summarize(t, nlptest.Transcript(nlptest.Words(lecture)), transcribe.SummaryGist, transcribe.SummaryCatchy); g != titleCase(g) {
		t.Errorf("catchy gist %q not in title case", g)
	}
}

// TestTopicsCovered checks that bullets of a two-topic text cover both.
func TestTopicsCovered(t *testing.T) {
	t.Parallel()
	b := summarize(t, nlptest.Transcript(nlptest.Words(lecture)), transcribe.SummaryBullets, transcribe.SummaryInformative)
	if !strings.Contains(strings.ToLower(b), "bee") || !strings.Contains(strings.ToLower(b), "mortgage") {
		t.Errorf("bullets miss a topic:\n%s", b)
	}
	if g := summarize(t, nlptest.Transcript(nlptest.Words(lecture)), transcribe.SummaryGist, transcribe.SummaryInformative); g == "" {
		t.Error("no gist")
	}
}

func TestLeadInsRemoved(t *testing.T) {
	t.Parallel()
	x := NewTextFromTranscript(nlptest.Transcript(nlptest.Words("So, the plan is simple. Okay, we start at noon. Great news for everyone. And then we leave")))
	want := []string{"The plan is simple.", "We start at noon.", "Great news for everyone.", "Then we leave."}
	for i, w := range want {
		if got := x.sentenceText(i); got != w {
			t.Errorf("sentence %d: %q, want %q", i, got, w)
		}
	}
}

func TestEmptyAndTiny(t *testing.T) {
	t.Parallel()
	for _, typ := range transcribe.SummaryTypes() {
		if s := summarize(t, nlptest.Transcript(nil), typ, transcribe.SummaryInformative); s != "" {
			t.Errorf("%s of an empty transcript: %q", typ, s)
		}
		if s := summarize(t, nlptest.Transcript(nlptest.Words("Hello.")), typ, transcribe.SummaryInformative); s == "" {
			t.Errorf("%s of one word: empty", typ)
		}
	}
	tr := nlptest.Transcript(nil)
	tr.AutoChapters = transcribe.Ptr(true)
	if err := (ChaptersStage{}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(tr.Chapters); string(b) != "[]" {
		t.Errorf("chapters of an empty transcript: %s", b)
	}
	if err := (SummaryStage{}).Apply(context.Background(), nil); err != nil {
		t.Error(err)
	}
	if err := (ChaptersStage{}).Apply(context.Background(), &transcribe.Job{}); err != nil {
		t.Error(err)
	}
}

func TestRedactedWordsStayRedacted(t *testing.T) {
	t.Parallel()
	tr := nlptest.Transcript(nlptest.Words("My name is [PERSON_NAME] and my card number is ################ so please charge the card for the new laptop order today."))
	for _, typ := range transcribe.SummaryTypes() {
		s := summarize(t, tr, typ, transcribe.SummaryInformative)
		if strings.Contains(s, "PERSON") && !strings.Contains(s, "[PERSON_NAME]") {
			t.Errorf("%s: %q", typ, s)
		}
	}
}

func TestStageEnabledAndUnavailable(t *testing.T) {
	t.Parallel()
	p := &transcribe.TranscriptParams{}
	if (SummaryStage{}).Enabled(p) || (ChaptersStage{}).Enabled(p) {
		t.Error("enabled by default")
	}
	p.Summarization, p.AutoChapters = transcribe.Ptr(true), transcribe.Ptr(true)
	if !(SummaryStage{}).Enabled(p) || !(ChaptersStage{}).Enabled(p) {
		t.Error("not enabled by its parameter")
	}
	tr := nlptest.Transcript(nil)
	s := "x"
	tr.Summary, tr.Chapters = &s, []transcribe.Chapter{{}}
	SummaryStage{}.Unavailable(tr)
	ChaptersStage{}.Unavailable(tr)
	if tr.Summary != nil || tr.Chapters != nil {
		t.Error("unavailable results are not null")
	}
	if len(Stages(Options{})) != 2 {
		t.Error("Stages")
	}
}

func chaptersOf(t *testing.T, tr *transcribe.Transcript, o Options) []transcribe.Chapter {
	t.Helper()
	tr.AutoChapters = transcribe.Ptr(true)
	if err := (ChaptersStage{Options: o}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	return tr.Chapters
}

func TestChapters(t *testing.T) {
	t.Parallel()
	ps := readPassages(t, "dev.txt")
	tr := referenceDocs(ps, [][]int{{0, 1, 2}})[0].t
	cs := chaptersOf(t, tr, Options{})
	if len(cs) != 3 {
		t.Fatalf("%d chapters, want 3: %+v", len(cs), cs)
	}
	ws := tr.Words
	if cs[0].Start != ws[0].Start || cs[len(cs)-1].End != ws[len(ws)-1].End {
		t.Errorf("chapters span %d-%d, words %d-%d", cs[0].Start, cs[len(cs)-1].End, ws[0].Start, ws[len(ws)-1].End)
	}
	for i, c := range cs {
		if c.Gist == "" || c.Headline == "" || c.Summary == "" || c.End <= c.Start {
			t.Errorf("chapter %d: %+v", i, c)
		}
		if i > 0 && c.Start <= cs[i-1].End {
			t.Errorf("chapter %d overlaps the one before: %+v %+v", i, cs[i-1], c)
		}
	}
	if !strings.Contains(strings.ToLower(cs[0].Headline+cs[0].Gist), "bee") || !strings.Contains(strings.ToLower(cs[1].Summary), "mortgage") {
		t.Errorf("chapter texts do not follow the topics: %+v", cs)
	}
	// One passage is too short to split with the default minimum.
	if cs := chaptersOf(t, nlptest.Transcript(nlptest.Words(ps[0].text)), Options{}); len(cs) != 1 {
		t.Errorf("one passage gave %d chapters", len(cs))
	}
	// A minimum longer than the text gives one chapter.
	if cs := chaptersOf(t, referenceDocs(ps, [][]int{{0, 1, 2}})[0].t, Options{MinChapterMillis: 3600000}); len(cs) != 1 {
		t.Errorf("minimum of an hour gave %d chapters", len(cs))
	}
}

// TestWireShape decodes the stages' results with the Go SDK's types.
func TestWireShape(t *testing.T) {
	t.Parallel()
	ps := readPassages(t, "dev.txt")
	tr := referenceDocs(ps, [][]int{{0, 1}})[0].t
	chaptersOf(t, tr, Options{})
	summarize(t, tr, transcribe.SummaryParagraph, transcribe.SummaryInformative)
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var got aai.Transcript
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary == nil || *got.Summary == "" || len(got.Chapters) != 2 {
		t.Fatalf("SDK decoded summary %v, %d chapters", got.Summary, len(got.Chapters))
	}
	c := got.Chapters[1]
	if c.Gist == nil || c.Headline == nil || c.Summary == nil || c.Start == nil || c.End == nil || *c.Start <= 0 {
		t.Errorf("SDK chapter %+v", c)
	}
}

// fakeGenerator is an in-process Generator for the stages' fall-back
// logic; transcribe/analysis/llm tests the real client against recorded
// server exchanges.
type fakeGenerator struct {
	mu      sync.Mutex
	summary string
	chapter ChapterText
	err     error
	calls   int
	got     []Request
}

func (f *fakeGenerator) Summarize(ctx context.Context, r Request) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.got = append(f.got, r)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return f.summary, f.err
}

func (f *fakeGenerator) Chapter(ctx context.Context, r Request) (ChapterText, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.got = append(f.got, r)
	if err := ctx.Err(); err != nil {
		return ChapterText{}, err
	}
	return f.chapter, f.err
}

func TestGeneratorUsedAndFallback(t *testing.T) {
	t.Parallel()
	run := func(g *fakeGenerator, typ transcribe.SummaryType) string {
		tr := callTranscript()
		tr.Summarization = transcribe.Ptr(true)
		m := transcribe.SummaryConversational
		tr.SummaryType, tr.SummaryModel = &typ, &m
		if err := (SummaryStage{Options: Options{Generator: g}}).Apply(context.Background(), nlptest.Job(tr)); err != nil {
			t.Fatal(err)
		}
		return *tr.Summary
	}
	g := &fakeGenerator{summary: "- The caller's internet is down.\n- Service returns tonight."}
	if s := run(g, transcribe.SummaryBullets); s != g.summary {
		t.Errorf("generator summary not used: %q", s)
	}
	if r := g.got[0]; r.Type != transcribe.SummaryBullets || r.Model != transcribe.SummaryConversational || !strings.HasPrefix(r.Text, "Speaker A: Hi, I'm calling") || strings.Count(r.Text, "\n") != len(call)-1 {
		t.Errorf("request %+v", r)
	}
	extractive := summarize(t, callTranscript(), transcribe.SummaryBullets, transcribe.SummaryConversational)
	for _, g := range []*fakeGenerator{
		{err: errors.New("connection refused")},
		{summary: "   "},
		{summary: "Here is a summary without bullets."},
	} {
		if s := run(g, transcribe.SummaryBullets); s != extractive {
			t.Errorf("generator %+v: summary %q, want the extractive one", g, s)
		}
	}
	// A cancelled job is an error, not a fall-back.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr := callTranscript()
	tr.Summarization = transcribe.Ptr(true)
	if err := (SummaryStage{Options: Options{Generator: &fakeGenerator{summary: "x"}}}).Apply(ctx, nlptest.Job(tr)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestChapterGeneratorFallsBackOnce(t *testing.T) {
	t.Parallel()
	ps := readPassages(t, "dev.txt")
	g := &fakeGenerator{chapter: ChapterText{Gist: "Bees", Headline: "Bees are dying.", Summary: "Colonies are lost."}}
	cs := chaptersOf(t, referenceDocs(ps, [][]int{{0, 1, 2}})[0].t, Options{Generator: g})
	if len(cs) != 3 || cs[1].Gist != "Bees" || g.calls != 3 {
		t.Fatalf("chapters %+v after %d calls", cs, g.calls)
	}
	bad := &fakeGenerator{err: errors.New("timeout")}
	cs = chaptersOf(t, referenceDocs(ps, [][]int{{0, 1, 2}})[0].t, Options{Generator: bad})
	if len(cs) != 3 || bad.calls != 1 || cs[2].Gist == "" || cs[0].Gist == "Bees" {
		t.Errorf("after a failure: %d calls, chapters %+v", bad.calls, cs)
	}
	empty := &fakeGenerator{chapter: ChapterText{Gist: "Bees"}}
	if cs := chaptersOf(t, referenceDocs(ps, [][]int{{0, 1}})[0].t, Options{Generator: empty}); cs[0].Headline == "" {
		t.Errorf("incomplete generated chapter used: %+v", cs[0])
	}
}

func TestPromptTextCondensed(t *testing.T) {
	t.Parallel()
	x := NewTextFromTranscript(nlptest.Transcript(nlptest.Words(lecture)))
	full := x.promptText(1 << 20)
	if strings.Count(full, "\n") != x.Len()-1 {
		t.Fatalf("full prompt has %d lines for %d sentences", strings.Count(full, "\n")+1, x.Len())
	}
	short := x.promptText(300)
	if len(short) > 300 || short == "" {
		t.Fatalf("condensed prompt of %d characters", len(short))
	}
	// Condensed lines keep their order.
	last := -1
	for _, l := range strings.Split(short, "\n") {
		i := strings.Index(full, l)
		if i <= last {
			t.Errorf("line %q out of order", l)
		}
		last = i
	}
}

// A sentence of marks alone ("," "!" "-", or only redactions) is no
// sentence: summaries, headlines and chapters never consist of it (found
// by FuzzSummarize: a headline of "" or "- " bullets). One of numbers is.
func TestMarksAloneAreNoSentence(t *testing.T) {
	for text, want := range map[string]int{",": 0, "!": 0, "- —": 0, "##### #######.": 0, "2024.": 1, "Bees are dying.": 1} {
		var ws []transcribe.Word
		for i, w := range strings.Fields(text) {
			ws = append(ws, transcribe.Word{Text: w, Start: int64(i) * 300, End: int64(i)*300 + 200})
		}
		x := NewTextFromTranscript(&transcribe.Transcript{Words: ws})
		if x.Len() != want {
			t.Errorf("%q: %d sentences, want %d", text, x.Len(), want)
		}
		if want > 0 && x.Summarize(transcribe.SummaryHeadline, transcribe.SummaryCatchy) == "" {
			t.Errorf("%q: empty headline", text)
		}
	}
}
