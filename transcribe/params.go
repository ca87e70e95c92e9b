package transcribe

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TranscriptParams are the parameters of POST /v2/transcript. Pointer fields
// distinguish "absent" (nil) from an explicit value; Normalize fills in the
// effective defaults so that the transcript echoes them. JSON null is the
// same as absent. Unknown request keys are ignored.
type TranscriptParams struct {
	AudioURL string `json:"audio_url"`

	AudioStartFrom *int64 `json:"audio_start_from"`
	AudioEndAt     *int64 `json:"audio_end_at"`

	Punctuate       *bool            `json:"punctuate"`
	FormatText      *bool            `json:"format_text"`
	Disfluencies    *bool            `json:"disfluencies"`
	FilterProfanity *bool            `json:"filter_profanity"`
	CustomSpelling  []CustomSpelling `json:"custom_spelling"`
	WordBoost       []string         `json:"word_boost"`
	BoostParam      *BoostParam      `json:"boost_param"`
	KeytermsPrompt  []string         `json:"keyterms_prompt"`
	Prompt          *string          `json:"prompt"`
	Domain          *Domain          `json:"domain"`

	LanguageCode                *string                   `json:"language_code"`
	LanguageCodes               []string                  `json:"language_codes"`
	LanguageDetection           *bool                     `json:"language_detection"`
	LanguageConfidenceThreshold *float64                  `json:"language_confidence_threshold"`
	LanguageDetectionOptions    *LanguageDetectionOptions `json:"language_detection_options"`

	SpeechModel     *string         `json:"speech_model"`
	SpeechModels    []string        `json:"speech_models"`
	SpeechThreshold *float64        `json:"speech_threshold"`
	Temperature     *float64        `json:"temperature"`
	RemoveAudioTags json.RawMessage `json:"remove_audio_tags"`
	SpeedBoost      *bool           `json:"speed_boost"`

	SpeakerLabels    *bool           `json:"speaker_labels"`
	SpeakersExpected *int64          `json:"speakers_expected"`
	SpeakerOptions   *SpeakerOptions `json:"speaker_options"`
	DualChannel      *bool           `json:"dual_channel"`
	Multichannel     *bool           `json:"multichannel"`

	AutoHighlights          *bool           `json:"auto_highlights"`
	ContentSafety           *bool           `json:"content_safety"`
	ContentSafetyConfidence *int64          `json:"content_safety_confidence,omitempty"`
	IABCategories           *bool           `json:"iab_categories"`
	EntityDetection         *bool           `json:"entity_detection"`
	SentimentAnalysis       *bool           `json:"sentiment_analysis"`
	AutoChapters            *bool           `json:"auto_chapters"`
	Summarization           *bool           `json:"summarization"`
	SummaryType             *SummaryType    `json:"summary_type"`
	SummaryModel            *SummaryModel   `json:"summary_model"`
	CustomTopics            *bool           `json:"custom_topics"`
	Topics                  []string        `json:"topics"`
	SpeechUnderstanding     json.RawMessage `json:"speech_understanding"`

	RedactPII             *bool               `json:"redact_pii"`
	RedactPIIAudio        *bool               `json:"redact_pii_audio"`
	RedactPIIAudioQuality *AudioQuality       `json:"redact_pii_audio_quality"`
	RedactPIIAudioOptions json.RawMessage     `json:"redact_pii_audio_options"`
	RedactPIIPolicies     []string            `json:"redact_pii_policies"`
	RedactPIISub          *SubstitutionPolicy `json:"redact_pii_sub"`
	RedactStaticEntities  json.RawMessage     `json:"redact_static_entities"`

	WebhookURL             *string `json:"webhook_url"`
	WebhookAuthHeaderName  *string `json:"webhook_auth_header_name"`
	WebhookAuthHeaderValue *string `json:"webhook_auth_header_value,omitempty"`
}

// Limits of the spec's parameter tables.
const (
	MaxWordBoostTerms        = 1000
	MaxTermWords             = 6
	MaxKeytermsUniversal     = 200
	MaxKeytermsPro           = 1000
	MaxPromptWords           = 1500
	MaxCustomSpellingWords   = 5
	MinContentSafetyConf     = 25
	MaxContentSafetyConf     = 100
	DefaultContentSafetyConf = 50
	MaxSpeakersExpected      = 10
	// MaxURLBytes caps audio_url and webhook_url (a pre-signed object
	// store URL fits easily), which keeps list entries bounded.
	MaxURLBytes = 8 << 10
)

// Model groups the spec names.
var (
	// proModels accept up to MaxKeytermsPro keyterms and a prompt.
	proModels = []string{"slam-1"}
	// universal2Models are the models that support auto_chapters.
	universal2Models = []string{"best", "universal"}
	domainLanguages  = []string{"en", "es", "de", "fr"}
)

func contains(list []string, v string) bool { return slices.Contains(list, v) }

func isTrue(b *bool) bool   { return b != nil && *b }
func isFalse(b *bool) bool  { return b != nil && !*b }
func boolp(b bool) *bool    { return &b }
func strp(s string) *string { return &s }

// Ptr returns a pointer to v, for the optional fields of TranscriptParams:
// Ptr(true), Ptr("en"), Ptr(int64(60)), Ptr(SummaryGist).
func Ptr[T any](v T) *T { return &v }

// IsTrue reports whether an optional flag is set and true.
func IsTrue(b *bool) bool { return isTrue(b) }

func wordCount(s string) int { return len(strings.Fields(s)) }

// badRune finds a rune that must not reach transcript text: invalid
// UTF-8, control characters (NUL included), and the invisible formatting
// characters that reorder or hide text (bidirectional overrides and
// isolates, zero-width marks; Unicode category Cf).
func badRune(s string) (rune, bool) {
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return r, true
		}
	}
	return 0, false
}

func checkEnum[T ~string](field string, v *T, allowed []T) error {
	if v != nil && !slices.Contains(allowed, *v) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
		}
		return paramErr(field, "must be one of %s, got %q", strings.Join(names, ", "), *v)
	}
	return nil
}

func checkRange(field string, v *float64, lo, hi float64) error {
	if v != nil && (*v < lo || *v > hi) {
		return paramErr(field, "must be between %g and %g, got %g", lo, hi, *v)
	}
	return nil
}

func isPro(model *string) bool { return model != nil && contains(proModels, *model) }

// isAPIModel reports whether name is one of the API's own model names (to
// which the API's model rules apply), not the name of a configured engine.
func isAPIModel(name string) bool { return contains(KnownSpeechModels(), name) }

// maxModelName caps speech_model names.
const maxModelName = 100

// Validate checks every rule of the spec's parameter tables and returns a
// *ParamError naming the first broken one. It does not change p.
func (p *TranscriptParams) Validate() error {
	if strings.TrimSpace(p.AudioURL) == "" {
		return paramErr("audio_url", "is required")
	}
	if err := checkURL("audio_url", p.AudioURL); err != nil {
		return err
	}
	return p.validateOptions()
}

// validateOptions checks every rule but those of audio_url (which Submit
// only echoes for an upload given by id).
func (p *TranscriptParams) validateOptions() error {
	if len(p.AudioURL) > MaxURLBytes {
		return paramErr("audio_url", "is longer than %d bytes", MaxURLBytes)
	}
	if p.AudioStartFrom != nil && *p.AudioStartFrom < 0 {
		return paramErr("audio_start_from", "must not be negative")
	}
	if p.AudioEndAt != nil && *p.AudioEndAt < 0 {
		return paramErr("audio_end_at", "must not be negative")
	}
	if p.AudioStartFrom != nil && p.AudioEndAt != nil && *p.AudioEndAt <= *p.AudioStartFrom {
		return paramErr("audio_end_at", "must be greater than audio_start_from")
	}

	// Models. Which names exist depends on the engines a Service has
	// (Service.Submit checks them); here only their form.
	if m := p.SpeechModel; m != nil && (strings.TrimSpace(*m) == "" || len(*m) > maxModelName) {
		return paramErr("speech_model", "must be a model name of 1 to %d characters", maxModelName)
	}
	for _, m := range p.SpeechModels {
		if strings.TrimSpace(m) == "" || len(m) > maxModelName {
			return paramErr("speech_models", "must hold model names of 1 to %d characters", maxModelName)
		}
	}
	if err := checkRange("speech_threshold", p.SpeechThreshold, 0, 1); err != nil {
		return err
	}
	if err := checkRange("temperature", p.Temperature, 0, 1); err != nil {
		return err
	}

	// Chapters and summaries.
	if isTrue(p.AutoChapters) {
		if isFalse(p.Punctuate) {
			return paramErr("auto_chapters", "requires punctuate to be true")
		}
		if isTrue(p.Summarization) {
			return paramErr("auto_chapters", "cannot be enabled together with summarization")
		}
		if p.SpeechModel != nil && isAPIModel(*p.SpeechModel) && !contains(universal2Models, *p.SpeechModel) {
			return paramErr("auto_chapters", "is supported only by the universal-2 model, not speech_model %q", *p.SpeechModel)
		}
	}
	if err := checkEnum("summary_type", p.SummaryType, SummaryTypes()); err != nil {
		return err
	}
	if err := checkEnum("summary_model", p.SummaryModel, SummaryModels()); err != nil {
		return err
	}

	// Content safety.
	// The spec: content_safety_confidence is ignored unless content_safety
	// is enabled (Normalize drops it then).
	if c := p.ContentSafetyConfidence; c != nil && isTrue(p.ContentSafety) && (*c < MinContentSafetyConf || *c > MaxContentSafetyConf) {
		return paramErr("content_safety_confidence", "must be between %d and %d, got %d", MinContentSafetyConf, MaxContentSafetyConf, *c)
	}

	// Spelling, vocabulary, prompts.
	for i, cs := range p.CustomSpelling {
		f := fmt.Sprintf("custom_spelling[%d]", i)
		if len(cs.From) == 0 {
			return paramErr(f+".from", "must contain at least one phrase")
		}
		for _, from := range cs.From {
			n := wordCount(from)
			if n == 0 {
				return paramErr(f+".from", "must not contain empty phrases")
			}
			if n > MaxCustomSpellingWords {
				return paramErr(f+".from", "phrase %q has %d words; at most %d are allowed", from, n, MaxCustomSpellingWords)
			}
		}
		if strings.TrimSpace(cs.To) == "" {
			return paramErr(f+".to", "is required")
		}
		if wordCount(cs.To) != 1 {
			return paramErr(f+".to", "must be a single word, got %q", cs.To)
		}
		if r, bad := badRune(cs.To); bad {
			return paramErr(f+".to", "must be a printable word; it contains %U", r)
		}
		for _, from := range cs.From {
			if r, bad := badRune(from); bad {
				return paramErr(f+".from", "must be printable text; a phrase contains %U", r)
			}
		}
	}
	if err := checkTerms("word_boost", p.WordBoost, MaxWordBoostTerms); err != nil {
		return err
	}
	if err := checkEnum("boost_param", p.BoostParam, BoostParams()); err != nil {
		return err
	}
	maxKey := MaxKeytermsUniversal
	if isPro(p.SpeechModel) {
		maxKey = MaxKeytermsPro
	}
	if err := checkTerms("keyterms_prompt", p.KeytermsPrompt, maxKey); err != nil {
		return err
	}
	if p.Prompt != nil {
		if n := wordCount(*p.Prompt); n > MaxPromptWords {
			return paramErr("prompt", "has %d words; at most %d are allowed", n, MaxPromptWords)
		}
		if (p.SpeechModel == nil || isAPIModel(*p.SpeechModel)) && !isPro(p.SpeechModel) {
			return paramErr("prompt", "is supported only by the pro model (speech_model %q) or an engine that takes prompts", proModels[0])
		}
	}
	if err := checkEnum("domain", p.Domain, Domains()); err != nil {
		return err
	}

	// Language.
	if err := p.validateLanguage(); err != nil {
		return err
	}

	// Speakers and channels.
	if isTrue(p.SpeakerLabels) && isTrue(p.DualChannel) {
		return paramErr("speaker_labels", "cannot be enabled together with dual_channel")
	}
	if s := p.SpeakersExpected; s != nil && (*s < 1 || *s > MaxSpeakersExpected) {
		return paramErr("speakers_expected", "must be between 1 and %d, got %d", MaxSpeakersExpected, *s)
	}
	if o := p.SpeakerOptions; o != nil {
		if o.MinSpeakersExpected != nil && *o.MinSpeakersExpected < 1 {
			return paramErr("speaker_options.min_speakers_expected", "must be at least 1")
		}
		if o.MaxSpeakersExpected != nil && *o.MaxSpeakersExpected < 1 {
			return paramErr("speaker_options.max_speakers_expected", "must be at least 1")
		}
		if o.MinSpeakersExpected != nil && o.MaxSpeakersExpected != nil && *o.MinSpeakersExpected > *o.MaxSpeakersExpected {
			return paramErr("speaker_options", "min_speakers_expected must not exceed max_speakers_expected")
		}
	}

	// Redaction.
	if isTrue(p.RedactPII) && isFalse(p.FormatText) {
		return paramErr("redact_pii", "requires format_text to be true")
	}
	if isTrue(p.RedactPIIAudio) && !isTrue(p.RedactPII) {
		return paramErr("redact_pii_audio", "requires redact_pii to be true")
	}
	if isTrue(p.RedactPII) && len(p.RedactPIIPolicies) == 0 {
		return paramErr("redact_pii_policies", "is required when redact_pii is true")
	}
	for _, pol := range p.RedactPIIPolicies {
		if !contains(PIIPolicies(), pol) {
			return paramErr("redact_pii_policies", "unknown policy %q", pol)
		}
	}
	if err := checkEnum("redact_pii_sub", p.RedactPIISub, SubstitutionPolicies()); err != nil {
		return err
	}
	if err := checkEnum("redact_pii_audio_quality", p.RedactPIIAudioQuality, AudioQualities()); err != nil {
		return err
	}

	// Webhook.
	if p.WebhookURL != nil {
		if len(*p.WebhookURL) > MaxURLBytes {
			return paramErr("webhook_url", "is longer than %d bytes", MaxURLBytes)
		}
		if err := checkURL("webhook_url", *p.WebhookURL); err != nil {
			return err
		}
	}
	if (p.WebhookAuthHeaderName == nil) != (p.WebhookAuthHeaderValue == nil) {
		return paramErr("webhook_auth_header_name", "and webhook_auth_header_value must be given together")
	}
	if p.WebhookAuthHeaderName != nil {
		if p.WebhookURL == nil {
			return paramErr("webhook_auth_header_name", "requires webhook_url")
		}
		if !validHeaderName(*p.WebhookAuthHeaderName) {
			return paramErr("webhook_auth_header_name", "is not a valid HTTP header name")
		}
		for _, r := range *p.WebhookAuthHeaderValue {
			if (r < ' ' && r != '\t') || r == 0x7f {
				return paramErr("webhook_auth_header_value", "must not contain line breaks or control characters")
			}
		}
	}
	return nil
}

func (p *TranscriptParams) validateLanguage() error {
	if p.LanguageCode != nil && !contains(LanguageCodes(), *p.LanguageCode) {
		return paramErr("language_code", "unsupported language code %q", *p.LanguageCode)
	}
	if p.LanguageCode != nil && isTrue(p.LanguageDetection) {
		return paramErr("language_code", "cannot be used together with language_detection")
	}
	if isFalse(p.LanguageDetection) && p.LanguageCode == nil {
		return paramErr("language_detection", "can be false only together with a language_code")
	}
	if len(p.LanguageCodes) > 0 {
		hasEn := false
		for _, c := range p.LanguageCodes {
			if !contains(LanguageCodes(), c) {
				return paramErr("language_codes", "unsupported language code %q", c)
			}
			if c == "en" {
				hasEn = true
			}
		}
		if !hasEn {
			return paramErr("language_codes", "one value must be \"en\"")
		}
	}
	if p.LanguageConfidenceThreshold != nil {
		if err := checkRange("language_confidence_threshold", p.LanguageConfidenceThreshold, 0, 1); err != nil {
			return err
		}
		if !p.languageDetectionEnabled() {
			return paramErr("language_confidence_threshold", "can be set only when language_detection is enabled")
		}
	}
	o := p.LanguageDetectionOptions
	if o == nil {
		return nil
	}
	for _, c := range o.ExpectedLanguages {
		if !contains(LanguageCodes(), c) {
			return paramErr("language_detection_options.expected_languages", "unsupported language code %q", c)
		}
	}
	if o.FallbackLanguage != nil && *o.FallbackLanguage != "auto" && !contains(LanguageCodes(), *o.FallbackLanguage) {
		return paramErr("language_detection_options.fallback_language", "unsupported language code %q", *o.FallbackLanguage)
	}
	if err := checkRange("language_detection_options.code_switching_confidence_threshold", o.CodeSwitchingConfidenceThreshold, 0, 1); err != nil {
		return err
	}
	seenBase := map[string]bool{}
	for _, l := range o.Localization {
		if !slices.Contains(localizations, l) {
			return paramErr("language_detection_options.localization", "unsupported locale %q; supported: %s", l, strings.Join(localizations, ", "))
		}
		base := strings.SplitN(l, "_", 2)[0]
		if seenBase[base] {
			return paramErr("language_detection_options.localization", "at most one locale per base language (%s)", base)
		}
		seenBase[base] = true
	}
	if err := checkEnum("language_detection_options.on_no_speech_detected", o.OnNoSpeechDetected, noSpeechPolicies); err != nil {
		return err
	}
	if o.OnNoSpeechDetected != nil && *o.OnNoSpeechDetected == "fallback" {
		if o.FallbackLanguage == nil || *o.FallbackLanguage == "auto" {
			return paramErr("language_detection_options.on_no_speech_detected", "\"fallback\" requires a specific fallback_language, not auto")
		}
	}
	return nil
}

// languageDetectionEnabled: detection is applied automatically when no
// language_code is given.
func (p *TranscriptParams) languageDetectionEnabled() bool {
	if p.LanguageDetection != nil {
		return *p.LanguageDetection
	}
	return p.LanguageCode == nil
}

func checkTerms(field string, terms []string, max int) error {
	seen := map[string]bool{}
	for _, t := range terms {
		n := wordCount(t)
		if n == 0 {
			return paramErr(field, "must not contain empty terms")
		}
		if n > MaxTermWords {
			return paramErr(field, "term %q has %d words; at most %d are allowed", t, n, MaxTermWords)
		}
		seen[strings.ToLower(strings.Join(strings.Fields(t), " "))] = true
	}
	if len(seen) > max {
		return paramErr(field, "has %d unique terms; at most %d are allowed", len(seen), max)
	}
	return nil
}

func checkURL(field, raw string) error {
	for _, r := range raw {
		if r <= ' ' || r == 0x7f {
			return paramErr(field, "must not contain spaces or control characters (percent-encode them)")
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return paramErr(field, "is not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return paramErr(field, "must be an http or https URL")
	}
	if u.Host == "" {
		return paramErr(field, "must name a host")
	}
	return nil
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || r <= ' ' || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) {
			return false
		}
	}
	return true
}

// apiModelEcho orders the API's model names for echoing a default:
// "universal" (the API's default model) first.
var apiModelEcho = []string{"universal", "best", "nano", "slam-1", "conformer-2"}

// echoModel is the speech_model a transcript echoes when the request named
// none: the speech_models entry that chose eng, else the first of the
// API's own model names that selects eng (the API's names no engine claims
// select the default engine, so the default engine echoes "universal"),
// else the engine's name. A speech_model that was sent is echoed as sent.
func (e *engines) echoModel(p *TranscriptParams, eng *Engine) string {
	if p.SpeechModel != nil {
		return *p.SpeechModel
	}
	for _, m := range p.SpeechModels {
		if e.get(m) == eng {
			return m
		}
	}
	for _, m := range apiModelEcho {
		if e.get(m) == eng {
			return m
		}
	}
	return eng.Name
}
