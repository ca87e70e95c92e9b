package universal

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseQueryDefaultsAndValues(t *testing.T) {
	t.Parallel()
	o, e := parseQuery(url.Values{"sample_rate": {"16000"}})
	if e != nil {
		t.Fatal(e)
	}
	want := Options{SampleRate: 16000, Encoding: "pcm_s16le", SpeechModel: DefaultSpeechModel, Settings: Settings{
		EndOfTurnConfidenceThreshold: 0.4, MinTurnSilence: 400 * time.Millisecond, MaxTurnSilence: 1280 * time.Millisecond}}
	if !optsEqual(o, want) {
		t.Fatalf("defaults %+v, want %+v", o, want)
	}
	q, _ := url.ParseQuery("sample_rate=8000.0&encoding=pcm_mulaw&format_turns=True&end_of_turn_confidence_threshold=0.7" +
		"&min_turn_silence=160&max_turn_silence=2400&keyterms_prompt=%5B%22Earshot%22%2C%22 pocketsphinx %22%5D" +
		"&inactivity_timeout=30&language_detection=true&speech_model=universal-streaming-multilingual&filter_profanity=false&token=x")
	o, e = parseQuery(q)
	if e != nil {
		t.Fatal(e)
	}
	want = Options{SampleRate: 8000, Encoding: "pcm_mulaw", LanguageDetection: true, SpeechModel: "universal-streaming-multilingual",
		InactivityTimeout: 30 * time.Second, Settings: Settings{FormatTurns: true, EndOfTurnConfidenceThreshold: 0.7,
			MinTurnSilence: 160 * time.Millisecond, MaxTurnSilence: 2400 * time.Millisecond, Keyterms: []string{"Earshot", "pocketsphinx"}}}
	if !optsEqual(o, want) {
		t.Fatalf("got %+v, want %+v", o, want)
	}
	// The old name of min_turn_silence.
	o, e = parseQuery(url.Values{"sample_rate": {"16000"}, "min_end_of_turn_silence_when_confident": {"300"}})
	if e != nil || o.MinTurnSilence != 300*time.Millisecond {
		t.Fatalf("%+v %v", o, e)
	}
}

func optsEqual(a, b Options) bool {
	ka, kb := a.Keyterms, b.Keyterms
	a.Keyterms, b.Keyterms = nil, nil
	return reflect.DeepEqual(a, b) && slices.Equal(ka, kb)
}

func TestParseQueryRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ query, want string }{
		{"", "sample_rate is required"},
		{"sample_rate=", "sample_rate must be an integer"},
		{"sample_rate=abc", "sample_rate must be an integer"},
		{"sample_rate=16000.5", "sample_rate must be an integer"},
		{"sample_rate=4000", "from 8000 to 48000"},
		{"sample_rate=96000", "from 8000 to 48000"},
		{"sample_rate=16000&sample_rate=8000", "sample_rate is given 2 times"},
		{"sample_rate=16000&word_boost=%5B%5D", `unknown query parameter "word_boost"`},
		{"sample_rate=16000&vad_threshold=0.5", `unknown query parameter "vad_threshold"`},
		{"sample_rate=16000&encoding=opus", "encoding must be pcm_s16le or pcm_mulaw"},
		{"sample_rate=16000&format_turns=yes", "format_turns must be true or false"},
		{"sample_rate=16000&language_detection=1", "language_detection must be true or false"},
		{"sample_rate=16000&filter_profanity=", "filter_profanity must be true or false"},
		{"sample_rate=16000&end_of_turn_confidence_threshold=1.5", "end_of_turn_confidence_threshold must be a number from 0 to 1"},
		{"sample_rate=16000&end_of_turn_confidence_threshold=NaN", "end_of_turn_confidence_threshold must be a number from 0 to 1"},
		{"sample_rate=16000&min_turn_silence=-1", "min_turn_silence must be an integer number of milliseconds"},
		{"sample_rate=16000&min_turn_silence=20000", "min_turn_silence must be an integer number of milliseconds from 0 to 10000"},
		{"sample_rate=16000&min_end_of_turn_silence_when_confident=x", "min_end_of_turn_silence_when_confident must be"},
		{"sample_rate=16000&min_turn_silence=100&min_end_of_turn_silence_when_confident=200", "disagree"},
		{"sample_rate=16000&max_turn_silence=1.5", "max_turn_silence must be an integer"},
		{"sample_rate=16000&min_turn_silence=2000&max_turn_silence=1000", "max_turn_silence (1000 ms) is less than min_turn_silence (2000 ms)"},
		{"sample_rate=16000&keyterms_prompt=foo", "keyterms_prompt must be a JSON array of strings"},
		{"sample_rate=16000&keyterms_prompt=%5B1%5D", "keyterms_prompt must be a JSON array of strings"},
		{"sample_rate=16000&keyterms_prompt=%5B%22%20%22%5D", "keyterms_prompt holds an empty term"},
		{"sample_rate=16000&keyterms_prompt=%5B%22" + strings.Repeat("a", 51) + "%22%5D", "is 51 characters; the most is 50"},
		{"sample_rate=16000&inactivity_timeout=2", "inactivity_timeout must be an integer number of seconds from 5 to 3600"},
		{"sample_rate=16000&inactivity_timeout=7200", "inactivity_timeout must be"},
		{"sample_rate=16000&speech_model=best", "speech_model must be one of"},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		_, e := parseQuery(q)
		if e == nil || e.Code != CloseInputValidation || !strings.Contains(e.Text, c.want) || !strings.HasPrefix(e.Text, "Input validation error: ") {
			t.Errorf("%q: got %v, want 3006 with %q", c.query, e, c.want)
		}
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = `"t"`
	}
	_, e := parseQuery(url.Values{"sample_rate": {"16000"}, "keyterms_prompt": {"[" + strings.Join(many, ",") + "]"}})
	if e == nil || !strings.Contains(e.Text, "holds 101 terms; the most is 100") {
		t.Errorf("101 keyterms: %v", e)
	}
}

func TestParseClient(t *testing.T) {
	t.Parallel()
	cur := Settings{EndOfTurnConfidenceThreshold: 0.4, MinTurnSilence: 400 * time.Millisecond, MaxTurnSilence: 1280 * time.Millisecond, Keyterms: []string{"a"}}
	for _, typ := range []string{"Terminate", "ForceEndpoint", "KeepAlive"} {
		m, e := parseClient([]byte(`{"type":"`+typ+`"}`+"\n"), cur)
		if e != nil || m.Type != typ || m.Update != nil {
			t.Errorf("%s: %+v %v", typ, m, e)
		}
	}
	m, e := parseClient([]byte(`{"type":"UpdateConfiguration","end_of_turn_confidence_threshold":0.9,"min_turn_silence":100,"max_turn_silence":3000,"format_turns":true,"filter_profanity":true,"keyterms_prompt":["b"]}`), cur)
	if e != nil {
		t.Fatal(e)
	}
	want := Settings{FormatTurns: true, EndOfTurnConfidenceThreshold: 0.9, MinTurnSilence: 100 * time.Millisecond,
		MaxTurnSilence: 3 * time.Second, Keyterms: []string{"b"}, FilterProfanity: true}
	if got := *m.Update; !slices.Equal(got.Keyterms, want.Keyterms) || !m.KeytermsChanged {
		t.Fatalf("keyterms %+v", m)
	} else if got.Keyterms, want.Keyterms = nil, nil; !reflect.DeepEqual(got, want) {
		t.Fatalf("update %+v, want %+v", got, want)
	}
	if cur.Keyterms[0] != "a" {
		t.Fatal("parseClient changed the current settings")
	}
	m, e = parseClient([]byte(`{"type":"UpdateConfiguration","min_end_of_turn_silence_when_confident":200}`), cur)
	if e != nil || m.Update.MinTurnSilence != 200*time.Millisecond || m.KeytermsChanged {
		t.Fatalf("%+v %v", m, e)
	}
	for _, c := range []struct{ in, want string }{
		{`{"type":`, "Invalid JSON"},
		{`[]`, "Invalid Message: []"},
		{`{"foo":1}`, "has no type string"},
		{`{"type":"Dance"}`, "Invalid Message Type: Dance"},
		{`{"type":"Terminate","now":true}`, "Terminate takes no fields"},
		{`{"type":"UpdateConfiguration","vad_threshold":0.5}`, `unknown field "vad_threshold"`},
		{`{"type":"UpdateConfiguration","end_of_turn_confidence_threshold":2}`, "end_of_turn_confidence_threshold must be a number from 0 to 1, got 2"},
		{`{"type":"UpdateConfiguration","end_of_turn_confidence_threshold":null}`, "end_of_turn_confidence_threshold must be"},
		{`{"type":"UpdateConfiguration","min_turn_silence":1.5}`, "min_turn_silence must be an integer number of milliseconds"},
		{`{"type":"UpdateConfiguration","max_turn_silence":"1000"}`, "max_turn_silence must be"},
		{`{"type":"UpdateConfiguration","max_turn_silence":100}`, "max_turn_silence (100 ms) is less than min_turn_silence (400 ms)"},
		{`{"type":"UpdateConfiguration","format_turns":"true"}`, "format_turns must be true or false"},
		{`{"type":"UpdateConfiguration","keyterms_prompt":"a"}`, "keyterms_prompt must be an array of strings"},
	} {
		_, e := parseClient([]byte(c.in), cur)
		if e == nil || e.Code != CloseInputValidation || !strings.Contains(e.Text, c.want) {
			t.Errorf("%s: got %v, want 3006 with %q", c.in, e, c.want)
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"sample_rate=16000", "sample_rate=8000&keyterms_prompt=%5B%22a%22%5D&min_turn_silence=10&max_turn_silence=5", "sample_rate=1e4&format_turns=TRUE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := url.ParseQuery(s)
		if err != nil {
			return
		}
		o, e := parseQuery(q)
		if e != nil {
			if e.Code != CloseInputValidation || e.Text == "" {
				t.Fatalf("error %+v", e)
			}
			return
		}
		if o.SampleRate < MinSampleRate || o.SampleRate > MaxSampleRate || o.MaxTurnSilence < o.MinTurnSilence ||
			o.EndOfTurnConfidenceThreshold < 0 || o.EndOfTurnConfidenceThreshold > 1 || len(o.Keyterms) > MaxKeyterms {
			t.Fatalf("accepted %q as %+v", s, o)
		}
		if err := endpointing(o.Settings).Validate(); err != nil {
			t.Fatalf("accepted %q: %v", s, err)
		}
	})
}

func FuzzParseClient(f *testing.F) {
	for _, s := range []string{`{"type":"Terminate"}`, `{"type":"UpdateConfiguration","min_turn_silence":100,"keyterms_prompt":["x"]}`, `[]`, `{"type":1}`} {
		f.Add([]byte(s))
	}
	cur := Settings{EndOfTurnConfidenceThreshold: 0.4, MinTurnSilence: 400 * time.Millisecond, MaxTurnSilence: 1280 * time.Millisecond}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, e := parseClient(b, cur)
		if e != nil {
			if e.Code != CloseInputValidation || e.Text == "" {
				t.Fatalf("error %+v", e)
			}
			return
		}
		if m.Update != nil {
			if err := endpointing(*m.Update).Validate(); err != nil {
				t.Fatalf("accepted %q: %v", b, err)
			}
		}
	})
}
