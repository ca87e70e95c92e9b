package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestAudioIntelligence enables every analysis on a two-speaker recording
// that changes topic halfway (a baking conversation, then one about the
// stock market and a road accident), through the official Go SDK against
// the real server, and checks that each result comes back in its
// documented shape with values that fit the content. Summaries and
// chapters cannot be asked for together (the spec), so chapters get a
// second request.
func TestAudioIntelligence(t *testing.T) {
	turns := []struct{ voice, text string }{
		{"slt", "today we are baking a chocolate cake with fresh butter sugar and flour in the oven"},
		{"rms", "i love this chocolate cake recipe it is wonderful and the kitchen smells amazing"},
		{"slt", "mix the eggs with the butter and the sugar in a large bowl until the batter is smooth"},
		{"rms", "bake the cake for forty minutes then let the chocolate cake cool before you add the frosting"},
		{"slt", "the frosting needs cream cheese vanilla and a little lemon juice for the dessert"},
		{"rms", "now let us talk about the stock market where share prices fell sharply this week"},
		{"slt", "investors sold their stocks because the company reported terrible quarterly earnings and the market crashed"},
		{"rms", "the central bank raised interest rates again and bond yields climbed for the third month"},
		{"slt", "many investors moved their savings into gold and government bonds to protect their portfolio"},
		{"rms", "there was also a terrible car accident on the highway and three people were badly injured"},
	}
	var parts []string
	for _, tu := range turns {
		parts = append(parts, testaudio.Speech(t, tu.voice, tu.text))
	}
	silence := testaudio.SoxEffects(t, "wav", []string{"-n", "-r", "16000", "-c", "1", "-b", "16"}, "trim", "0", "0.8")
	var args []string
	for i, p := range parts {
		if i > 0 {
			args = append(args, silence)
		}
		args = append(args, p)
	}
	convo := testaudio.Sox(t, "wav", args...)

	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p")
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	tr := submitFile(t, ctx, c, convo, &aai.TranscriptOptionalParams{
		SpeakerLabels: aai.Bool(true), SpeakersExpected: aai.Int64(2),
		AutoHighlights: aai.Bool(true), SentimentAnalysis: aai.Bool(true), ContentSafety: aai.Bool(true),
		IABCategories: aai.Bool(true), EntityDetection: aai.Bool(true),
		Summarization: aai.Bool(true), SummaryType: "bullets", SummaryModel: "informative",
	})
	text := strings.ToLower(deref(tr.Text))
	t.Logf("text: %s", text)

	// Key phrases: ranked noun phrases with every occurrence.
	ah := tr.AutoHighlightsResult
	if ah.Status != "success" || len(ah.Results) == 0 {
		t.Fatalf("auto_highlights_result: %+v", ah)
	}
	var phrases []string
	for _, h := range ah.Results {
		if h.Rank == nil || *h.Rank <= 0 || *h.Rank > 1 || h.Count == nil || *h.Count < 1 || int(*h.Count) != len(h.Timestamps) {
			t.Errorf("key phrase %+v", h)
		}
		for _, ts := range h.Timestamps {
			if ts.Start == nil || ts.End == nil || *ts.End < *ts.Start {
				t.Errorf("key phrase timestamp %+v", ts)
			}
		}
		phrases = append(phrases, deref(h.Text))
	}
	if all := strings.Join(phrases, " | "); !strings.Contains(all, "cake") && !strings.Contains(all, "stock") && !strings.Contains(all, "market") {
		t.Errorf("key phrases miss the topics: %s", all)
	}

	// Sentiment: one result per sentence, speakers A/B, both polarities.
	seen := map[aai.Sentiment]bool{}
	speakers := map[string]bool{}
	for _, r := range tr.SentimentAnalysisResults {
		seen[r.Sentiment] = true
		if r.Speaker != nil {
			speakers[*r.Speaker] = true
		}
		if r.Confidence == nil || *r.Confidence < 0 || *r.Confidence > 1 || r.Start == nil || r.End == nil || *r.End < *r.Start {
			t.Errorf("sentiment result %+v", r)
		}
	}
	if len(tr.SentimentAnalysisResults) < 2 || !seen["POSITIVE"] || !seen["NEGATIVE"] || len(speakers) != 2 {
		t.Errorf("sentiment: %d results, sentiments %v, speakers %v", len(tr.SentimentAnalysisResults), seen, speakers)
	}

	// Content safety: the accident and the market crash are flagged, with
	// the file-level summaries.
	cs := tr.ContentSafetyLabels
	if cs.Status != "success" || len(cs.Results) == 0 || len(cs.Summary) == 0 || len(cs.SeverityScoreSummary) == 0 {
		t.Fatalf("content_safety_labels: %+v", cs)
	}
	labels := map[string]bool{}
	for _, r := range cs.Results {
		if r.SentencesIDxStart == nil || r.SentencesIDxEnd == nil || *r.SentencesIDxEnd < *r.SentencesIDxStart || deref(r.Text) == "" {
			t.Errorf("content safety segment %+v", r)
		}
		for _, l := range r.Labels {
			labels[deref(l.Label)] = true
			if l.Confidence == nil || *l.Confidence < 0.5 || *l.Confidence > 1 {
				t.Errorf("label %s confidence %v below the default threshold 50", deref(l.Label), l.Confidence)
			}
		}
	}
	if !labels["accidents"] {
		t.Errorf("content safety labels %v lack accidents", labels)
	}

	// Topics: per paragraph, labels from the IAB taxonomy, both subjects.
	iab := tr.IABCategoriesResult
	if iab.Status != "success" || len(iab.Results) == 0 || len(iab.Summary) == 0 || len(iab.Summary) > 20 {
		t.Fatalf("iab_categories_result: %+v", iab)
	}
	var topics []string
	for l, rel := range iab.Summary {
		topics = append(topics, l)
		if rel < 0 || rel > 1 {
			t.Errorf("topic %s relevance %v", l, rel)
		}
	}
	all := strings.Join(topics, " ")
	if !strings.Contains(all, "Food&Drink") || (!strings.Contains(all, "Business") && !strings.Contains(all, "Finance")) {
		t.Errorf("topics %v miss cooking or finance", topics)
	}

	// Summary: bullets.
	if sum := deref(tr.Summary); !strings.HasPrefix(sum, "- ") {
		t.Errorf("summary %q is not bullets", sum)
	}

	// Chapters: the topic change makes two, in order, without overlap.
	ch := submitFile(t, ctx, c, convo, &aai.TranscriptOptionalParams{AutoChapters: aai.Bool(true), SpeakerLabels: aai.Bool(true)})
	if len(ch.Chapters) < 2 {
		t.Fatalf("%d chapters for a recording with two topics", len(ch.Chapters))
	}
	var last int64 = -1
	for _, c := range ch.Chapters {
		if c.Start == nil || c.End == nil || *c.Start < last || *c.End <= *c.Start || deref(c.Gist) == "" || deref(c.Headline) == "" || deref(c.Summary) == "" {
			t.Errorf("chapter %+v", c)
		}
		last = *c.End
	}
}
