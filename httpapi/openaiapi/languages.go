package openaiapi

import (
	"slices"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

// whisperLanguages are the codes and names of openai-whisper's
// whisper/tokenizer.py LANGUAGES, in its order: OpenAI's verbose_json
// reports "language" as the name ("english"). (adapters/openai keeps the
// same table unexported, for the reverse direction.)
var whisperLanguages = [...][2]string{
	{"en", "english"}, {"zh", "chinese"}, {"de", "german"}, {"es", "spanish"}, {"ru", "russian"},
	{"ko", "korean"}, {"fr", "french"}, {"ja", "japanese"}, {"pt", "portuguese"}, {"tr", "turkish"},
	{"pl", "polish"}, {"ca", "catalan"}, {"nl", "dutch"}, {"ar", "arabic"}, {"sv", "swedish"},
	{"it", "italian"}, {"id", "indonesian"}, {"hi", "hindi"}, {"fi", "finnish"}, {"vi", "vietnamese"},
	{"he", "hebrew"}, {"uk", "ukrainian"}, {"el", "greek"}, {"ms", "malay"}, {"cs", "czech"},
	{"ro", "romanian"}, {"da", "danish"}, {"hu", "hungarian"}, {"ta", "tamil"}, {"no", "norwegian"},
	{"th", "thai"}, {"ur", "urdu"}, {"hr", "croatian"}, {"bg", "bulgarian"}, {"lt", "lithuanian"},
	{"la", "latin"}, {"mi", "maori"}, {"ml", "malayalam"}, {"cy", "welsh"}, {"sk", "slovak"},
	{"te", "telugu"}, {"fa", "persian"}, {"lv", "latvian"}, {"bn", "bengali"}, {"sr", "serbian"},
	{"az", "azerbaijani"}, {"sl", "slovenian"}, {"kn", "kannada"}, {"et", "estonian"}, {"mk", "macedonian"},
	{"br", "breton"}, {"eu", "basque"}, {"is", "icelandic"}, {"hy", "armenian"}, {"ne", "nepali"},
	{"mn", "mongolian"}, {"bs", "bosnian"}, {"kk", "kazakh"}, {"sq", "albanian"}, {"sw", "swahili"},
	{"gl", "galician"}, {"mr", "marathi"}, {"pa", "punjabi"}, {"si", "sinhala"}, {"km", "khmer"},
	{"sn", "shona"}, {"yo", "yoruba"}, {"so", "somali"}, {"af", "afrikaans"}, {"oc", "occitan"},
	{"ka", "georgian"}, {"be", "belarusian"}, {"tg", "tajik"}, {"sd", "sindhi"}, {"gu", "gujarati"},
	{"am", "amharic"}, {"yi", "yiddish"}, {"lo", "lao"}, {"uz", "uzbek"}, {"fo", "faroese"},
	{"ht", "haitian creole"}, {"ps", "pashto"}, {"tk", "turkmen"}, {"nn", "nynorsk"}, {"mt", "maltese"},
	{"sa", "sanskrit"}, {"lb", "luxembourgish"}, {"my", "myanmar"}, {"bo", "tibetan"}, {"tl", "tagalog"},
	{"mg", "malagasy"}, {"as", "assamese"}, {"tt", "tatar"}, {"haw", "hawaiian"}, {"ln", "lingala"},
	{"ha", "hausa"}, {"ba", "bashkir"}, {"jw", "javanese"}, {"su", "sundanese"}, {"yue", "cantonese"},
}

// languageAliases are ISO 639-1 codes that whisper spells otherwise.
var languageAliases = map[string]string{"jv": "jw", "iw": "he", "nb": "no"}

// languageName returns the whisper name of a language code ("en" and
// "en_us" give "english"); a code whisper does not know is returned as it
// is, and "" stays "".
func languageName(code string) string {
	base, _, _ := strings.Cut(strings.ToLower(code), "_")
	for _, l := range whisperLanguages {
		if l[0] == base {
			return l[1]
		}
	}
	return code
}

// languageCode maps the request's language to a transcribe language code:
// an ISO 639-1 code as OpenAI documents ("en"), a regional code the
// Service knows ("en-US", "en_us"), or a whisper language name
// ("english"). ok is false for anything else.
func languageCode(s string) (code string, ok bool) {
	s = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
	if c, found := languageAliases[s]; found {
		s = c
	}
	known := transcribe.LanguageCodes()
	if slices.Contains(known, s) {
		return s, true
	}
	for _, l := range whisperLanguages {
		if s == l[1] && slices.Contains(known, l[0]) {
			return l[0], true
		}
	}
	if base, region, found := strings.Cut(s, "_"); found && region != "" && slices.Contains(known, base) {
		return base, true
	}
	return "", false
}
