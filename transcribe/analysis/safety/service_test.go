package safety_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/internal/speechtest"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/keyphrases"
	"github.com/earshot-dev/earshot/transcribe/analysis/safety"
	"github.com/earshot-dev/earshot/transcribe/analysis/sentiment"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
)

// TestServiceAnalyses runs the three analyses of this directory through a
// real Service (embedded pocketsphinx on flite speech, the media decoder,
// the default pipeline with speaker labels and PII redaction, then the
// analysis stages, as transcribe/pipeline is to wire them) and checks the
// transcript the API returns: {} for content_safety_labels while queued,
// then results from the recognized, formatted and redacted words, with
// speakers and real times, and no redacted name anywhere in them.
func TestServiceAnalyses(t *testing.T) {
	if testing.Short() {
		t.Skip("recognizes speech")
	}
	stages := pipeline.Default(pipeline.Options{})
	stages = append(stages, keyphrases.Stages(keyphrases.Options{})...)
	stages = append(stages, sentiment.Stages(sentiment.Options{})...)
	stages = append(stages, safety.Stages(safety.Options{})...)
	svc := speechtest.NewService(t, speechtest.Engine(t), stages, nil)
	wav, err := os.ReadFile(testaudio.Speech(t, "slt", "my name is sarah johnson. police said a man was shot during a robbery downtown. "+
		"the new dashboard is great and the support team was very helpful."))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	p := transcribe.TranscriptParams{SpeakerLabels: &yes, RedactPII: &yes,
		RedactPIIPolicies: []string{"person_name"}, AutoHighlights: &yes, SentimentAnalysis: &yes, ContentSafety: &yes}
	tr := speechtest.Transcribe(t, svc, wav, p, func(tr *transcribe.Transcript) {
		if b, _ := json.Marshal(tr.ContentSafetyLabels); string(b) != "{}" {
			t.Errorf("queued content_safety_labels %s, want {}", b)
		}
	})
	t.Logf("text: %s", *tr.Text)
	body, err := json.Marshal(tr.Public())
	if err != nil {
		t.Fatal(err)
	}
	low := strings.ToLower(string(body))
	for _, secret := range []string{"sarah", "johnson"} {
		if strings.Contains(low, secret) {
			t.Errorf("%q appears in the transcript JSON", secret)
		}
	}
	end := tr.Words[len(tr.Words)-1].End
	cs := tr.ContentSafetyLabels
	if cs == nil || cs.Status != "success" || len(cs.Results) == 0 {
		t.Fatalf("content_safety_labels %+v", cs)
	}
	found := false
	for _, r := range cs.Results {
		for _, l := range r.Labels {
			found = found || l.Label == safety.CrimeViolence
		}
		if r.Timestamp.Start < 0 || r.Timestamp.End > end || r.Timestamp.Start >= r.Timestamp.End {
			t.Errorf("segment times %+v outside 0-%d", r.Timestamp, end)
		}
	}
	if !found || cs.Summary[safety.CrimeViolence] == 0 {
		t.Errorf("no crime_violence in %+v", cs)
	}
	if len(tr.SentimentAnalysisResults) == 0 {
		t.Fatal("no sentiment results")
	}
	for _, s := range tr.SentimentAnalysisResults {
		if s.Speaker == nil || *s.Speaker != "A" || s.End > end {
			t.Errorf("sentiment result %+v", s)
		}
	}
	ah := tr.AutoHighlightsResult
	if ah == nil || ah.Status != "success" || len(ah.Results) == 0 {
		t.Fatalf("auto_highlights_result %+v", ah)
	}
	for _, h := range ah.Results {
		for _, ts := range h.Timestamps {
			if ts.End > end || ts.Start > ts.End {
				t.Errorf("key phrase %q at %+v", h.Text, ts)
			}
		}
	}
}
