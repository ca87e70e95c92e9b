package sentiment

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

func TestStageResults(t *testing.T) {
	t.Parallel()
	a, b, ch1, ch2 := "A", "B", "1", "2"
	ws := nlptest.Words("Thanks, the new plan is great! My order arrived broken and nobody answered. The meeting is at noon.")
	for i := range ws {
		ws[i].Speaker, ws[i].Channel = &a, &ch1
		if i >= 6 {
			ws[i].Speaker, ws[i].Channel = &b, &ch2
		}
	}
	tr := nlptest.Transcript(ws)
	on := true
	tr.SentimentAnalysis = &on
	st := Stages(Options{})[0]
	if !st.Enabled(&tr.TranscriptParams) || st.Name() != "sentiment_analysis" {
		t.Fatal("stage not enabled by sentiment_analysis")
	}
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	rs := tr.SentimentAnalysisResults
	want := []struct {
		text, sentiment, speaker string
	}{
		{"Thanks, the new plan is great!", Positive, "A"},
		{"My order arrived broken and nobody answered.", Negative, "B"},
		{"The meeting is at noon.", Neutral, "B"},
	}
	if len(rs) != len(want) {
		t.Fatalf("%d results: %+v", len(rs), rs)
	}
	for i, w := range want {
		r := rs[i]
		if r.Text != w.text || r.Sentiment != w.sentiment || *r.Speaker != w.speaker {
			t.Errorf("result %d = %q %s speaker %s, want %q %s %s", i, r.Text, r.Sentiment, *r.Speaker, w.text, w.sentiment, w.speaker)
		}
		if r.Confidence < 0.5 || r.Confidence > 1 {
			t.Errorf("result %d confidence %v", i, r.Confidence)
		}
	}
	// Times are those of the sentence's first and last words; channels
	// come through.
	if rs[0].Start != ws[0].Start || rs[0].End != ws[5].End || *rs[1].Channel != "2" || rs[2].End != ws[len(ws)-1].End {
		t.Errorf("times or channels wrong: %+v", rs)
	}
	// The wire form has every key.
	b1, _ := json.Marshal(rs[0])
	for _, k := range []string{`"text"`, `"start"`, `"end"`, `"sentiment"`, `"confidence"`, `"speaker"`, `"channel"`} {
		if !strings.Contains(string(b1), k) {
			t.Errorf("%s missing in %s", k, b1)
		}
	}
}

func TestStageEdgeCases(t *testing.T) {
	t.Parallel()
	st := Stage{}
	// Empty transcript: an empty list, which marshals as [].
	tr := nlptest.Transcript(nil)
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if tr.SentimentAnalysisResults == nil || len(tr.SentimentAnalysisResults) != 0 {
		t.Errorf("empty transcript gave %#v", tr.SentimentAnalysisResults)
	}
	// Nil job or transcript: nothing to do.
	if err := st.Apply(context.Background(), nil); err != nil {
		t.Error(err)
	}
	// Redacted words and punctuation-only words are ignored, and speaker
	// is null without speaker labels.
	tr = nlptest.Transcript(nlptest.Words("##### called [PERSON_NAME] — great service!"))
	if err := st.Apply(context.Background(), nlptest.Job(tr)); err != nil {
		t.Fatal(err)
	}
	if r := tr.SentimentAnalysisResults; len(r) != 1 || r[0].Sentiment != Positive || r[0].Speaker != nil || r[0].Channel != nil {
		t.Errorf("redacted sentence: %+v", r)
	}
	// A cancelled context is an error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Apply(ctx, nlptest.Job(tr)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// Invalid options are an error wrapping ErrOptions; Unavailable leaves
	// the field null.
	bad := Stage{Analyzer: Analyzer{Options: Options{Threshold: 1.5}}}
	if err := bad.Apply(context.Background(), nlptest.Job(tr)); !errors.Is(err, ErrOptions) {
		t.Errorf("bad options: %v", err)
	}
	bad.Unavailable(tr)
	if tr.SentimentAnalysisResults != nil {
		t.Error("Unavailable must leave null")
	}
	if _, err := (Analyzer{Options: Options{Threshold: -0.1}}).Classify("x"); !errors.Is(err, ErrOptions) {
		t.Errorf("negative threshold: %v", err)
	}
	off := false
	if st.Enabled(&transcribe.TranscriptParams{SentimentAnalysis: &off}) || st.Enabled(&transcribe.TranscriptParams{}) {
		t.Error("enabled without sentiment_analysis")
	}
}

// TestRules checks the spoken-language rules on sentences that are not in
// either labelled set.
func TestRules(t *testing.T) {
	t.Parallel()
	cases := []struct{ text, want string }{
		// Negation reaches the first sentiment word of its clause...
		{"Nobody in my family was happy with the result.", Negative},
		{"I don't think the new layout is good.", Negative},
		// ...and stops there.
		{"They didn't fix the broken heater.", Negative},
		// A conjunction ends it.
		{"It wasn't cheap, but the quality is excellent.", Positive},
		// Discourse markers and fillers carry no sentiment.
		{"Well, like, the form is on page four.", Neutral},
		{"Okay, please open the second file.", Neutral},
		// "like" as a verb still counts.
		{"I like the new colors a lot.", Positive},
		// Disbelief is emphasis.
		{"I can't believe how rude the driver was.", Negative},
		// Multi-word expressions.
		{"My phone stopped working after a week.", Negative},
	}
	for _, c := range cases {
		r, err := Analyzer{}.Classify(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if r.Sentiment != c.want {
			t.Errorf("%q: %s (%.2f), want %s", c.text, r.Sentiment, r.Score, c.want)
		}
	}
	if r, _ := (Analyzer{}).Classify(""); r.Sentiment != Neutral {
		t.Errorf("empty text: %+v", r)
	}
}
