package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"

	"github.com/earshot-dev/earshot/transcribe"
)

// The request-parameter flags are generated from transcribe.TranscriptParams
// by reflection: every JSON field becomes a flag named after it with dashes
// (speaker_labels -> --speaker-labels), typed by the field's Go type, and
// every field of an object parameter also gets a flag of its own
// (--speaker-options.max-speakers-expected). A flag that is not given sends
// nothing, so the server applies its own default. The one exception is
// audio_url, which is the command's FILE|URL argument.

// positionalParams are the JSON fields given as arguments, not flags.
var positionalParams = map[string]bool{"audio_url": true}

// paramHelp describes each parameter flag, by JSON path. Every field of
// TranscriptParams (and of its object fields) needs an entry; a test checks.
var paramHelp = map[string]string{
	"audio_start_from":              "start transcribing at this point of the audio, in milliseconds",
	"audio_end_at":                  "stop transcribing at this point of the audio, in milliseconds",
	"punctuate":                     "add punctuation (server default true)",
	"format_text":                   "format text: casing, numbers, dates (server default true)",
	"disfluencies":                  "keep filler words such as um and uh",
	"filter_profanity":              "mask profanity with asterisks",
	"custom_spelling":               "spell words your way: FROM[,FROM...]=TO (repeatable), or JSON [{\"from\":[...],\"to\":\"...\"}]",
	"word_boost":                    "words and phrases the audio probably contains",
	"boost_param":                   "weight of --word-boost",
	"keyterms_prompt":               "key terms the audio probably contains (up to 6 words each)",
	"prompt":                        "instructions for the model (needs --speech-model slam-1)",
	"domain":                        "specialised vocabulary",
	"language_code":                 "language of the audio, e.g. en, en_us, es",
	"language_codes":                "languages spoken, for code switching (one must be en)",
	"language_detection":            "detect the language of the audio",
	"language_confidence_threshold": "fail when the detected language's confidence is below this (0..1)",
	"language_detection_options":    "language detection options as a JSON object",
	"language_detection_options.expected_languages":                  "languages to choose among when detecting",
	"language_detection_options.fallback_language":                   "language to use when detection is not confident (or auto)",
	"language_detection_options.code_switching":                      "detect changes of language within the audio",
	"language_detection_options.code_switching_confidence_threshold": "confidence needed to switch language (0..1)",
	"language_detection_options.localization":                        "locales to localize to",
	"language_detection_options.on_no_speech_detected":               "what to do when no speech is found",
	"speech_model":                          "speech model",
	"speech_models":                         "speech models in order of preference",
	"speech_threshold":                      "fail when less than this fraction of the audio is speech (0..1)",
	"temperature":                           "sampling temperature of the model (0..1)",
	"remove_audio_tags":                     "remove_audio_tags as JSON",
	"speed_boost":                           "trade some accuracy for speed",
	"speaker_labels":                        "label the speakers (utterances)",
	"speakers_expected":                     "number of speakers (1..10)",
	"speaker_options":                       "speaker options as a JSON object",
	"speaker_options.min_speakers_expected": "at least this many speakers",
	"speaker_options.max_speakers_expected": "at most this many speakers",
	"speaker_options.advanced_speaker_segmentation": "segment speakers more finely",
	"dual_channel":              "transcribe the two channels separately",
	"multichannel":              "transcribe each channel separately",
	"auto_highlights":           "find key phrases",
	"content_safety":            "detect sensitive content",
	"content_safety_confidence": "lowest confidence of content safety labels (25..100)",
	"iab_categories":            "detect topics (IAB categories)",
	"entity_detection":          "detect entities (names, places, ...)",
	"sentiment_analysis":        "sentiment of each sentence",
	"auto_chapters":             "split into chapters with summaries",
	"summarization":             "summarize the transcript",
	"summary_type":              "form of the summary",
	"summary_model":             "style of the summary",
	"custom_topics":             "detect the topics given by --topics",
	"topics":                    "custom topics to detect",
	"speech_understanding":      "speech_understanding request as JSON",
	"redact_pii":                "redact personal information (needs --redact-pii-policies)",
	"redact_pii_audio":          "also make a redacted copy of the audio",
	"redact_pii_audio_quality":  "file format of the redacted audio",
	"redact_pii_audio_options":  "redacted audio options as JSON",
	"redact_pii_policies":       "kinds of information to redact, e.g. person_name,phone_number",
	"redact_pii_sub":            "what replaces redacted text",
	"redact_static_entities":    "redact_static_entities as JSON",
	"webhook_url":               "URL the server calls when the transcript is done",
	"webhook_auth_header_name":  "header sent with the webhook (with --webhook-auth-header-value)",
	"webhook_auth_header_value": "value of that header",
}

// paramChoices lists the allowed values of enumerated parameters, for help.
var paramChoices = map[string]func() []string{
	"boost_param":              func() []string { return transcribe.Strings(transcribe.BoostParams()) },
	"domain":                   func() []string { return transcribe.Strings(transcribe.Domains()) },
	"speech_model":             transcribe.KnownSpeechModels,
	"summary_type":             func() []string { return transcribe.Strings(transcribe.SummaryTypes()) },
	"summary_model":            func() []string { return transcribe.Strings(transcribe.SummaryModels()) },
	"redact_pii_audio_quality": func() []string { return transcribe.Strings(transcribe.AudioQualities()) },
	"redact_pii_sub":           func() []string { return transcribe.Strings(transcribe.SubstitutionPolicies()) },
	"language_detection_options.localization":          transcribe.Localizations,
	"language_detection_options.on_no_speech_detected": transcribe.NoSpeechPolicies,
}

// paramKind is how a flag parses its value.
type paramKind int

const (
	kindBool paramKind = iota
	kindInt
	kindFloat
	kindString
	kindList      // []string: comma-separated, repeatable
	kindObjects   // []struct: JSON or a shorthand, repeatable
	kindObject    // struct: a JSON object
	kindRawJSON   // json.RawMessage: any JSON value
	kindUnhandled // a type this file does not know (a test fails on it)
)

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func kindOf(t reflect.Type) paramKind {
	if t == rawMessageType {
		return kindRawJSON
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int64:
		return kindInt
	case reflect.Float64:
		return kindFloat
	case reflect.String:
		return kindString
	case reflect.Struct:
		return kindObject
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.String:
			return kindList
		case reflect.Struct:
			return kindObjects
		}
	}
	return kindUnhandled
}

// jsonName returns a struct field's JSON name ("" for fields JSON skips).
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name
}

// flagNameFor turns a JSON path into a flag name.
func flagNameFor(path string) string { return strings.ReplaceAll(path, "_", "-") }

// paramFlags holds the request body the parameter flags build.
type paramFlags struct {
	body  map[string]any
	flags map[string]string // JSON path -> flag name
}

// addParamFlags defines a flag on fs for every parameter of
// transcribe.TranscriptParams but audio_url.
func addParamFlags(fs *flag.FlagSet) *paramFlags {
	p := &paramFlags{body: map[string]any{}, flags: map[string]string{}}
	p.addStruct(fs, reflect.TypeFor[transcribe.TranscriptParams](), nil)
	return p
}

func (p *paramFlags) addStruct(fs *flag.FlagSet, t reflect.Type, prefix []string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" || (prefix == nil && positionalParams[name]) {
			continue
		}
		path := append(append([]string(nil), prefix...), name)
		key := strings.Join(path, ".")
		v := &paramValue{p: p, path: path, typ: f.Type, kind: kindOf(f.Type)}
		help := paramHelp[key]
		if help == "" {
			help = "the " + key + " parameter"
		}
		if choices, ok := paramChoices[key]; ok {
			help += " (" + strings.Join(choices(), ", ") + ")"
		}
		fs.Var(v, flagNameFor(key), help)
		p.flags[key] = flagNameFor(key)
		if v.kind == kindObject {
			st := f.Type
			if st.Kind() == reflect.Pointer {
				st = st.Elem()
			}
			p.addStruct(fs, st, path)
		}
	}
}

// paramValue is the flag.Value of one parameter.
type paramValue struct {
	p    *paramFlags
	path []string
	typ  reflect.Type
	kind paramKind
	text string // last value given, for String
}

func (v *paramValue) String() string {
	if v == nil {
		return ""
	}
	return v.text
}

func (v *paramValue) IsBoolFlag() bool { return v != nil && v.kind == kindBool }

// hint is the value placeholder shown in help.
func (v *paramValue) hint() string {
	switch v.kind {
	case kindInt:
		return "N"
	case kindFloat:
		return "X"
	case kindString:
		return "TEXT"
	case kindList:
		return "A,B,..."
	case kindObjects:
		return "SPEC"
	case kindObject, kindRawJSON:
		return "JSON"
	}
	return ""
}

func (v *paramValue) Set(s string) error {
	v.text = s
	switch v.kind {
	case kindBool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return errors.New("must be true or false")
		}
		v.p.set(v.path, b)
	case kindInt:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return errors.New("must be a whole number")
		}
		v.p.set(v.path, n)
	case kindFloat:
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return errors.New("must be a number")
		}
		v.p.set(v.path, x)
	case kindString:
		v.p.set(v.path, s)
	case kindList:
		list, _ := v.p.get(v.path).([]string)
		for _, item := range strings.Split(s, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return errors.New("must be a comma-separated list without empty items")
			}
			list = append(list, item)
		}
		v.p.set(v.path, list)
	case kindObjects:
		items, err := parseObjects(s, v.typ.Elem())
		if err != nil {
			return err
		}
		list, _ := v.p.get(v.path).([]any)
		v.p.set(v.path, append(list, items...))
	case kindObject:
		data, err := readJSONArg(s)
		if err != nil {
			return err
		}
		if err := strictDecode(data, v.typ); err != nil {
			return err
		}
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
			return errors.New("must be a JSON object")
		}
		// Fields set earlier by this object's own flags stay set.
		if old, ok := v.p.get(v.path).(map[string]any); ok {
			for k, x := range old {
				if _, given := obj[k]; !given {
					obj[k] = x
				}
			}
		}
		v.p.set(v.path, obj)
	case kindRawJSON:
		data, err := readJSONArg(s)
		if err != nil {
			return err
		}
		v.p.set(v.path, json.RawMessage(data))
	default:
		return fmt.Errorf("parameters of type %s are not supported by this command", v.typ)
	}
	return nil
}

// set stores x at path in the body, creating objects on the way.
func (p *paramFlags) set(path []string, x any) {
	m := p.body
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = x
}

// get returns the value at path, or nil.
func (p *paramFlags) get(path []string) any {
	var x any = p.body
	for _, k := range path {
		m, ok := x.(map[string]any)
		if !ok {
			return nil
		}
		x = m[k]
	}
	return x
}

// readJSONArg reads a JSON flag value: the text itself, or @FILE's
// contents. It must be valid JSON.
func readJSONArg(s string) ([]byte, error) {
	data := []byte(s)
	if name, ok := strings.CutPrefix(s, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, errors.Unwrap(err))
		}
		data = b
	}
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return nil, errors.New("must be JSON (or @FILE holding JSON)")
	}
	return data, nil
}

// strictDecode checks that data decodes into a value of type t with no
// unknown fields, and says what is wrong if not.
func strictDecode(data []byte, t reflect.Type) error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(reflect.New(t).Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("%s must be %s, not a JSON %s", te.Field, jsonTypeName(te.Type), te.Value)
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func jsonTypeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a number"
}

// parseObjects parses a list-of-objects flag value: a JSON object or array
// of them (or @FILE), or for custom spelling the shorthand
// FROM[,FROM...]=TO.
func parseObjects(s string, elem reflect.Type) ([]any, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") || strings.HasPrefix(t, "@") {
		data, err := readJSONArg(t)
		if err != nil {
			return nil, err
		}
		if data[0] == '{' {
			data = append(append([]byte{'['}, data...), ']')
		}
		if err := strictDecode(data, reflect.SliceOf(elem)); err != nil {
			return nil, err
		}
		var items []any
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, errors.New("must be a JSON list of objects")
		}
		for _, it := range items {
			if _, ok := it.(map[string]any); !ok {
				return nil, errors.New("must be a JSON list of objects")
			}
		}
		return items, nil
	}
	if elem != reflect.TypeFor[transcribe.CustomSpelling]() {
		return nil, errors.New("must be JSON")
	}
	from, to, ok := strings.Cut(s, "=")
	to = strings.TrimSpace(to)
	if !ok || to == "" || strings.TrimSpace(from) == "" {
		return nil, errors.New("must be FROM[,FROM...]=TO (for example --custom-spelling 'gettleman,gettle man=Gettleman') or JSON")
	}
	var froms []any
	for _, f := range strings.Split(from, ",") {
		if f = strings.TrimSpace(f); f == "" {
			return nil, errors.New("FROM must not contain empty phrases")
		}
		froms = append(froms, f)
	}
	return []any{map[string]any{"from": froms, "to": to}}, nil
}

// request returns the JSON body of POST /v2/transcript for audioURL with
// the parameters given, after checking them with the same rules the server
// applies (transcribe.TranscriptParams.Validate), so that a bad value is
// reported before a large file is uploaded.
func (p *paramFlags) request(audioURL string) (map[string]any, error) {
	body := make(map[string]any, len(p.body)+1)
	for k, v := range p.body {
		body[k] = v
	}
	body["audio_url"] = audioURL
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var params transcribe.TranscriptParams
	if err := json.Unmarshal(data, &params); err != nil {
		return nil, usageErrorf("%s", p.flagText(err.Error()))
	}
	if err := params.Validate(); err != nil {
		var pe *transcribe.ParamError
		if errors.As(err, &pe) {
			return nil, usageErrorf("%s: %s", p.flagFor(pe.Field), p.flagText(pe.Reason))
		}
		return nil, usageErrorf("%s", err)
	}
	return body, nil
}

var indexRef = regexp.MustCompile(`\[\d+\]`)

var fieldRef = regexp.MustCompile(`\b[a-z]+(?:_[a-z0-9]+)+(?:\.[a-z]+(?:_[a-z0-9]+)*)?\b`)

// flagFor names the flag of a JSON field path such as
// "custom_spelling[0].from" or "speaker_options.max_speakers_expected".
func (p *paramFlags) flagFor(field string) string {
	if field == "audio_url" {
		return "FILE|URL"
	}
	clean := indexRef.ReplaceAllString(field, "")
	for key := clean; key != ""; {
		if name, ok := p.flags[key]; ok {
			return "--" + name
		}
		i := strings.LastIndex(key, ".")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return field
}

// flagText rewrites parameter names in a message as the flags that set
// them ("requires format_text" -> "requires --format-text").
func (p *paramFlags) flagText(msg string) string {
	return fieldRef.ReplaceAllStringFunc(msg, func(s string) string {
		if name, ok := p.flags[s]; ok {
			return "--" + name
		}
		return s
	})
}

// sdkParams converts body to the Go SDK's request type, and reports
// whether the SDK carries all of it: the SDK's struct lacks newer
// parameters (keyterms_prompt, prompt, speech_models, domain,
// language_detection_options, ...), which it would silently drop.
func sdkParams(body map[string]any) (*aai.TranscriptParams, bool) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, false
	}
	var params aai.TranscriptParams
	if err := json.Unmarshal(data, &params); err != nil {
		return nil, false
	}
	back, err := json.Marshal(params)
	if err != nil {
		return nil, false
	}
	var want, got any
	if json.Unmarshal(data, &want) != nil || json.Unmarshal(back, &got) != nil {
		return nil, false
	}
	return &params, reflect.DeepEqual(want, got)
}
