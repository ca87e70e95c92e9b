package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// paramPaths lists the JSON paths of every field of TranscriptParams and of
// its object fields, found independently of params.go's walk.
func paramPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := prefix + name
		out = append(out, path)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			out = append(out, paramPaths(ft, path+".")...)
		}
	}
	return out
}

func newParamFlagSet() (*flag.FlagSet, *paramFlags) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs, addParamFlags(fs)
}

// TestEveryParamHasAFlag: every JSON field of transcribe.TranscriptParams
// (but audio_url, the argument) has a flag with its own help and a type
// the flags can parse; every help entry belongs to a field.
func TestEveryParamHasAFlag(t *testing.T) {
	fs, _ := newParamFlagSet()
	paths := paramPaths(reflect.TypeFor[transcribe.TranscriptParams](), "")
	if len(paths) < 60 {
		t.Fatalf("found only %d parameters", len(paths))
	}
	for _, path := range paths {
		if positionalParams[path] {
			if fs.Lookup(flagNameFor(path)) != nil {
				t.Errorf("%s is an argument but also has a flag", path)
			}
			continue
		}
		f := fs.Lookup(strings.ReplaceAll(path, "_", "-"))
		if f == nil {
			t.Errorf("parameter %s has no flag --%s", path, strings.ReplaceAll(path, "_", "-"))
			continue
		}
		if paramHelp[path] == "" {
			t.Errorf("parameter %s has no help text in paramHelp", path)
		}
		if v := f.Value.(*paramValue); v.kind == kindUnhandled {
			t.Errorf("parameter %s has a type (%s) the flags cannot parse", path, v.typ)
		}
	}
	for path := range paramHelp {
		if !slices.Contains(paths, path) {
			t.Errorf("paramHelp describes %s, which is not a parameter", path)
		}
	}
	for path := range paramChoices {
		if !slices.Contains(paths, path) {
			t.Errorf("paramChoices lists %s, which is not a parameter", path)
		}
	}
}

// sampleValue returns a flag value of kind k.
func sampleValue(k paramKind, path string) string {
	switch k {
	case kindBool:
		return "true"
	case kindInt:
		return "7"
	case kindFloat:
		return "0.5"
	case kindString:
		return "v-" + path
	case kindList:
		return "a,b c"
	case kindObjects:
		return `[{"from":["x"],"to":"y"}]`
	case kindObject:
		return `{}`
	case kindRawJSON:
		return `{"k":[1,2]}`
	}
	return ""
}

// TestEveryFlagBuildsItsField sets every parameter flag and checks that the
// body holds exactly those parameters, with the types TranscriptParams
// decodes.
func TestEveryFlagBuildsItsField(t *testing.T) {
	fs, p := newParamFlagSet()
	fs.VisitAll(func(f *flag.Flag) {
		v := f.Value.(*paramValue)
		if err := fs.Set(f.Name, sampleValue(v.kind, strings.Join(v.path, "."))); err != nil {
			t.Errorf("--%s: %v", f.Name, err)
		}
	})
	data, err := json.Marshal(p.body)
	if err != nil {
		t.Fatal(err)
	}
	var params transcribe.TranscriptParams
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&params); err != nil {
		t.Fatalf("the body does not decode into TranscriptParams: %v\n%s", err, data)
	}
	// Every field came out set: re-encoding shows no null.
	back, _ := json.Marshal(params)
	var m map[string]any
	json.Unmarshal(back, &m)
	for k, v := range m {
		if v == nil && !positionalParams[k] {
			t.Errorf("%s was not set by its flag", k)
		}
	}
	if *params.SpeakersExpected != 7 || *params.Temperature != 0.5 || !slices.Equal(params.WordBoost, []string{"a", "b c"}) ||
		*params.SpeakerOptions.MaxSpeakersExpected != 7 || *params.LanguageDetectionOptions.FallbackLanguage != "v-language_detection_options.fallback_language" ||
		string(params.RemoveAudioTags) != `{"k":[1,2]}` || params.CustomSpelling[0].To != "y" {
		t.Errorf("values: %s", back)
	}
}

// TestListFlagsAppend: list flags split on commas and add up when repeated;
// an object's field flags and its JSON flag merge.
func TestListFlagsAppend(t *testing.T) {
	fs, p := newParamFlagSet()
	for _, kv := range [][2]string{
		{"word-boost", "a, b"}, {"word-boost", "c"},
		{"custom-spelling", "gettleman, gettle man=Gettleman"}, {"custom-spelling", `{"from":["sql"],"to":"SQL"}`},
		{"speaker-options.max-speakers-expected", "4"}, {"speaker-options", `{"min_speakers_expected":2}`},
		{"punctuate", "false"},
	} {
		if err := fs.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("--%s %s: %v", kv[0], kv[1], err)
		}
	}
	got, _ := json.Marshal(p.body)
	want := `{"custom_spelling":[{"from":["gettleman","gettle man"],"to":"Gettleman"},{"from":["sql"],"to":"SQL"}],` +
		`"punctuate":false,"speaker_options":{"max_speakers_expected":4,"min_speakers_expected":2},"word_boost":["a","b","c"]}`
	if string(got) != want {
		t.Errorf("body\n%s\nwant\n%s", got, want)
	}
}

// TestSDKCarries: requests the SDK's struct can hold go through the SDK;
// any parameter it lacks sends the JSON directly.
func TestSDKCarries(t *testing.T) {
	for _, tc := range []struct {
		body map[string]any
		sdk  bool
	}{
		{map[string]any{"audio_url": "http://x/a", "speaker_labels": true, "word_boost": []string{"a"}, "punctuate": false}, true},
		{map[string]any{"audio_url": "http://x/a", "redact_pii_policies": []string{"person_name"}, "custom_spelling": []any{map[string]any{"from": []any{"a"}, "to": "b"}}}, true},
		{map[string]any{"audio_url": "http://x/a", "keyterms_prompt": []string{"a"}}, false},
		{map[string]any{"audio_url": "http://x/a", "speaker_options": map[string]any{"min_speakers_expected": 1}}, false},
		{map[string]any{"audio_url": "http://x/a", "remove_audio_tags": json.RawMessage(`"all"`)}, false},
		{map[string]any{"audio_url": "http://x/a", "language_code": ""}, false}, // the SDK omits an empty string
	} {
		if _, ok := sdkParams(tc.body); ok != tc.sdk {
			t.Errorf("sdkParams(%v) = %v, want %v", tc.body, ok, tc.sdk)
		}
	}
}

func TestFlagFor(t *testing.T) {
	_, p := newParamFlagSet()
	for field, want := range map[string]string{
		"speaker_labels":                        "--speaker-labels",
		"custom_spelling[3].from":               "--custom-spelling",
		"speaker_options.max_speakers_expected": "--speaker-options.max-speakers-expected",
		"speaker_options":                       "--speaker-options",
		"language_detection_options.nothing":    "--language-detection-options",
		"audio_url":                             "FILE|URL",
	} {
		if got := p.flagFor(field); got != want {
			t.Errorf("flagFor(%q) = %q, want %q", field, got, want)
		}
	}
	if got := p.flagText(`requires format_text and speaker_options.min_speakers_expected, not some_thing`); got != "requires --format-text and --speaker-options.min-speakers-expected, not some_thing" {
		t.Errorf("flagText: %q", got)
	}
}

func TestParseInterleaved(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  []string
		q    bool
		n    int
	}{
		{[]string{"a.wav", "-q", "--n", "3"}, []string{"a.wav"}, true, 3},
		{[]string{"--n=2", "a", "b", "-q"}, []string{"a", "b"}, true, 2},
		{[]string{"a", "--", "-q", "--n"}, []string{"a", "-q", "--n"}, false, 0},
		{[]string{"--", "-"}, []string{"-"}, false, 0},
		{nil, nil, false, 0},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		q := fs.Bool("q", false, "")
		n := fs.Int("n", 0, "")
		pos, err := parseInterleaved(fs, tc.args)
		if err != nil || !slices.Equal(pos, tc.pos) || *q != tc.q || *n != tc.n {
			t.Errorf("parseInterleaved(%q) = %q, q=%v n=%d, %v", tc.args, pos, *q, *n, err)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{&httpError{Status: 401, Message: "bad key"}, exitAuth},
		{&httpError{Status: 403}, exitAuth},
		{&httpError{Status: 404, Message: "Transcript not found"}, exitNotFound},
		{&httpError{Status: 400, Message: "speaker_labels: nope"}, exitUsage},
		{&httpError{Status: 500}, exitFailed},
		{&httpError{Status: 429}, exitFailed},
		{usageErrorf("x"), exitUsage},
		{errors.New("other"), exitFailed},
		{fmt.Errorf("waiting: %w", context.Canceled), exitInterrupted},
	} {
		if code, msg := classify(tc.err); code != tc.code || msg == "" {
			t.Errorf("classify(%v) = %d %q, want %d", tc.err, code, msg, tc.code)
		}
	}
	if _, msg := classify(&httpError{Status: 502}); msg != "the server answered 502 Bad Gateway" {
		t.Errorf("502 without a message: %q", msg)
	}
}

// FuzzParamFlag sets any parameter flag to any value (twice, so appends
// and merges run): it never panics, and a value it accepts yields a body
// that encodes, whose request either validates or is a usage error.
func FuzzParamFlag(f *testing.F) {
	fs, _ := newParamFlagSet()
	var names []string
	fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	for i, n := range names {
		v := fs.Lookup(n).Value.(*paramValue)
		f.Add(uint8(i), sampleValue(v.kind, n), "")
	}
	f.Add(uint8(0), `=`, `,`)
	f.Add(uint8(3), `a,=b`, `[{"from":[],"to":""}]`)
	f.Add(uint8(7), `{"min_speakers_expected":1e400}`, `null`)
	f.Fuzz(func(t *testing.T, idx uint8, v1, v2 string) {
		fs, p := newParamFlagSet()
		name := names[int(idx)%len(names)]
		if strings.HasPrefix(v1, "@") || strings.HasPrefix(v2, "@") {
			return // file reads are not what is fuzzed
		}
		err1 := fs.Set(name, v1)
		err2 := fs.Set(name, v2)
		if err1 != nil && err2 != nil {
			return
		}
		if _, err := json.Marshal(p.body); err != nil {
			t.Fatalf("--%s %q %q: body does not encode: %v", name, v1, v2, err)
		}
		body, err := p.request("http://example.com/a.wav")
		if err != nil {
			var ce *cliError
			if !errors.As(err, &ce) || ce.code != exitUsage {
				t.Fatalf("--%s %q %q: request error %v is not a usage error", name, v1, v2, err)
			}
			return
		}
		sdkParams(body)
	})
}

// FuzzParseInterleaved: any argument list parses without panicking, and
// every argument is either a flag, a flag's value or a positional.
func FuzzParseInterleaved(f *testing.F) {
	f.Add("a.wav\x00-q\x00--n\x003")
	f.Add("--\x00-q")
	f.Add("-n\x00")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Bool("q", false, "")
		fs.Int("n", 0, "")
		pos, err := parseInterleaved(fs, args)
		if err == nil && len(pos) > len(args) {
			t.Fatalf("%q: %d positionals from %d arguments", args, len(pos), len(args))
		}
	})
}
