package transcribe

import (
	"encoding/json"
	"testing"
)

// queuedKeys are the keys of the real API's queued transcript (Go SDK
// testdata queued.json) plus those wire-format.md §3.1 lists as required.
var queuedKeys = []string{"id", "language_model", "acoustic_model", "language_code", "status", "audio_url",
	"text", "words", "utterances", "confidence", "audio_duration", "punctuate", "format_text",
	"dual_channel", "webhook_url", "webhook_status_code", "webhook_auth", "webhook_auth_header_name",
	"speed_boost", "auto_highlights_result", "auto_highlights", "audio_start_from", "audio_end_at",
	"word_boost", "boost_param", "filter_profanity", "redact_pii", "redact_pii_audio",
	"redact_pii_audio_quality", "redact_pii_policies", "redact_pii_sub", "speaker_labels",
	"content_safety", "iab_categories", "content_safety_labels", "iab_categories_result",
	"language_detection", "custom_spelling", "throttled", "auto_chapters", "summarization",
	"summary_type", "summary_model", "custom_topics", "topics", "speech_threshold", "disfluencies",
	"sentiment_analysis", "chapters", "sentiment_analysis_results", "entity_detection", "entities",
	"summary", "speakers_expected", "error", "is_deleted", "project_id", "token_id",
	"language_codes", "language_confidence", "language_confidence_threshold",
	"language_detection_options", "speech_model", "speech_models", "speech_model_used",
	"multichannel", "speaker_options", "keyterms_prompt", "prompt", "domain", "temperature",
	"remove_audio_tags", "custom_topics_results", "speech_understanding", "translated_texts",
	"redact_static_entities", "redact_pii_audio_options", "language_detection_results", "metadata"}

func TestTranscriptWireKeys(t *testing.T) {
	p := TranscriptParams{AudioURL: "https://example.com/a.mp3", WebhookAuthHeaderName: Ptr("X-Auth"), WebhookAuthHeaderValue: Ptr("s3cret")}
	p.Normalize()
	tr := &Transcript{ID: "x", Status: StatusQueued, TranscriptParams: p, LanguageModel: "assemblyai_default", AcousticModel: "assemblyai_default"}
	b, err := json.Marshal(tr.Public())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range queuedKeys {
		if _, ok := m[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	if _, ok := m["webhook_auth_header_value"]; ok {
		t.Error("webhook_auth_header_value echoed")
	}
	for _, k := range []string{"text", "words", "utterances", "confidence", "audio_duration", "error"} {
		if string(m[k]) != "null" {
			t.Errorf("%s = %s, want null before completion", k, m[k])
		}
	}
	for _, k := range []string{"redact_pii", "auto_highlights", "summarization", "webhook_auth"} {
		if string(m[k]) == "null" {
			t.Errorf("%s must not be null", k)
		}
	}
}

func TestWordJSONIntegers(t *testing.T) {
	sp, ch := "A", "1"
	b, _ := json.Marshal(Word{Text: "hi", Start: 10, End: 250, Confidence: 0.5, Speaker: &sp, Channel: &ch})
	want := `{"text":"hi","start":10,"end":250,"confidence":0.5,"speaker":"A","channel":"1"}`
	if string(b) != want {
		t.Fatalf("got %s want %s", b, want)
	}
}

func TestClearContent(t *testing.T) {
	text := "secret"
	d := 3.5
	tr := &Transcript{ID: "x", Status: StatusCompleted, Text: &text, Words: []Word{{Text: "secret"}}, AudioDuration: &d,
		TranscriptParams: TranscriptParams{AudioURL: "https://h/a", WebhookURL: Ptr("https://h/w")}}
	tr.ClearContent()
	b, _ := json.Marshal(tr)
	var m map[string]any
	json.Unmarshal(b, &m)
	if m["text"] != DeletedText || m["audio_url"] != DeletedAudioURL || m["words"] != nil || m["is_deleted"] != true || m["status"] != "completed" || m["audio_duration"] != 3.5 {
		t.Fatalf("bad deleted form: %s", b)
	}
}

func TestPendingAndUnavailableResults(t *testing.T) {
	b, _ := json.Marshal(&Transcript{ContentSafetyLabels: &ContentSafetyLabelsResult{}, IABCategoriesResult: &TopicDetectionResult{}})
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	if string(m["content_safety_labels"]) != "{}" || string(m["iab_categories_result"]) != "{}" {
		t.Fatalf("pending: %s %s", m["content_safety_labels"], m["iab_categories_result"])
	}
	tr := &Transcript{TranscriptParams: TranscriptParams{ContentSafety: Ptr(true), IABCategories: Ptr(true), AutoHighlights: Ptr(true)},
		ContentSafetyLabels: &ContentSafetyLabelsResult{Status: "unavailable"}, IABCategoriesResult: &TopicDetectionResult{Status: "unavailable"},
		AutoHighlightsResult: &AutoHighlightsResult{Status: "unavailable", Results: []AutoHighlight{}}}
	b, _ = json.Marshal(tr)
	json.Unmarshal(b, &m)
	if string(m["content_safety_labels"]) != `{"status":"unavailable","results":[],"summary":{},"severity_score_summary":{}}` ||
		string(m["iab_categories_result"]) != `{"status":"unavailable","results":[],"summary":{}}` ||
		string(m["auto_highlights_result"]) != `{"status":"unavailable","results":[]}` {
		t.Fatalf("unavailable: %s %s %s", m["content_safety_labels"], m["iab_categories_result"], m["auto_highlights_result"])
	}
}
