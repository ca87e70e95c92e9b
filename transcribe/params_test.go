package transcribe

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("w ", n)) }
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "term" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
		}
		return out
	}
	cases := []struct {
		name  string
		json  string
		field string // "" = valid
	}{
		{"minimal", `{}`, ""},
		{"no url", `{"audio_url":""}`, "audio_url"},
		{"bad scheme", `{"audio_url":"ftp://x/y"}`, "audio_url"},
		{"no host", `{"audio_url":"http:///x"}`, "audio_url"},
		{"negative start", `{"audio_start_from":-1}`, "audio_start_from"},
		{"end before start", `{"audio_start_from":5000,"audio_end_at":4000}`, "audio_end_at"},
		{"range ok", `{"audio_start_from":1000,"audio_end_at":4000}`, ""},
		{"chapters need punctuate", `{"auto_chapters":true,"punctuate":false}`, "auto_chapters"},
		{"chapters vs summary", `{"auto_chapters":true,"summarization":true}`, "auto_chapters"},
		{"chapters model", `{"auto_chapters":true,"speech_model":"nano"}`, "auto_chapters"},
		{"chapters ok", `{"auto_chapters":true}`, ""},
		{"safety conf low", `{"content_safety":true,"content_safety_confidence":24}`, "content_safety_confidence"},
		{"safety conf high", `{"content_safety":true,"content_safety_confidence":101}`, "content_safety_confidence"},
		{"safety conf ignored when off", `{"content_safety_confidence":101}`, ""},
		{"safety conf ok", `{"content_safety":true,"content_safety_confidence":25}`, ""},
		{"spelling from words", `{"custom_spelling":[{"from":["a b c d e f"],"to":"x"}]}`, "custom_spelling[0].from"},
		{"spelling empty from", `{"custom_spelling":[{"from":[],"to":"x"}]}`, "custom_spelling[0].from"},
		{"spelling to two words", `{"custom_spelling":[{"from":["a"],"to":"x y"}]}`, "custom_spelling[0].to"},
		{"spelling ok", `{"custom_spelling":[{"from":["a b c d e"],"to":"ABCDE"}]}`, ""},
		{"domain", `{"domain":"legal"}`, "domain"},
		{"domain ok", `{"domain":"medical-v1"}`, ""},
		{"boost param", `{"word_boost":["x"],"boost_param":"max"}`, "boost_param"},
		{"boost term words", `{"word_boost":["` + words(7) + `"]}`, "word_boost"},
		{"boost empty term", `{"word_boost":[" "]}`, "word_boost"},
		{"keyterm words", `{"keyterms_prompt":["` + words(7) + `"]}`, "keyterms_prompt"},
		{"prompt needs pro", `{"prompt":"hello"}`, "prompt"},
		{"prompt ok", `{"prompt":"hello","speech_model":"slam-1"}`, ""},
		{"prompt too long", `{"prompt":"` + words(1501) + `","speech_model":"slam-1"}`, "prompt"},
		{"language code", `{"language_code":"xx"}`, "language_code"},
		{"language code vs detection", `{"language_code":"en","language_detection":true}`, "language_code"},
		{"detection false alone", `{"language_detection":false}`, "language_detection"},
		{"detection false with code", `{"language_detection":false,"language_code":"de"}`, ""},
		{"codes need en", `{"language_codes":["es","fr"]}`, "language_codes"},
		{"codes ok", `{"language_codes":["es","en"]}`, ""},
		{"threshold range", `{"language_confidence_threshold":1.5}`, "language_confidence_threshold"},
		{"threshold needs detection", `{"language_code":"en","language_confidence_threshold":0.5}`, "language_confidence_threshold"},
		{"threshold ok", `{"language_confidence_threshold":0.5}`, ""},
		{"localization base", `{"language_detection_options":{"localization":["en"]}}`, "language_detection_options.localization"},
		{"localization en_us", `{"language_detection_options":{"localization":["en_us"]}}`, "language_detection_options.localization"},
		{"localization two en", `{"language_detection_options":{"localization":["en_au","en_uk"]}}`, "language_detection_options.localization"},
		{"localization ok", `{"language_detection_options":{"localization":["en_au"]}}`, ""},
		{"no speech auto", `{"language_detection_options":{"on_no_speech_detected":"fallback"}}`, "language_detection_options.on_no_speech_detected"},
		{"no speech auto explicit", `{"language_detection_options":{"on_no_speech_detected":"fallback","fallback_language":"auto"}}`, "language_detection_options.on_no_speech_detected"},
		{"no speech ok", `{"language_detection_options":{"on_no_speech_detected":"fallback","fallback_language":"en"}}`, ""},
		{"no speech enum", `{"language_detection_options":{"on_no_speech_detected":"ignore"}}`, "language_detection_options.on_no_speech_detected"},
		{"cs threshold", `{"language_detection_options":{"code_switching_confidence_threshold":2}}`, "language_detection_options.code_switching_confidence_threshold"},
		{"expected langs", `{"language_detection_options":{"expected_languages":["klingon"]}}`, "language_detection_options.expected_languages"},
		{"speakers vs dual", `{"speaker_labels":true,"dual_channel":true}`, "speaker_labels"},
		{"speakers expected", `{"speakers_expected":0}`, "speakers_expected"},
		{"speaker options order", `{"speaker_options":{"min_speakers_expected":3,"max_speakers_expected":2}}`, "speaker_options"},
		{"redact needs format", `{"redact_pii":true,"format_text":false,"redact_pii_policies":["person_name"]}`, "redact_pii"},
		{"redact audio needs redact", `{"redact_pii_audio":true}`, "redact_pii_audio"},
		{"redact needs policies", `{"redact_pii":true}`, "redact_pii_policies"},
		{"redact unknown policy", `{"redact_pii":true,"redact_pii_policies":["shoe_size"]}`, "redact_pii_policies"},
		{"redact sub", `{"redact_pii":true,"redact_pii_policies":["person_name"],"redact_pii_sub":"stars"}`, "redact_pii_sub"},
		{"redact quality", `{"redact_pii":true,"redact_pii_audio":true,"redact_pii_policies":["person_name"],"redact_pii_audio_quality":"ogg"}`, "redact_pii_audio_quality"},
		{"redact ok", `{"redact_pii":true,"redact_pii_audio":true,"redact_pii_policies":["person_name","phone_number"],"redact_pii_sub":"entity_name"}`, ""},
		{"speech model", `{"speech_model":""}`, "speech_model"},
		{"summary type", `{"summarization":true,"summary_type":"poem"}`, "summary_type"},
		{"summary model", `{"summarization":true,"summary_model":"smart"}`, "summary_model"},
		{"webhook url", `{"webhook_url":"not a url"}`, "webhook_url"},
		{"webhook header half", `{"webhook_url":"https://h/x","webhook_auth_header_name":"X-A"}`, "webhook_auth_header_name"},
		{"webhook header name", `{"webhook_url":"https://h/x","webhook_auth_header_name":"X A","webhook_auth_header_value":"v"}`, "webhook_auth_header_name"},
		{"webhook header crlf", `{"webhook_url":"https://h/x","webhook_auth_header_name":"X-A","webhook_auth_header_value":"v\r\nX: y"}`, "webhook_auth_header_value"},
		{"webhook space", `{"webhook_url":"https://h/x y"}`, "webhook_url"},
		{"webhook header ctl", `{"webhook_url":"https://h/x","webhook_auth_header_name":"X-A","webhook_auth_header_value":"v\u0001"}`, "webhook_auth_header_value"},
		{"audio url space", `{"audio_url":"https://h/a b.wav"}`, "audio_url"},
		{"webhook ok", `{"webhook_url":"https://h/x?a=1","webhook_auth_header_name":"X-A","webhook_auth_header_value":"v"}`, ""},
		{"speech threshold", `{"speech_threshold":2}`, "speech_threshold"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p TranscriptParams
			js := c.json
			if !strings.Contains(js, `"audio_url"`) {
				js = `{"audio_url":"https://example.com/a.wav",` + strings.TrimPrefix(js, "{")
				js = strings.Replace(js, ",}", "}", 1)
			}
			if err := json.Unmarshal([]byte(js), &p); err != nil {
				t.Fatalf("unmarshal %s: %v", js, err)
			}
			err := p.Validate()
			if c.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("want *ParamError for %s, got %v", c.field, err)
			}
			if pe.Field != c.field {
				t.Fatalf("field = %q, want %q (%v)", pe.Field, c.field, err)
			}
		})
	}
	// Term limits.
	p := TranscriptParams{AudioURL: "https://x/a", WordBoost: many(1001)}
	if err := p.Validate(); err == nil {
		t.Error("1001 word_boost terms accepted")
	}
	p = TranscriptParams{AudioURL: "https://x/a", WordBoost: many(1000)}
	if err := p.Validate(); err != nil {
		t.Errorf("1000 word_boost terms refused: %v", err)
	}
	p = TranscriptParams{AudioURL: "https://x/a", KeytermsPrompt: many(201)}
	if err := p.Validate(); err == nil {
		t.Error("201 keyterms accepted for universal-2")
	}
	p.SpeechModel = Ptr("slam-1")
	if err := p.Validate(); err != nil {
		t.Errorf("201 keyterms refused for pro model: %v", err)
	}
	p.KeytermsPrompt = many(1001)
	if err := p.Validate(); err == nil {
		t.Error("1001 keyterms accepted for pro model")
	}
}

func TestNormalizeDefaults(t *testing.T) {
	p := TranscriptParams{AudioURL: "https://x/a", WordBoost: []string{"Café-au-lait!", "O'Neil"}}
	p.Normalize()
	if !*p.Punctuate || !*p.FormatText || *p.Disfluencies || *p.SpeakerLabels || *p.RedactPII {
		t.Errorf("bad defaults: %+v", p)
	}
	if !*p.LanguageDetection {
		t.Error("language_detection should default to true without language_code")
	}
	if *p.BoostParam != "default" {
		t.Errorf("boost_param = %v", *p.BoostParam)
	}
	if p.WordBoost[0] != "Cafe au lait" || p.WordBoost[1] != "O'Neil" {
		t.Errorf("word_boost spoken form = %q", p.WordBoost)
	}
	q := TranscriptParams{AudioURL: "https://x/a", LanguageCode: Ptr("de")}
	q.Normalize()
	if *q.LanguageDetection || q.BoostParam != nil || len(q.WordBoost) != 0 || q.WordBoost == nil {
		t.Errorf("bad normalize with language code: %+v", q)
	}
	r := TranscriptParams{AudioURL: "https://x/a", RedactPII: Ptr(true), RedactPIIAudio: Ptr(true), Summarization: Ptr(true)}
	r.Normalize()
	if *r.RedactPIISub != "hash" || *r.RedactPIIAudioQuality != "mp3" || *r.SummaryType != "bullets" || *r.SummaryModel != "informative" {
		t.Errorf("bad redaction/summary defaults")
	}
}

func TestWrongJSONTypes(t *testing.T) {
	for _, js := range []string{`{"punctuate":"yes"}`, `{"audio_start_from":1.5}`, `{"word_boost":"x"}`, `{"speaker_options":[]}`} {
		var p TranscriptParams
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(js), &p); !errors.As(err, &te) {
			t.Errorf("%s: want type error, got %v", js, err)
		}
	}
}

func TestDomainWarning(t *testing.T) {
	p := TranscriptParams{AudioURL: "https://x/a", Domain: Ptr(DomainMedical), LanguageCode: Ptr("ja")}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if w := p.Warnings(); len(w) != 1 {
		t.Fatalf("want one warning, got %v", w)
	}
	p.LanguageCode = Ptr("es")
	if w := p.Warnings(); len(w) != 0 {
		t.Fatalf("want no warning, got %v", w)
	}
}

func FuzzParams(f *testing.F) {
	f.Add([]byte(`{"audio_url":"https://x/a","speaker_labels":true}`))
	f.Add([]byte(`{"audio_url":"http://h","custom_spelling":[{"from":["a"],"to":"b"}],"word_boost":["x y"]}`))
	f.Add([]byte(`{"audio_url":"http://h","language_detection_options":{"localization":["en_au"],"on_no_speech_detected":"fallback","fallback_language":"en"}}`))
	f.Add([]byte(`{"audio_url":"http://h","redact_pii":true,"redact_pii_policies":["person_name"],"speaker_options":{"min_speakers_expected":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p TranscriptParams
		if json.Unmarshal(b, &p) != nil {
			return
		}
		err := p.Validate()
		if err != nil {
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Error() == "" {
				t.Fatalf("Validate returned %T %v", err, err)
			}
			return
		}
		p.Normalize()
		if p.Punctuate == nil || p.FormatText == nil || p.LanguageDetection == nil {
			t.Fatal("Normalize left defaults unset")
		}
		if _, err := json.Marshal(&Transcript{TranscriptParams: p}); err != nil {
			t.Fatalf("marshal: %v", err)
		}
	})
}

func TestCipher(t *testing.T) {
	c, err := NewCipher(NewKey())
	if err != nil {
		t.Fatal(err)
	}
	s := c.Seal("id1", []byte("secret words"))
	if strings.Contains(string(s), "secret") {
		t.Fatal("plaintext visible")
	}
	if p, err := c.Open("id1", s); err != nil || string(p) != "secret words" {
		t.Fatalf("open: %q %v", p, err)
	}
	if _, err := c.Open("id2", s); err == nil {
		t.Fatal("sealed data opened under another id")
	}
	if _, err := NewCipher([]byte("short")); err == nil {
		t.Fatal("short key accepted")
	}
}

// TestCustomSpellingRefusesInvisibleAndControl: custom_spelling.to is a
// single printable word; NUL, control and bidi-override characters would
// otherwise reach the text and the captions.
func TestCustomSpellingRefusesInvisibleAndControl(t *testing.T) {
	for _, to := range []string{"Ear\x00shot", "a\x1bb", "evil\u202Egnp", "zero\u200Bwidth", "bad\xffutf8", "tab\tbed"} {
		p := TranscriptParams{AudioURL: "https://x/a.wav", CustomSpelling: []CustomSpelling{{From: []string{"earshot"}, To: to}}}
		var pe *ParamError
		if err := p.Validate(); !errors.As(err, &pe) || pe.Field != "custom_spelling[0].to" {
			t.Errorf("to %q: %v", to, err)
		}
	}
	p := TranscriptParams{AudioURL: "https://x/a.wav", CustomSpelling: []CustomSpelling{{From: []string{"ear\u202Eshot"}, To: "Earshot"}}}
	if err := p.Validate(); err == nil {
		t.Error("a bidi override in custom_spelling.from was accepted")
	}
	ok := TranscriptParams{AudioURL: "https://x/a.wav", CustomSpelling: []CustomSpelling{{From: []string{"gastro"}, To: "Gastroenterología"}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("a printable accented word was refused: %v", err)
	}
}

// TestContentSafetyConfidenceIgnoredWhenOff: out of range is refused only
// when content_safety is on; otherwise it is ignored (and not echoed).
func TestContentSafetyConfidenceIgnoredWhenOff(t *testing.T) {
	off := TranscriptParams{AudioURL: "https://x/a.wav", ContentSafetyConfidence: Ptr(int64(5))}
	if err := off.Validate(); err != nil {
		t.Fatalf("content_safety off: %v", err)
	}
	off.Normalize()
	if off.ContentSafetyConfidence != nil {
		t.Errorf("ignored confidence kept: %d", *off.ContentSafetyConfidence)
	}
	on := TranscriptParams{AudioURL: "https://x/a.wav", ContentSafety: Ptr(true), ContentSafetyConfidence: Ptr(int64(5))}
	var pe *ParamError
	if err := on.Validate(); !errors.As(err, &pe) || pe.Field != "content_safety_confidence" {
		t.Errorf("content_safety on: %v", err)
	}
}

// TestNormalizeEchoesEffectiveDefaults: multichannel is false unless sent,
// and language_detection_options carries its documented defaults whenever
// detection is on (keeping what was sent); with detection off and nothing
// sent it stays null.
func TestNormalizeEchoesEffectiveDefaults(t *testing.T) {
	p := TranscriptParams{AudioURL: "https://x/a"}
	p.Normalize()
	if p.Multichannel == nil || *p.Multichannel {
		t.Errorf("multichannel = %v, want false", p.Multichannel)
	}
	b, _ := json.Marshal(p.LanguageDetectionOptions)
	if want := `{"fallback_language":"auto","code_switching":false,"code_switching_confidence_threshold":0.3,"on_no_speech_detected":"error"}`; string(b) != want {
		t.Errorf("language_detection_options = %s, want %s", b, want)
	}
	q := TranscriptParams{AudioURL: "https://x/a", LanguageDetectionOptions: &LanguageDetectionOptions{
		ExpectedLanguages: []string{"en", "de"}, FallbackLanguage: Ptr("de"), OnNoSpeechDetected: Ptr("fallback")}}
	q.Normalize()
	b, _ = json.Marshal(q.LanguageDetectionOptions)
	if want := `{"expected_languages":["en","de"],"fallback_language":"de","code_switching":false,"code_switching_confidence_threshold":0.3,"on_no_speech_detected":"fallback"}`; string(b) != want {
		t.Errorf("language_detection_options = %s, want %s", b, want)
	}
	r := TranscriptParams{AudioURL: "https://x/a", LanguageCode: Ptr("en"), Multichannel: Ptr(true)}
	r.Normalize()
	if r.LanguageDetectionOptions != nil || !*r.Multichannel {
		t.Errorf("detection off: options %+v, multichannel %v", r.LanguageDetectionOptions, *r.Multichannel)
	}
}

// TestSpokenFormAcronyms: dotted acronyms are written without dots or
// spaces (the spec: "acronyms without spaces"); lone initials and dotted
// words keep the ordinary rules.
func TestSpokenFormAcronyms(t *testing.T) {
	for in, want := range map[string]string{
		"U.S.A.":           "USA",
		"U.S.A":            "USA",
		"U. S. A.":         "USA",
		"the U.S. Army":    "the US Army",
		"e.g.":             "eg",
		"F.B.I. agent's":   "FBI agent's",
		"A. Smith":         "A Smith",
		"node.js":          "node js",
		"Ph.D.":            "Ph D",
		"U.S.A.-based":     "USA based",
		"I.B.M.,Intel":     "IBM Intel",
		"Ü.S.":             "US",
		"USA":              "USA",
		"x.":               "x",
		".":                "",
		"J. R. R. Tolkien": "JRR Tolkien",
	} {
		if got := spokenForm(in); got != want {
			t.Errorf("spokenForm(%q) = %q, want %q", in, got, want)
		}
	}
	p := TranscriptParams{AudioURL: "https://x/a", WordBoost: []string{"U.S.A.", "USA", "U S A"}}
	p.Normalize()
	if len(p.WordBoost) != 2 || p.WordBoost[0] != "USA" || p.WordBoost[1] != "U S A" {
		t.Errorf("word_boost = %q, want [USA, U S A] (a repeat of USA dropped)", p.WordBoost)
	}
}

func FuzzSpokenForm(f *testing.F) {
	for _, s := range []string{"U.S.A.", "a. b", "Ph.D.", "é.ü.", "x..y.z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := spokenForm(s)
		if out != strings.Join(strings.Fields(out), " ") {
			t.Errorf("spokenForm(%q) = %q: spaces not collapsed", s, out)
		}
		if strings.ContainsAny(out, ".,!?") {
			t.Errorf("spokenForm(%q) = %q keeps punctuation", s, out)
		}
		if spokenForm(out) != out {
			t.Errorf("spokenForm not idempotent: %q -> %q -> %q", s, out, spokenForm(out))
		}
	})
}
