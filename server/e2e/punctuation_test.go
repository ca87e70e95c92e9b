package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// speakText speaks punctuated text in one flite call (flite pauses at its
// marks as a reader would, no longer) with voice.
func speakText(t *testing.T, voice string, sentences []string) string {
	t.Helper()
	return testaudio.Speech(t, voice, strings.Join(sentences, " "))
}

// firstWords returns the first n lower-case words of s, without marks.
func firstWords(s string, n int) string {
	f := strings.Fields(strings.ToLower(s))
	for i := range f {
		f[i] = strings.Trim(f[i], ".,?!;:-\"")
	}
	return strings.Join(f[:min(n, len(f))], " ")
}

// TestFiveSentencesFiveSentiments is issue 22's case: five clearly
// positive or negative sentences spoken one after another at a normal
// pace (no long pauses) must come back as five sentences, each with the
// sentiment of its own sign. With the pause-only rules they came back as
// one sentence with one sentiment.
func TestFiveSentencesFiveSentiments(t *testing.T) {
	t.Parallel()
	sentences := []string{
		"The food was terrible.",
		"I absolutely love this product.",
		"My new job is wonderful.",
		"I hate this awful weather.",
		"We had a great time with our family.",
	}
	want := []aai.Sentiment{"NEGATIVE", "POSITIVE", "POSITIVE", "NEGATIVE", "POSITIVE"}
	// awb is the flite voice the recognizer gets word for word here, so
	// that the test is about sentences, not recognition errors.
	wav := speakText(t, "awb", sentences)

	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p") // the default: the learned punctuation model
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tr := submitFile(t, ctx, c, wav, &aai.TranscriptOptionalParams{SentimentAnalysis: aai.Bool(true)})
	t.Logf("text: %s", deref(tr.Text))
	res := tr.SentimentAnalysisResults
	var got []aai.Sentiment
	for _, r := range res {
		got = append(got, r.Sentiment)
		t.Logf("%s: %q", r.Sentiment, deref(r.Text))
	}
	if len(res) != len(sentences) {
		t.Fatalf("%d sentences with sentiments %v, want %d: %q", len(res), got, len(sentences), deref(tr.Text))
	}
	for i, r := range res {
		if r.Sentiment != want[i] {
			t.Errorf("sentence %d %q: %s, want %s", i+1, deref(r.Text), r.Sentiment, want[i])
		}
		if a, b := firstWords(deref(r.Text), 2), firstWords(sentences[i], 2); a != b {
			t.Errorf("sentence %d starts %q, want %q", i+1, a, b)
		}
	}
}

// longTalk is a recording of two topics, each sentence read at a normal
// pace with no pause longer than flite's own at a full stop.
var longTalk = []string{
	"We are baking a chocolate cake with butter and sugar today.",
	"First you mix the eggs with the butter in a large bowl.",
	"Then you bake the cake in the oven for forty minutes.",
	"The kitchen smells wonderful when the cake is ready.",
	"You can add the frosting when the cake is cool.",
	"Now let us talk about the stock market.",
	"Share prices fell sharply this week after the bank raised interest rates.",
	"Many investors sold their stocks and bought government bonds.",
	"The market may recover next month if the company earnings are good.",
	"Analysts expect the central bank to hold rates steady in the spring.",
}

// TestSummaryAndChaptersStartAtSentences: on a longer recording read at a
// normal pace, every summary bullet and every chapter's headline and
// summary begin where a sentence of the reading begins (the first two
// words of one of its sentences), not in the middle of one.
func TestSummaryAndChaptersStartAtSentences(t *testing.T) {
	t.Parallel()
	wav := speakText(t, "rms", longTalk)
	starts := map[string]bool{}
	for _, s := range longTalk {
		starts[firstWords(s, 2)] = true
	}
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK+":p") // the default: the learned punctuation model
	c := client(s, keyK)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	check := func(what, text string) {
		t.Helper()
		if !starts[firstWords(text, 2)] {
			t.Errorf("%s %q does not start at a sentence start", what, text)
		}
	}
	tr := submitFile(t, ctx, c, wav, &aai.TranscriptOptionalParams{
		Summarization: aai.Bool(true), SummaryType: "bullets", SummaryModel: "informative"})
	t.Logf("text: %s", deref(tr.Text))
	bullets := 0
	for _, line := range strings.Split(deref(tr.Summary), "\n") {
		if b, ok := strings.CutPrefix(line, "- "); ok {
			bullets++
			check("bullet", b)
		}
	}
	if bullets == 0 {
		t.Errorf("no bullets in %q", deref(tr.Summary))
	}
	tr = submitFile(t, ctx, c, wav, &aai.TranscriptOptionalParams{AutoChapters: aai.Bool(true)})
	if len(tr.Chapters) == 0 {
		t.Fatal("no chapters")
	}
	for _, ch := range tr.Chapters {
		check("chapter headline", deref(ch.Headline))
		check("chapter summary", deref(ch.Summary))
	}
}
