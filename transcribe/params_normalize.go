package transcribe

import (
	"fmt"
	"strings"
	"unicode"
)

// Normalize fills in the effective value of every parameter with a default,
// so that the stored transcript echoes what was applied: multichannel is
// false unless sent, and language_detection_options carries its documented
// defaults whenever language detection is on (it stays null when detection
// is off and nothing was sent). Call it after Validate. word_boost terms
// are rewritten to spoken form: punctuation other than apostrophes
// removed, dotted acronyms written without dots or spaces ("U.S.A." is
// "USA"), special characters folded to ASCII.
func (p *TranscriptParams) Normalize() {
	def := func(b **bool, v bool) {
		if *b == nil {
			*b = boolp(v)
		}
	}
	def(&p.Punctuate, true)
	def(&p.FormatText, true)
	for _, b := range []**bool{&p.Disfluencies, &p.FilterProfanity, &p.SpeakerLabels, &p.AutoHighlights,
		&p.ContentSafety, &p.IABCategories, &p.EntityDetection, &p.SentimentAnalysis, &p.AutoChapters,
		&p.Summarization, &p.CustomTopics, &p.RedactPII, &p.RedactPIIAudio, &p.SpeedBoost} {
		def(b, false)
	}
	if p.LanguageDetection == nil {
		p.LanguageDetection = boolp(p.LanguageCode == nil)
	}
	if p.WordBoost == nil {
		p.WordBoost = []string{}
	}
	p.WordBoost = dedupe(p.WordBoost, spokenForm)
	p.KeytermsPrompt = dedupe(p.KeytermsPrompt, func(s string) string { return strings.Join(strings.Fields(s), " ") })
	if len(p.WordBoost) > 0 && p.BoostParam == nil {
		b := BoostDefault
		p.BoostParam = &b
	}
	if p.Topics == nil {
		p.Topics = []string{}
	}
	if !isTrue(p.ContentSafety) {
		p.ContentSafetyConfidence = nil
	}
	if isTrue(p.ContentSafety) && p.ContentSafetyConfidence == nil {
		v := int64(DefaultContentSafetyConf)
		p.ContentSafetyConfidence = &v
	}
	if isTrue(p.RedactPII) && p.RedactPIISub == nil {
		v := SubHash
		p.RedactPIISub = &v
	}
	if isTrue(p.RedactPIIAudio) && p.RedactPIIAudioQuality == nil {
		v := AudioMP3
		p.RedactPIIAudioQuality = &v
	}
	if isTrue(p.Summarization) {
		if p.SummaryType == nil {
			v := SummaryBullets
			p.SummaryType = &v
		}
		if p.SummaryModel == nil {
			v := SummaryInformative
			p.SummaryModel = &v
		}
	}
	def(&p.Multichannel, false)
	if isTrue(p.LanguageDetection) {
		p.LanguageDetectionOptions = p.LanguageDetectionOptions.withDefaults()
	}
}

// Defaults of language_detection_options (the spec's table).
const (
	DefaultFallbackLanguage                 = "auto"
	DefaultCodeSwitchingConfidenceThreshold = 0.3
	DefaultOnNoSpeechDetected               = "error"
)

// withDefaults returns a copy of o (nil: none sent) with every documented
// default filled in: fallback_language auto, code_switching false,
// code_switching_confidence_threshold 0.3, on_no_speech_detected error.
// expected_languages (default: all) and localization (default: none)
// stay absent when not sent.
func (o *LanguageDetectionOptions) withDefaults() *LanguageDetectionOptions {
	var c LanguageDetectionOptions
	if o != nil {
		c = *o
	}
	if c.FallbackLanguage == nil {
		c.FallbackLanguage = strp(DefaultFallbackLanguage)
	}
	if c.CodeSwitching == nil {
		c.CodeSwitching = boolp(false)
	}
	if c.CodeSwitchingConfidenceThreshold == nil {
		v := DefaultCodeSwitchingConfidenceThreshold
		c.CodeSwitchingConfidenceThreshold = &v
	}
	if c.OnNoSpeechDetected == nil {
		c.OnNoSpeechDetected = strp(DefaultOnNoSpeechDetected)
	}
	return &c
}

// dedupe maps terms through norm and drops repeats (case-insensitively),
// keeping the first spelling. A nil slice stays nil.
func dedupe(terms []string, norm func(string) string) []string {
	if terms == nil {
		return nil
	}
	out := terms[:0:0]
	seen := map[string]bool{}
	for _, t := range terms {
		t = norm(t)
		k := strings.ToLower(t)
		if t == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	return out
}

// Warnings returns the warnings the request earns without being an error,
// such as a domain that the language does not support.
func (p *TranscriptParams) Warnings() []Warning {
	var ws []Warning
	if p.Domain != nil && p.LanguageCode != nil {
		base := strings.SplitN(*p.LanguageCode, "_", 2)[0]
		if !contains(domainLanguages, base) {
			ws = append(ws, Warning{Message: fmt.Sprintf("domain %q is not supported for language %q and was ignored", *p.Domain, *p.LanguageCode)})
		}
	}
	return ws
}

// spokenForm rewrites a boost term the way the spec describes: punctuation
// other than apostrophes removed, acronyms written without spaces (a run
// of two or more single letters each followed by a period, "U.S.A." or
// "U. S. A.", becomes "USA"), accented letters folded to ASCII, runs of
// spaces collapsed.
func spokenForm(term string) string {
	var b strings.Builder
	for _, r := range joinAcronyms(term) {
		if r > unicode.MaxASCII {
			if f, ok := asciiFold[r]; ok {
				b.WriteString(f)
				continue
			}
		}
		switch {
		case r == '\'' || r == '’':
			b.WriteByte('\'')
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// joinAcronyms writes dotted acronyms ("U.S.A.", "U. S. A", "e.g.")
// without their dots and spaces. A letter counts only when it stands
// alone (no letter or digit next to it), so "A. Smith" and "node.js" are
// left for spokenForm's ordinary rules.
func joinAcronyms(s string) string {
	rs := []rune(s)
	n := len(rs)
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	single := func(i int) bool { // a letter with no letter or digit on either side
		return i < n && unicode.IsLetter(rs[i]) && (i == 0 || !word(rs[i-1])) && (i+1 == n || !word(rs[i+1]))
	}
	var b strings.Builder
	for i := 0; i < n; {
		if !single(i) || i+1 >= n || rs[i+1] != '.' {
			b.WriteRune(rs[i])
			i++
			continue
		}
		letters := []rune{rs[i]}
		end := i + 2 // past "X."
		for {
			k := end
			for k < n && unicode.IsSpace(rs[k]) {
				k++
			}
			if !single(k) {
				break
			}
			letters = append(letters, rs[k])
			end = k + 1
			if end < n && rs[end] == '.' {
				end++
				continue
			}
			break // a last letter without its period ("U.S.A")
		}
		if len(letters) < 2 {
			b.WriteRune(rs[i])
			i++
			continue
		}
		b.WriteString(string(letters))
		i = end
	}
	return b.String()
}

var asciiFold = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'æ': "ae", 'ç': "c",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i",
	'ñ': "n", 'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ù': "u",
	'ú': "u", 'û': "u", 'ü': "u", 'ý': "y", 'ÿ': "y", 'ß': "ss", 'œ': "oe",
	'À': "A", 'Á': "A", 'Â': "A", 'Ã': "A", 'Ä': "A", 'Å': "A", 'Æ': "AE", 'Ç': "C",
	'È': "E", 'É': "E", 'Ê': "E", 'Ë': "E", 'Ì': "I", 'Í': "I", 'Î': "I", 'Ï': "I",
	'Ñ': "N", 'Ò': "O", 'Ó': "O", 'Ô': "O", 'Õ': "O", 'Ö': "O", 'Ø': "O", 'Ù': "U",
	'Ú': "U", 'Û': "U", 'Ü': "U", 'Ý': "Y",
}
