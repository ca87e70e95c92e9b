package transcribe

import (
	"slices"
	"strings"
)

// BoostParam is the weight of word_boost (boost_param).
type BoostParam string

// The boost_param values.
const (
	BoostLow     BoostParam = "low"
	BoostDefault BoostParam = "default"
	BoostHigh    BoostParam = "high"
)

// BoostParams lists the boost_param values.
func BoostParams() []BoostParam { return []BoostParam{BoostLow, BoostDefault, BoostHigh} }

// SummaryType is the form of a summary (summary_type).
type SummaryType string

// The summary_type values.
const (
	SummaryBullets        SummaryType = "bullets"
	SummaryBulletsVerbose SummaryType = "bullets_verbose"
	SummaryGist           SummaryType = "gist"
	SummaryHeadline       SummaryType = "headline"
	SummaryParagraph      SummaryType = "paragraph"
)

// SummaryTypes lists the summary_type values.
func SummaryTypes() []SummaryType {
	return []SummaryType{SummaryBullets, SummaryBulletsVerbose, SummaryGist, SummaryHeadline, SummaryParagraph}
}

// SummaryModel is the style of a summary (summary_model).
type SummaryModel string

// The summary_model values.
const (
	SummaryInformative    SummaryModel = "informative"
	SummaryConversational SummaryModel = "conversational"
	SummaryCatchy         SummaryModel = "catchy"
)

// SummaryModels lists the summary_model values.
func SummaryModels() []SummaryModel {
	return []SummaryModel{SummaryInformative, SummaryConversational, SummaryCatchy}
}

// SubstitutionPolicy is how redacted PII is written (redact_pii_sub).
type SubstitutionPolicy string

// The redact_pii_sub values.
const (
	SubEntityName SubstitutionPolicy = "entity_name"
	SubHash       SubstitutionPolicy = "hash"
)

// SubstitutionPolicies lists the redact_pii_sub values.
func SubstitutionPolicies() []SubstitutionPolicy {
	return []SubstitutionPolicy{SubEntityName, SubHash}
}

// AudioQuality is the file format of redacted audio
// (redact_pii_audio_quality).
type AudioQuality string

// The redact_pii_audio_quality values.
const (
	AudioMP3 AudioQuality = "mp3"
	AudioWAV AudioQuality = "wav"
)

// AudioQualities lists the redact_pii_audio_quality values.
func AudioQualities() []AudioQuality { return []AudioQuality{AudioMP3, AudioWAV} }

// Domain is a specialised vocabulary (domain).
type Domain string

// DomainMedical is the only domain value.
const DomainMedical Domain = "medical-v1"

// Domains lists the domain values.
func Domains() []Domain { return []Domain{DomainMedical} }

// KnownSpeechModels lists the speech_model names of the API.
func KnownSpeechModels() []string {
	return []string{"best", "nano", "slam-1", "universal", "conformer-2"}
}

var (
	localizations    = []string{"en_au", "en_uk"}
	noSpeechPolicies = []string{"error", "fallback"}
)

// Localizations lists the language_detection_options.localization values.
func Localizations() []string { return slices.Clone(localizations) }

// NoSpeechPolicies lists the values of
// language_detection_options.on_no_speech_detected.
func NoSpeechPolicies() []string { return slices.Clone(noSpeechPolicies) }

// Strings converts a list of a typed enum to plain strings.
func Strings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// PIIPolicies lists the 44 PII policies, which are also the entity types.
func PIIPolicies() []string {
	return []string{"account_number", "banking_information", "blood_type", "credit_card_cvv",
		"credit_card_expiration", "credit_card_number", "date", "date_interval", "date_of_birth",
		"drivers_license", "drug", "duration", "email_address", "event", "filename",
		"gender_sexuality", "healthcare_number", "injury", "ip_address", "language", "location",
		"marital_status", "medical_condition", "medical_process", "money_amount", "nationality",
		"number_sequence", "occupation", "organization", "passport_number", "password",
		"person_age", "person_name", "phone_number", "physical_attribute",
		"political_affiliation", "religion", "statistics", "time", "url",
		"us_social_security_number", "username", "vehicle_id", "zodiac_sign"}
}

// LanguageCodes lists the supported transcript language codes.
func LanguageCodes() []string {
	return strings.Fields(`en en_au en_uk en_us es fr de de_ch it pt nl af sq am ar hy as az ba eu be
	bn bs br bg my ca zh hr cs da et fo fi gl ka el gu ht ha haw he hi hu is id ja jw kn kk km ko lo
	la lv ln lt lb mk mg ms ml mt mi mr mn ne no nn oc pa ps fa pl ro ru sa sr sn sd si sk sl so su
	sw sv tl tg ta tt te th bo tr tk uk ur uz vi cy yi yo`)
}
