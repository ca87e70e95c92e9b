package openai

import "strings"

// whisperLanguages are the languages of multilingual whisper models with the
// names whisper gives them: OpenAI's verbose_json and whisper.cpp's server
// report "language" as the name ("english"), other servers as the code.
// The codes are whisper's (they match transcribe.LanguageCodes, which also
// uses "jw" for Javanese), in whisper's order.
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

// languageAliases are the other names openai-whisper's tokenizer accepts
// (TO_LANGUAGE_CODE), and ISO codes some servers use instead of whisper's.
var languageAliases = map[string]string{
	"burmese": "my", "valencian": "ca", "flemish": "nl", "haitian": "ht", "letzeburgesch": "lb",
	"pushto": "ps", "panjabi": "pa", "moldavian": "ro", "moldovan": "ro", "sinhalese": "si",
	"castilian": "es", "mandarin": "zh", "jv": "jw", "iw": "he", "nb": "no",
}

// WhisperLanguages returns the codes of the languages multilingual whisper
// models transcribe, the default of Config.Languages.
func WhisperLanguages() []string {
	out := make([]string, len(whisperLanguages))
	for i, l := range whisperLanguages {
		out[i] = l[0]
	}
	return out
}

// LanguageCode maps what an engine reports as the language — a code
// ("en", "EN", "en-US", "en_us") or a whisper language name ("english",
// "Haitian Creole") — to a whisper language code. It returns "" for
// anything else ("unknown", "", "auto").
func LanguageCode(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return ""
	}
	if c, ok := languageAliases[s]; ok {
		return c
	}
	for _, l := range whisperLanguages {
		if s == l[0] || s == l[1] {
			return l[0]
		}
	}
	// A regional code: "en-us", "en_uk", "zh-hans".
	if i := strings.IndexAny(s, "-_"); i > 0 {
		return LanguageCode(s[:i])
	}
	return ""
}

// LanguageName returns the whisper name of a language code ("en" and
// "en_us" give "english"), as OpenAI's verbose_json reports it; a code
// whisper does not know is returned as it is, and "" stays "".
func LanguageName(code string) string {
	base, _, _ := strings.Cut(strings.ToLower(code), "_")
	for _, l := range whisperLanguages {
		if l[0] == base {
			return l[1]
		}
	}
	return code
}
