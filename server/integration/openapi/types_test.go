package openapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/earshot-dev/earshot/export"
	"github.com/earshot-dev/earshot/transcribe"
)

// fullTranscript is a completed transcript with every optional result set
// (speakers, channels, every analysis, warnings), as the stages fill in the
// transcribe types; the live test's fake recognizer cannot make them all.
func fullTranscript() *transcribe.Transcript {
	a, b, one, two := "A", "B", "1", "2"
	sev := 0.6
	words := []transcribe.Word{
		{Text: "Hello,", Start: 0, End: 400, Confidence: 0.9, Speaker: &a, Channel: &one},
		{Text: "Sarah.", Start: 400, End: 900, Confidence: 0.8, Speaker: &a, Channel: &one},
		{Text: "I", Start: 1200, End: 1300, Confidence: 0.95, Speaker: &b, Channel: &two},
		{Text: "paid", Start: 1300, End: 1600, Confidence: 0.7, Speaker: &b, Channel: &two},
		{Text: "$25.", Start: 1600, End: 2400, Confidence: 0.6, Speaker: &b, Channel: &two},
	}
	t := &transcribe.Transcript{
		ID: "8d1c2c1e-8d7f-4f59-9a57-1b1a5b0d1d1d", Status: transcribe.StatusCompleted,
		TranscriptParams: transcribe.TranscriptParams{AudioURL: "https://media.earshot.invalid/a.wav",
			SpeakerLabels: transcribe.Ptr(true), Multichannel: transcribe.Ptr(true), AutoHighlights: transcribe.Ptr(true),
			ContentSafety: transcribe.Ptr(true), IABCategories: transcribe.Ptr(true), SentimentAnalysis: transcribe.Ptr(true),
			EntityDetection: transcribe.Ptr(true), Summarization: transcribe.Ptr(true), SummaryType: ptr(transcribe.SummaryBullets),
			SummaryModel: ptr(transcribe.SummaryInformative), LanguageCode: transcribe.Ptr("en"), RedactPII: transcribe.Ptr(false)},
		Words:         words,
		Utterances:    []transcribe.Utterance{{Text: "Hello, Sarah.", Start: 0, End: 900, Confidence: 0.85, Speaker: "A", Channel: &one, Words: words[:2]}, {Text: "I paid $25.", Start: 1200, End: 2400, Confidence: 0.75, Speaker: "B", Channel: &two, Words: words[2:]}},
		LanguageModel: "assemblyai_default", AcousticModel: "assemblyai_default",
		SpeechModelUsed: transcribe.Ptr("pocketsphinx-en-us"), LanguageConfidence: transcribe.Ptr(0.97),
		LanguageDetectionResults: json.RawMessage(`{"code_switching_languages":[{"language_code":"en","confidence":0.97}]}`),
		AutoHighlightsResult: &transcribe.AutoHighlightsResult{Status: "success", Results: []transcribe.AutoHighlight{
			{Count: 1, Rank: 0.08, Text: "Sarah", Timestamps: []transcribe.Timestamp{{Start: 400, End: 900}}}}},
		ContentSafetyLabels: &transcribe.ContentSafetyLabelsResult{Status: "success",
			Results: []transcribe.ContentSafetyLabelResult{{Text: "I paid $25.", SentencesIdxStart: 1, SentencesIdxEnd: 1,
				Timestamp: transcribe.Timestamp{Start: 1200, End: 2400},
				Labels:    []transcribe.ContentSafetyLabel{{Label: "company_financials", Confidence: 0.7}, {Label: "gambling", Confidence: 0.55, Severity: &sev}}}},
			Summary:              map[string]float64{"company_financials": 0.7, "gambling": 0.55},
			SeverityScoreSummary: map[string]transcribe.SeverityScoreSummary{"gambling": {Low: 0.2, Medium: 0.8}}},
		IABCategoriesResult: &transcribe.TopicDetectionResult{Status: "success",
			Results: []transcribe.TopicDetectionItem{{Text: "I paid $25.", Timestamp: transcribe.Timestamp{Start: 1200, End: 2400},
				Labels: []transcribe.TopicLabel{{Relevance: 0.9, Label: "Personal Finance>Personal Debt"}}}},
			Summary: map[string]float64{"Personal Finance>Personal Debt": 0.9}},
		Chapters: []transcribe.Chapter{{Gist: "A payment", Headline: "Sarah is greeted and a payment is made.", Summary: "Someone greets Sarah. A payment of $25 follows.", Start: 0, End: 2400}},
		Summary:  transcribe.Ptr("- Sarah is greeted.\n- $25 is paid."),
		SentimentAnalysisResults: []transcribe.SentimentResult{{Text: "Hello, Sarah.", Start: 0, End: 900, Sentiment: "POSITIVE", Confidence: 0.8, Speaker: &a, Channel: &one},
			{Text: "I paid $25.", Start: 1200, End: 2400, Sentiment: "NEUTRAL", Confidence: 0.6, Speaker: &b, Channel: &two}},
		Entities:        []transcribe.Entity{{EntityType: "person_name", Text: "Sarah", Start: 400, End: 900}, {EntityType: "money_amount", Text: "$25", Start: 1600, End: 2400}},
		TranslatedTexts: json.RawMessage(`{"es":"Hola, Sarah. Pagué 25 dólares."}`),
		WebhookAuth:     true, WebhookStatusCode: transcribe.Ptr(int64(200)),
		ProjectID: "p1",
		Metadata:  &transcribe.Metadata{Warnings: []transcribe.Warning{{Message: "domain ignored"}}},
	}
	n := int64(2)
	t.AudioChannels = &n
	t.AudioDuration = transcribe.Ptr(2.4)
	t.Fill()
	return t
}

func ptr[T any](v T) *T { return &v }

// TestResultTypesMatchSchemas validates the JSON of transcribe's and
// export's result types, filled in completely, against the document as if
// the server had sent them: the Transcript with every analysis (and its
// pending form), and the exports computed from it by package export.
func TestResultTypesMatchSchemas(t *testing.T) {
	t.Parallel()
	s := loadSpec(t)
	full := fullTranscript()
	pending := &transcribe.Transcript{ID: full.ID, Status: transcribe.StatusQueued, TranscriptParams: full.TranscriptParams,
		LanguageModel: "assemblyai_default", AcousticModel: "assemblyai_default",
		ContentSafetyLabels: &transcribe.ContentSafetyLabelsResult{}, IABCategoriesResult: &transcribe.TopicDetectionResult{}}
	unavailable := *full
	unavailable.AutoHighlightsResult = &transcribe.AutoHighlightsResult{Status: "unavailable", Results: []transcribe.AutoHighlight{}}
	unavailable.ContentSafetyLabels = &transcribe.ContentSafetyLabelsResult{Status: "unavailable"}
	unavailable.IABCategoriesResult = &transcribe.TopicDetectionResult{Status: "unavailable"}
	terms, err := export.ParseSearchTerms("sarah,25,nothing")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		v    any
	}{
		{"/v2/transcript/" + full.ID, full.Public()},
		{"/v2/transcript/" + full.ID, pending.Public()},
		{"/v2/transcript/" + full.ID, unavailable.Public()},
		{"/v2/transcript/" + full.ID + "/sentences", export.Sentences(full)},
		{"/v2/transcript/" + full.ID + "/paragraphs", export.Paragraphs(full)},
		{"/v2/transcript/" + full.ID + "/word-search?words=sarah%2C25%2Cnothing", export.Search(full, terms)},
	} {
		body, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := http.NewRequest("GET", "http://127.0.0.1:8080"+c.path, nil)
		r.Header.Set("Authorization", key1)
		res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"c0ffee"}},
			Body: io.NopCloser(bytes.NewReader(body)), Request: r}
		if ok, errs := s.v.ValidateHttpResponse(r, res); !ok {
			t.Errorf("%s: %s does not match the document:%s", c.path, body, describe(errs))
		}
	}
}
