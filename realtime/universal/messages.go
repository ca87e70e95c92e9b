package universal

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"
)

// Server message types (the "type" field).
const (
	TypeBegin         = "Begin"
	TypeTurn          = "Turn"
	TypeSpeechStarted = "SpeechStarted"
	TypeTermination   = "Termination"
	TypeError         = "Error"
	TypeWarning       = "Warning"
)

// Client message types.
const (
	TypeTerminate           = "Terminate"
	TypeForceEndpoint       = "ForceEndpoint"
	TypeKeepAlive           = "KeepAlive"
	TypeUpdateConfiguration = "UpdateConfiguration"
)

// Warning codes of Warning messages. A Warning never ends the session.
const (
	// WarningSpeechModel: speech_model names a model other than
	// universal-streaming-english; the server's recognizer serves it.
	WarningSpeechModel = 1001
	// WarningKeytermsFixed: an UpdateConfiguration changed
	// keyterms_prompt, which the open recognizer stream cannot take; the
	// session keeps the terms it began with.
	WarningKeytermsFixed = 1002
)

// Begin is the first message of a session.
type Begin struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	ExpiresAt int64  `json:"expires_at"` // Unix seconds
}

// newBegin returns the Begin message of session id.
func newBegin(id string, expiresAt time.Time) Begin {
	return Begin{Type: TypeBegin, ID: id, ExpiresAt: expiresAt.Unix()}
}

// Word is a word of a Turn; times are milliseconds of audio since the
// session began.
type Word struct {
	Start       int64   `json:"start"`
	End         int64   `json:"end"`
	Confidence  float64 `json:"confidence"`
	Text        string  `json:"text"`
	WordIsFinal bool    `json:"word_is_final"`
}

// Turn is the transcript of the current turn so far (EndOfTurn false), the
// ended turn (EndOfTurn true, TurnIsFormatted false) and, with
// format_turns, its formatted copy (both true).
type Turn struct {
	Type                string   `json:"type"`
	TurnOrder           int      `json:"turn_order"`
	TurnIsFormatted     bool     `json:"turn_is_formatted"`
	EndOfTurn           bool     `json:"end_of_turn"`
	Transcript          string   `json:"transcript"`
	EndOfTurnConfidence float64  `json:"end_of_turn_confidence"`
	Words               []Word   `json:"words"`
	LanguageCode        string   `json:"language_code,omitempty"`
	LanguageConfidence  *float64 `json:"language_confidence,omitempty"`
}

// SpeechStarted says speech began at Timestamp (milliseconds of audio).
type SpeechStarted struct {
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"`
}

// Termination is the last message of a session ended by Terminate or the
// inactivity timeout.
type Termination struct {
	Type                   string  `json:"type"`
	AudioDurationSeconds   float64 `json:"audio_duration_seconds"`
	SessionDurationSeconds float64 `json:"session_duration_seconds"`
}

// newTermination returns the Termination message (durations to the
// millisecond).
func newTermination(audio, session time.Duration) Termination {
	r := func(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }
	return Termination{Type: TypeTermination, AudioDurationSeconds: r(audio), SessionDurationSeconds: r(session)}
}

// ErrorMessage is sent just before an error close; ErrorCode is the close
// code.
type ErrorMessage struct {
	Type      string `json:"type"`
	ErrorCode int    `json:"error_code"`
	Error     string `json:"error"`
}

// Warning reports something the client asked for that the server does
// differently; the session goes on.
type Warning struct {
	Type        string `json:"type"`
	WarningCode int    `json:"warning_code"`
	Warning     string `json:"warning"`
}

// newWarning returns a Warning message.
func newWarning(code int, text string) Warning {
	return Warning{Type: TypeWarning, WarningCode: code, Warning: text}
}

// ClientMessage is a parsed client text frame.
type ClientMessage struct {
	Type string
	// Update holds the settings of an UpdateConfiguration applied to the
	// session's current ones; KeytermsChanged says it set keyterms_prompt.
	Update          *Settings
	KeytermsChanged bool
}

// updateKeys are the fields UpdateConfiguration may carry.
var updateKeys = []string{
	"end_of_turn_confidence_threshold", "min_end_of_turn_silence_when_confident", "min_turn_silence",
	"max_turn_silence", "format_turns", "keyterms_prompt", "filter_profanity",
}

// parseClient parses a client text frame; cur are the session's settings,
// which an UpdateConfiguration changes (in the returned copy). Errors are
// 3006: "Invalid JSON", "Invalid Message" (not an object, no type, a
// field of the wrong form or out of range, an unknown field) or "Invalid
// Message Type". Trailing whitespace is fine.
func parseClient(b []byte, cur Settings) (ClientMessage, *Error) {
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return ClientMessage{}, errorf(CloseInputValidation, "Invalid JSON: %s", clip(b))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return ClientMessage{}, errorf(CloseInputValidation, "Invalid Message: %s (a message is a JSON object with a type)", clip(b))
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ == "" {
		return ClientMessage{}, errorf(CloseInputValidation, "Invalid Message: %s has no type string", clip(b))
	}
	msg := ClientMessage{Type: typ}
	switch typ {
	case TypeTerminate, TypeForceEndpoint, TypeKeepAlive:
		if len(m) > 1 {
			return msg, errorf(CloseInputValidation, "Invalid Message: %s takes no fields besides type", typ)
		}
		return msg, nil
	case TypeUpdateConfiguration:
	default:
		return msg, errorf(CloseInputValidation, "Invalid Message Type: %s (Earshot accepts Terminate, ForceEndpoint, KeepAlive, UpdateConfiguration)", clip([]byte(typ)))
	}
	bad := func(key, want string) *Error {
		return errorf(CloseInputValidation, "Invalid Message: UpdateConfiguration %s must be %s, got %s", key, want, clip(m[key]))
	}
	s := cur
	s.Keyterms = slices.Clone(cur.Keyterms)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		raw := m[k]
		switch k {
		case "type":
		case "end_of_turn_confidence_threshold":
			var f float64
			err := json.Unmarshal(raw, &f)
			if err := s.setThreshold(f, err); err != nil || isNull(raw) {
				return msg, bad(k, "a number from 0 to 1")
			}
		case "min_end_of_turn_silence_when_confident", "min_turn_silence", "max_turn_silence":
			var f float64
			if err := json.Unmarshal(raw, &f); err != nil || isNull(raw) || f != math.Trunc(f) || f < 0 || f > float64(MaxTurnSilenceLimit.Milliseconds()) {
				return msg, bad(k, "an integer number of milliseconds from 0 to 10000")
			}
			if k == "max_turn_silence" {
				s.MaxTurnSilence = time.Duration(f) * time.Millisecond
			} else {
				s.MinTurnSilence = time.Duration(f) * time.Millisecond
			}
		case "format_turns", "filter_profanity":
			var v bool
			if err := json.Unmarshal(raw, &v); err != nil || isNull(raw) {
				return msg, bad(k, "true or false")
			}
			if k == "format_turns" {
				s.FormatTurns = v
			} else {
				s.FilterProfanity = v
			}
		case "keyterms_prompt":
			var terms []string
			if err := json.Unmarshal(raw, &terms); err != nil || isNull(raw) {
				return msg, bad(k, "an array of strings")
			}
			t, e := keyterms(terms)
			if e != nil {
				return msg, e
			}
			msg.KeytermsChanged = !slices.Equal(t, cur.Keyterms)
			s.Keyterms = t
		default:
			return msg, errorf(CloseInputValidation, "Invalid Message: UpdateConfiguration has unknown field %q (Earshot accepts %s)", k, strings.Join(updateKeys, ", "))
		}
	}
	if s.MaxTurnSilence < s.MinTurnSilence {
		return msg, errorf(CloseInputValidation, "Invalid Message: max_turn_silence (%d ms) is less than min_turn_silence (%d ms)", s.MaxTurnSilence.Milliseconds(), s.MinTurnSilence.Milliseconds())
	}
	msg.Update = &s
	return msg, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// clip shortens client text quoted in an error.
func clip(b []byte) string {
	const most = 80
	s := strings.ToValidUTF8(string(b), "?")
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "..."
	}
	return s
}
