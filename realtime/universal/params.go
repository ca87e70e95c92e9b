package universal

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits and defaults of the query parameters.
const (
	MinSampleRate = 8000
	MaxSampleRate = 48000

	DefaultEndOfTurnConfidenceThreshold = 0.4
	DefaultMinTurnSilence               = 400 * time.Millisecond
	DefaultMaxTurnSilence               = 1280 * time.Millisecond
	MaxTurnSilenceLimit                 = 10 * time.Second // the largest min/max_turn_silence

	MinInactivityTimeout = 5 * time.Second
	MaxInactivityTimeout = time.Hour

	MaxKeyterms      = 100 // terms in keyterms_prompt
	MaxKeytermLength = 50  // characters of one term

	DefaultSpeechModel = "universal-streaming-english"
)

// SpeechModels are the speech_model values the official SDKs send; every
// one is served by the server's one streaming recognizer, and any but
// DefaultSpeechModel gets a Warning saying so.
var SpeechModels = []string{
	"universal-streaming-english", "universal-streaming-multilingual", "u3-rt-pro",
	"u3-rt-pro-beta-1", "whisper-rt", "universal-3-5-pro", "universal-3-6", "universal-3-6-pro", "u3-pro",
}

// Encodings are the accepted encoding values.
var Encodings = []string{"pcm_s16le", "pcm_mulaw"}

// Options are a session's settings from the /v3/ws query string. The
// settable ones (Settings) may change mid-session through
// UpdateConfiguration.
type Options struct {
	SampleRate        int
	Encoding          string // pcm_s16le or pcm_mulaw
	LanguageDetection bool
	SpeechModel       string
	// InactivityTimeout ends the session (Termination, then close 1000)
	// when no audio arrives for this long; 0: the server's idle limit.
	InactivityTimeout time.Duration
	Settings
}

// Settings are the options UpdateConfiguration can change.
type Settings struct {
	FormatTurns                  bool
	EndOfTurnConfidenceThreshold float64
	MinTurnSilence               time.Duration // min_turn_silence (was min_end_of_turn_silence_when_confident)
	MaxTurnSilence               time.Duration
	Keyterms                     []string
	FilterProfanity              bool
}

// queryKeys are the query parameters /v3/ws knows ("token" is read by
// the transport).
var queryKeys = []string{
	"token", "sample_rate", "encoding", "format_turns", "end_of_turn_confidence_threshold",
	"min_end_of_turn_silence_when_confident", "min_turn_silence", "max_turn_silence",
	"keyterms_prompt", "inactivity_timeout", "language_detection", "speech_model", "filter_profanity",
}

// parseQuery reads and validates the /v3/ws query string. Every problem
// is a 3006 *Error naming the parameter: an unknown parameter, a repeated
// one, a missing sample_rate or a value of the wrong form or out of range.
func parseQuery(q url.Values) (Options, *Error) {
	o := Options{
		Encoding:    "pcm_s16le",
		SpeechModel: DefaultSpeechModel,
		Settings: Settings{
			EndOfTurnConfidenceThreshold: DefaultEndOfTurnConfidenceThreshold,
			MinTurnSilence:               DefaultMinTurnSilence,
			MaxTurnSilence:               DefaultMaxTurnSilence,
		},
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(queryKeys, k) {
			return o, invalid("unknown query parameter %q (Earshot accepts %s)", k, strings.Join(queryKeys[1:], ", "))
		}
		if len(q[k]) > 1 {
			return o, invalid("query parameter %s is given %d times", k, len(q[k]))
		}
	}
	if _, ok := q["sample_rate"]; !ok {
		return o, invalid("sample_rate is required")
	}
	get := func(k string) (string, bool) {
		v, ok := q[k]
		if !ok {
			return "", false
		}
		return v[0], true
	}
	v, _ := get("sample_rate")
	n, err := intValue(v)
	if err != nil || n < MinSampleRate || n > MaxSampleRate {
		return o, invalid("sample_rate must be an integer from %d to %d, got %q", MinSampleRate, MaxSampleRate, v)
	}
	o.SampleRate = int(n)
	if v, ok := get("encoding"); ok {
		if !slices.Contains(Encodings, v) {
			return o, invalid("encoding must be pcm_s16le or pcm_mulaw, got %q", v)
		}
		o.Encoding = v
	}
	for _, b := range []struct {
		key string
		dst *bool
	}{{"format_turns", &o.FormatTurns}, {"language_detection", &o.LanguageDetection}, {"filter_profanity", &o.FilterProfanity}} {
		if v, ok := get(b.key); ok {
			x, err := boolValue(v)
			if err != nil {
				return o, invalid("%s must be true or false, got %q", b.key, v)
			}
			*b.dst = x
		}
	}
	if v, ok := get("end_of_turn_confidence_threshold"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err := o.setThreshold(f, err); err != nil {
			return o, invalid("end_of_turn_confidence_threshold %s, got %q", err, v)
		}
	}
	old, okOld := get("min_end_of_turn_silence_when_confident")
	cur, okCur := get("min_turn_silence")
	if okOld && okCur && old != cur {
		return o, invalid("min_turn_silence %q and min_end_of_turn_silence_when_confident %q disagree (the second is the old name of the first)", cur, old)
	}
	for _, p := range []struct {
		key, v string
		ok     bool
		dst    *time.Duration
	}{
		{"min_end_of_turn_silence_when_confident", old, okOld, &o.MinTurnSilence},
		{"min_turn_silence", cur, okCur, &o.MinTurnSilence},
	} {
		if p.ok {
			if e := setMillis(p.key, p.v, p.dst); e != nil {
				return o, e
			}
		}
	}
	if v, ok := get("max_turn_silence"); ok {
		if e := setMillis("max_turn_silence", v, &o.MaxTurnSilence); e != nil {
			return o, e
		}
	}
	if o.MaxTurnSilence < o.MinTurnSilence {
		return o, invalid("max_turn_silence (%d ms) is less than min_turn_silence (%d ms)", o.MaxTurnSilence.Milliseconds(), o.MinTurnSilence.Milliseconds())
	}
	if v, ok := get("keyterms_prompt"); ok {
		var terms []string
		if err := json.Unmarshal([]byte(v), &terms); err != nil {
			return o, invalid("keyterms_prompt must be a JSON array of strings, got %q", v)
		}
		t, e := keyterms(terms)
		if e != nil {
			return o, e
		}
		o.Keyterms = t
	}
	if v, ok := get("inactivity_timeout"); ok {
		n, err := intValue(v)
		if err != nil || n < int64(MinInactivityTimeout/time.Second) || n > int64(MaxInactivityTimeout/time.Second) {
			return o, invalid("inactivity_timeout must be an integer number of seconds from %d to %d, got %q",
				int(MinInactivityTimeout.Seconds()), int(MaxInactivityTimeout.Seconds()), v)
		}
		o.InactivityTimeout = time.Duration(n) * time.Second
	}
	if v, ok := get("speech_model"); ok {
		if !slices.Contains(SpeechModels, v) {
			return o, invalid("speech_model must be one of %s, got %q", strings.Join(SpeechModels, ", "), v)
		}
		o.SpeechModel = v
	}
	return o, nil
}

func (s *Settings) setThreshold(f float64, err error) error {
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return fmt.Errorf("must be a number from 0 to 1")
	}
	s.EndOfTurnConfidenceThreshold = f
	return nil
}

// keyterms checks keyterms_prompt: strings, at most MaxKeyterms, each
// non-empty and at most MaxKeytermLength characters. Surrounding spaces
// are trimmed.
func keyterms(in []string) ([]string, *Error) {
	if len(in) > MaxKeyterms {
		return nil, invalid("keyterms_prompt holds %d terms; the most is %d", len(in), MaxKeyterms)
	}
	out := make([]string, 0, len(in))
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, invalid("keyterms_prompt holds an empty term")
		}
		if n := len([]rune(t)); n > MaxKeytermLength {
			return nil, invalid("keyterms_prompt term %q is %d characters; the most is %d", t, n, MaxKeytermLength)
		}
		out = append(out, t)
	}
	return out, nil
}

// intValue parses an integer, also written as a float with no fraction
// ("16000.0": JavaScript's toString of a computed rate).
func intValue(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("not an integer")
	}
	return int64(f), nil
}

// boolValue parses true or false in any case (Python SDKs send True).
func boolValue(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean")
}

func setMillis(key, v string, dst *time.Duration) *Error {
	d, err := millis(v)
	if err != nil {
		return invalid("%s %s, got %q", key, err, v)
	}
	*dst = d
	return nil
}

// millis parses a silence in milliseconds: an integer (or a float with no
// fraction) from 0 to MaxTurnSilenceLimit.
func millis(s string) (time.Duration, error) {
	n, err := intValue(s)
	if err != nil || n < 0 || n > MaxTurnSilenceLimit.Milliseconds() {
		return 0, fmt.Errorf("must be an integer number of milliseconds from 0 to %d", MaxTurnSilenceLimit.Milliseconds())
	}
	return time.Duration(n) * time.Millisecond, nil
}
