package openaiapi

import (
	"slices"
	"strings"

	"github.com/earshot-dev/earshot/adapters/openai"
	"github.com/earshot-dev/earshot/transcribe"
)

// languageName returns the whisper name of a language code, as OpenAI's
// verbose_json reports it (openai.LanguageName: the adapter for OpenAI's
// API keeps whisper's table).
func languageName(code string) string { return openai.LanguageName(code) }

// languageCode maps the request's language to a transcribe language code:
// an ISO 639-1 code as OpenAI documents ("en"), a regional code the
// Service knows ("en-US", "en_us"), or a whisper language name
// ("english"). ok is false for anything else.
func languageCode(s string) (code string, ok bool) {
	s = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
	known := transcribe.LanguageCodes()
	if slices.Contains(known, s) {
		return s, true
	}
	if strings.HasSuffix(s, "_") { // "en-": a region left empty
		return "", false
	}
	// A whisper name, an alias ("iw", "nb"), or a regional code whose
	// base the Service knows.
	if c := openai.LanguageCode(s); c != "" && slices.Contains(known, c) {
		return c, true
	}
	return "", false
}
