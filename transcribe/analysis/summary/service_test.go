package summary_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/speechtest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/llm"
	"github.com/earshot-dev/earshot/transcribe/analysis/summary"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
)

// twoTopics is two passages of testdata/dev.txt, about half a minute of
// speech each.
const twoTopics = "Beekeepers across the country lost almost half of their honeybee colonies last winter. " +
	"The biggest problem is a tiny parasite called the varroa mite, which feeds on the bees and spreads viruses through the hive. " +
	"Pesticides sprayed on nearby crops weaken the colonies even further. " +
	"Many hives also go hungry because large farms grow only one crop, so the bees find flowers for a few weeks and then nothing. " +
	"Some beekeepers now plant wildflower strips and feed their bees sugar syrup in the autumn. " +
	"Others breed queens from colonies that survive the mites on their own. " +
	"Mortgage rates have roughly doubled in the past two years. " +
	"On a typical home loan that adds several hundred dollars to the monthly payment. " +
	"First time buyers are hit hardest, because they have smaller savings for a down payment and less room in their budget. " +
	"Many are choosing to keep renting, while others look at smaller houses farther from the city. " +
	"Lenders say applications for new loans dropped to their lowest level in a decade. " +
	"Some economists expect rates to fall next year, but nobody can promise when."

// TestServiceStages runs topic detection, summaries and chapters through a
// real Service (embedded pocketsphinx on flite speech, the media decoder,
// the default pipeline, then these stages as transcribe/pipeline is to
// wire them) configured with an LLM back end whose server refuses
// connections, and checks the transcripts the API returns: {} for
// iab_categories_result while queued, then results with real times within
// the audio, and exactly the extractive summary and chapters of the same
// words (the fall-back).
func TestServiceStages(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes speech")
	}
	speech := speechtest.Engine(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/v1"
	l.Close()
	down, err := llm.New(llm.Config{BaseURL: refused, Model: "m", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wav, err := os.ReadFile(testaudio.Speech(t, "slt", twoTopics))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	bullets := transcribe.SummaryBullets
	withSummary := transcribe.TranscriptParams{IABCategories: &yes, Summarization: &yes, SummaryType: &bullets}
	withChapters := transcribe.TranscriptParams{IABCategories: &yes, AutoChapters: &yes}

	run := func(o summary.Options, p transcribe.TranscriptParams) *transcribe.Transcript {
		t.Helper()
		stages := pipeline.Default(pipeline.Options{})
		stages = append(stages, topics.Stages(topics.Options{})...)
		stages = append(stages, summary.Stages(o)...)
		svc := speechtest.NewService(t, speech, stages, nil)
		tr := speechtest.Transcribe(t, svc, wav, p, func(tr *transcribe.Transcript) {
			if b, _ := json.Marshal(tr.IABCategoriesResult); string(b) != "{}" {
				t.Errorf("queued iab_categories_result %s, want {}", b)
			}
		})
		return tr
	}

	tr := run(summary.Options{Generator: down}, withSummary)
	t.Logf("text: %s", *tr.Text)
	end := tr.Words[len(tr.Words)-1].End
	iab := tr.IABCategoriesResult
	if iab == nil || iab.Status != "success" || len(iab.Results) == 0 || len(iab.Summary) == 0 {
		t.Fatalf("iab_categories_result %+v", iab)
	}
	for _, r := range iab.Results {
		if r.Timestamp.Start < 0 || r.Timestamp.End > end || r.Timestamp.Start >= r.Timestamp.End {
			t.Errorf("topic result times %+v outside 0-%d", r.Timestamp, end)
		}
	}
	if tr.Summary == nil || !strings.HasPrefix(*tr.Summary, "- ") {
		t.Fatalf("summary %v", tr.Summary)
	}
	t.Logf("summary:\n%s", *tr.Summary)
	low := strings.ToLower(*tr.Summary)
	if !strings.Contains(low, "bee") && !strings.Contains(low, "colon") || !strings.Contains(low, "mortgage") && !strings.Contains(low, "loan") {
		t.Errorf("the summary misses a topic:\n%s", *tr.Summary)
	}
	if want := summary.NewTextFromTranscript(tr).Summarize(transcribe.SummaryBullets, transcribe.SummaryInformative); *tr.Summary != want {
		t.Errorf("with the LLM down: summary %q, want the extractive one %q", *tr.Summary, want)
	}

	ch := run(summary.Options{Generator: down}, withChapters)
	if len(ch.Chapters) == 0 {
		t.Fatal("no chapters")
	}
	// Chapters must not overlap; the spec asks no gap between them, and
	// the words of flite speech touch (a word's start is the end of the
	// one before), so a chapter may start where the previous one ends.
	for i, c := range ch.Chapters {
		t.Logf("chapter %d %d-%d: %s | %s | %s", i, c.Start, c.End, c.Gist, c.Headline, c.Summary)
		if c.Start < 0 || c.End > end || c.Start >= c.End || i > 0 && c.Start < ch.Chapters[i-1].End || c.Gist == "" || c.Headline == "" || c.Summary == "" {
			t.Errorf("chapter %d: %+v", i, c)
		}
	}
	if len(ch.Chapters) != 2 {
		t.Errorf("%d chapters, want 2 (bees, mortgages)", len(ch.Chapters))
	}
	extractive := &transcribe.Transcript{Words: ch.Words, TranscriptParams: ch.TranscriptParams}
	if err := summary.Stages(summary.Options{})[1].Apply(context.Background(), &transcribe.Job{Transcript: extractive}); err != nil {
		t.Fatal(err)
	}
	if b1, b2 := mustJSON(t, extractive.Chapters), mustJSON(t, ch.Chapters); b1 != b2 {
		t.Errorf("with the LLM down: chapters %s, want the extractive %s", b2, b1)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
