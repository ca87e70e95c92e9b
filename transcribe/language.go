package transcribe

import (
	"fmt"
	"slices"
	"strings"
)

// applyLanguage sets language_code and language_confidence from what the
// engine heard, following the spec's language_detection rules:
//
//   - with language_detection, language_code becomes the language the
//     engine detected (or, for an engine that does not detect, the first
//     language it transcribes), and language_confidence the engine's
//     confidence when it gives one (null otherwise);
//   - a detected language outside expected_languages is replaced by
//     fallback_language, or by the first expected language when the
//     fallback is "auto";
//   - a localization with the detected base language makes the code
//     region-aware ("en" with localization en_uk becomes en_uk);
//   - a confidence below language_confidence_threshold fails the
//     transcript; a threshold above 0 is never passed silently: when the
//     engine detected the language but gave no confidence for it (an
//     OpenAI-compatible server without language probabilities, or
//     whisper.cpp before it sent language_probabilities), the transcript
//     fails with a reason naming the missing confidence (an engine that
//     does not detect at all is refused at submission, engines.choose);
//   - no words at all follow on_no_speech_detected (noSpeech).
func applyLanguage(t *Transcript, r *Recognition, feat RecognizerFeatures) error {
	if !isTrue(t.LanguageDetection) {
		return nil
	}
	if len(t.Words) == 0 {
		return noSpeech(t, "no spoken audio was detected, so the language could not be detected")
	}
	code, conf := "", -1.0
	if r != nil && r.Language != "" {
		code = r.Language
		if feat.LanguageDetection && r.LanguageConfidence > 0 {
			conf = r.LanguageConfidence
		}
	}
	if code == "" {
		code = "en"
		if len(feat.Languages) > 0 {
			code = feat.Languages[0]
		}
	}
	if th := t.LanguageConfidenceThreshold; th != nil && *th > 0 && conf < 0 {
		return &MediaError{Reason: missingConfidence(*th, code, r, feat)}
	}
	if o := t.LanguageDetectionOptions; o != nil && len(o.ExpectedLanguages) > 0 && !supports(o.ExpectedLanguages, code) {
		fb := o.ExpectedLanguages[0]
		if o.FallbackLanguage != nil && *o.FallbackLanguage != "auto" {
			fb = *o.FallbackLanguage
		}
		warn(t, fmt.Sprintf("detected language %q is not among expected_languages; language_code set to %q", code, fb))
		code, conf = fb, -1
	}
	if o := t.LanguageDetectionOptions; o != nil {
		for _, l := range o.Localization {
			if base, _, _ := strings.Cut(l, "_"); base == code {
				code = l
			}
		}
	}
	if th := t.LanguageConfidenceThreshold; th != nil && conf >= 0 && conf < *th {
		return &MediaError{Reason: fmt.Sprintf("the detected language %s has confidence %.2f, below language_confidence_threshold %.2f", code, conf, *th)}
	}
	t.LanguageCode = &code
	if conf >= 0 {
		t.LanguageConfidence = &conf
	}
	return nil
}

// missingConfidence says why language_confidence_threshold th cannot be
// applied to the language code the engine reported without a confidence.
func missingConfidence(th float64, code string, r *Recognition, feat RecognizerFeatures) string {
	engine := "the speech engine"
	if r != nil && r.Model != "" {
		engine += " " + r.Model
	}
	if !feat.LanguageDetection {
		return fmt.Sprintf("language_confidence_threshold %.2f cannot be applied: %s does not detect languages (it transcribes %s), so it gives no language confidence", th, engine, strings.Join(feat.Languages, ", "))
	}
	return fmt.Sprintf("language_confidence_threshold %.2f cannot be applied: %s reported the language %s without a confidence (its answers carry no language probabilities); leave the threshold out or use an engine that reports one", th, engine, code)
}

// noSpeech applies on_no_speech_detected to a transcript with no speech:
// "fallback" completes it with empty text, language_code the fallback
// language and a warning; otherwise (the default "error") it fails with
// reason.
func noSpeech(t *Transcript, reason string) error {
	o := t.LanguageDetectionOptions
	if isTrue(t.LanguageDetection) && o != nil && o.OnNoSpeechDetected != nil && *o.OnNoSpeechDetected == "fallback" && o.FallbackLanguage != nil {
		fb := *o.FallbackLanguage
		t.LanguageCode = &fb
		warn(t, "no speech detected; language_code set to the fallback language")
		return nil
	}
	return &MediaError{Reason: reason}
}

// warn adds a warning to metadata.warnings (once).
func warn(t *Transcript, msg string) {
	if t.Metadata == nil {
		t.Metadata = &Metadata{}
	}
	if !slices.ContainsFunc(t.Metadata.Warnings, func(w Warning) bool { return w.Message == msg }) {
		t.Metadata.Warnings = append(t.Metadata.Warnings, Warning{Message: msg})
	}
}
