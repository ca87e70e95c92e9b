package transcribe

import (
	"encoding/json"
	"time"
)

// Word is one recognized word. Times are integer milliseconds from the start
// of the media, as on the wire. Speaker is a letter ("A", "B", ...) when
// speaker labels ran, Channel a decimal string ("1", "2", ...) with dual
// channel or multichannel.
type Word struct {
	Text       string  `json:"text"`
	Start      int64   `json:"start"`
	End        int64   `json:"end"`
	Confidence float64 `json:"confidence"`
	Speaker    *string `json:"speaker"`
	Channel    *string `json:"channel"`
}

// Utterance is one speaker turn (or one channel turn with dual channel).
type Utterance struct {
	Text       string  `json:"text"`
	Start      int64   `json:"start"`
	End        int64   `json:"end"`
	Confidence float64 `json:"confidence"`
	Speaker    string  `json:"speaker"`
	Channel    *string `json:"channel"`
	Words      []Word  `json:"words"`
}

// Timestamp is a {start, end} pair in milliseconds.
type Timestamp struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// CustomSpelling maps spoken phrases to a single written word.
type CustomSpelling struct {
	From []string `json:"from"`
	To   string   `json:"to"`
}

// SpeakerOptions bounds the number of speakers the diarizer may find.
type SpeakerOptions struct {
	MinSpeakersExpected         *int64 `json:"min_speakers_expected,omitempty"`
	MaxSpeakersExpected         *int64 `json:"max_speakers_expected,omitempty"`
	AdvancedSpeakerSegmentation *bool  `json:"advanced_speaker_segmentation,omitempty"`
}

// LanguageDetectionOptions tunes automatic language detection.
type LanguageDetectionOptions struct {
	ExpectedLanguages                []string `json:"expected_languages,omitempty"`
	FallbackLanguage                 *string  `json:"fallback_language,omitempty"`
	CodeSwitching                    *bool    `json:"code_switching,omitempty"`
	CodeSwitchingConfidenceThreshold *float64 `json:"code_switching_confidence_threshold,omitempty"`
	Localization                     []string `json:"localization,omitempty"`
	OnNoSpeechDetected               *string  `json:"on_no_speech_detected,omitempty"`
}

// AutoHighlightsResult holds key phrases (auto_highlights).
type AutoHighlightsResult struct {
	Status  string          `json:"status"`
	Results []AutoHighlight `json:"results"`
}

// AutoHighlight is one key phrase.
type AutoHighlight struct {
	Count      int64       `json:"count"`
	Rank       float64     `json:"rank"`
	Text       string      `json:"text"`
	Timestamps []Timestamp `json:"timestamps"`
}

// ContentSafetyLabelsResult holds content moderation results.
type ContentSafetyLabelsResult struct {
	Status               string                          `json:"status"`
	Results              []ContentSafetyLabelResult      `json:"results"`
	Summary              map[string]float64              `json:"summary"`
	SeverityScoreSummary map[string]SeverityScoreSummary `json:"severity_score_summary"`
}

// MarshalJSON writes {} for a result that is still pending (no status),
// as the real API shows on queued transcripts, and otherwise the object
// with empty collections rather than null.
func (r ContentSafetyLabelsResult) MarshalJSON() ([]byte, error) {
	if r.Status == "" {
		return []byte("{}"), nil
	}
	type plain ContentSafetyLabelsResult
	if r.Results == nil {
		r.Results = []ContentSafetyLabelResult{}
	}
	if r.Summary == nil {
		r.Summary = map[string]float64{}
	}
	if r.SeverityScoreSummary == nil {
		r.SeverityScoreSummary = map[string]SeverityScoreSummary{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON: {} while pending, like ContentSafetyLabelsResult.
func (r TopicDetectionResult) MarshalJSON() ([]byte, error) {
	if r.Status == "" {
		return []byte("{}"), nil
	}
	type plain TopicDetectionResult
	if r.Results == nil {
		r.Results = []TopicDetectionItem{}
	}
	if r.Summary == nil {
		r.Summary = map[string]float64{}
	}
	return json.Marshal(plain(r))
}

// SeverityScoreSummary is the distribution of severities of one label.
type SeverityScoreSummary struct {
	Low    float64 `json:"low"`
	Medium float64 `json:"medium"`
	High   float64 `json:"high"`
}

// ContentSafetyLabelResult is one flagged stretch of the transcript.
type ContentSafetyLabelResult struct {
	Text              string               `json:"text"`
	Labels            []ContentSafetyLabel `json:"labels"`
	SentencesIdxStart int64                `json:"sentences_idx_start"`
	SentencesIdxEnd   int64                `json:"sentences_idx_end"`
	Timestamp         Timestamp            `json:"timestamp"`
}

// ContentSafetyLabel is one label with its confidence and severity.
type ContentSafetyLabel struct {
	Label      string   `json:"label"`
	Confidence float64  `json:"confidence"`
	Severity   *float64 `json:"severity"`
}

// TopicDetectionResult holds IAB categories (iab_categories_result).
type TopicDetectionResult struct {
	Status  string               `json:"status"`
	Results []TopicDetectionItem `json:"results"`
	Summary map[string]float64   `json:"summary"`
}

// TopicDetectionItem is one paragraph with its labels.
type TopicDetectionItem struct {
	Text      string       `json:"text"`
	Labels    []TopicLabel `json:"labels"`
	Timestamp Timestamp    `json:"timestamp"`
}

// TopicLabel is an IAB category path ("A>B>C") and its relevance.
type TopicLabel struct {
	Relevance float64 `json:"relevance"`
	Label     string  `json:"label"`
}

// Entity is one detected entity.
type Entity struct {
	EntityType string `json:"entity_type"`
	Text       string `json:"text"`
	Start      int64  `json:"start"`
	End        int64  `json:"end"`
}

// SentimentResult is the sentiment of one sentence.
type SentimentResult struct {
	Text       string  `json:"text"`
	Start      int64   `json:"start"`
	End        int64   `json:"end"`
	Sentiment  string  `json:"sentiment"`
	Confidence float64 `json:"confidence"`
	Speaker    *string `json:"speaker"`
	Channel    *string `json:"channel"`
}

// Chapter is one auto chapter.
type Chapter struct {
	Gist     string `json:"gist"`
	Headline string `json:"headline"`
	Summary  string `json:"summary"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
}

// Warning is one entry of metadata.warnings.
type Warning struct {
	Message string `json:"message"`
}

// Metadata carries warnings about how the request was handled.
type Metadata struct {
	Warnings []Warning `json:"warnings,omitempty"`
}

// Transcript is the transcript resource. Its JSON form is the wire form of
// POST/GET/DELETE /v2/transcript: every documented key is present and null
// where it does not apply. The embedded TranscriptParams echo the request
// with effective values (see TranscriptParams.Normalize).
//
// A Transcript is a value: it is not safe for concurrent mutation.
type Transcript struct {
	ID     string `json:"id"`
	Status Status `json:"status"`

	TranscriptParams

	Text          *string     `json:"text"`
	Words         []Word      `json:"words"`
	Utterances    []Utterance `json:"utterances"`
	Confidence    *float64    `json:"confidence"`
	AudioDuration *float64    `json:"audio_duration"`
	AudioChannels *int64      `json:"audio_channels,omitempty"`
	Error         *string     `json:"error"`

	LanguageModel            string          `json:"language_model"`
	AcousticModel            string          `json:"acoustic_model"`
	SpeechModelUsed          *string         `json:"speech_model_used"`
	LanguageConfidence       *float64        `json:"language_confidence"`
	LanguageDetectionResults json.RawMessage `json:"language_detection_results"`

	AutoHighlightsResult     *AutoHighlightsResult      `json:"auto_highlights_result"`
	ContentSafetyLabels      *ContentSafetyLabelsResult `json:"content_safety_labels"`
	IABCategoriesResult      *TopicDetectionResult      `json:"iab_categories_result"`
	CustomTopicsResults      json.RawMessage            `json:"custom_topics_results"`
	Chapters                 []Chapter                  `json:"chapters"`
	Summary                  *string                    `json:"summary"`
	SentimentAnalysisResults []SentimentResult          `json:"sentiment_analysis_results"`
	Entities                 []Entity                   `json:"entities"`
	TranslatedTexts          json.RawMessage            `json:"translated_texts"`

	WebhookAuth       bool   `json:"webhook_auth"`
	WebhookStatusCode *int64 `json:"webhook_status_code"`

	IsDeleted bool      `json:"is_deleted"`
	ProjectID string    `json:"project_id"`
	TokenID   *string   `json:"token_id"`
	Throttled *bool     `json:"throttled"`
	Metadata  *Metadata `json:"metadata"`

	// Service-side facts, not part of the wire form.
	Created   time.Time `json:"-"`
	Completed time.Time `json:"-"` // zero until completed or error
}

// DeletedText and DeletedAudioURL are what a deleted transcript shows, as the
// real API does.
const (
	DeletedText     = "Deleted by user."
	DeletedAudioURL = "http://deleted_by_user"
)

// Public returns a copy of t that is safe to send to a client: secrets such
// as webhook_auth_header_value are removed.
func (t *Transcript) Public() *Transcript {
	c := *t
	c.WebhookAuthHeaderValue = nil
	c.ContentSafetyConfidence = nil
	return &c
}

// ClearContent removes everything a deleted transcript must not keep: text,
// words, results, the request's content parameters and URLs. The result
// keeps id, status, project, audio_duration and timestamps.
func (t *Transcript) ClearContent() {
	keep := *t
	*t = Transcript{
		ID:            keep.ID,
		Status:        keep.Status,
		AudioDuration: keep.AudioDuration,
		ProjectID:     keep.ProjectID,
		Created:       keep.Created,
		Completed:     keep.Completed,
		IsDeleted:     true,
		LanguageModel: "assemblyai_default",
		AcousticModel: "assemblyai_default",
	}
	text := DeletedText
	t.Text = &text
	t.AudioURL = DeletedAudioURL
	if keep.WebhookURL != nil {
		u := DeletedAudioURL
		t.WebhookURL = &u
	}
	f := false
	t.RedactPII = &f
	t.AutoHighlights = &f
	t.Summarization = &f
}

// Fill sets Text and Confidence from Words (words joined by single spaces;
// the mean word confidence). It leaves them alone when Words is nil.
func (t *Transcript) Fill() {
	if t.Words == nil {
		return
	}
	text := JoinWords(t.Words)
	t.Text = &text
	conf := 0.0
	for _, w := range t.Words {
		conf += w.Confidence
	}
	if len(t.Words) > 0 {
		conf /= float64(len(t.Words))
	}
	t.Confidence = &conf
}

// JoinWords joins word texts with single spaces.
func JoinWords(ws []Word) string {
	n := 0
	for _, w := range ws {
		n += len(w.Text) + 1
	}
	b := make([]byte, 0, n)
	for i, w := range ws {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, w.Text...)
	}
	return string(b)
}
