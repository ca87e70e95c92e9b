package realtime

import (
	"time"

	"github.com/earshot-dev/earshot/internal/wire"
)

// MessageType is the message_type of a server message.
type MessageType string

// Server message types.
const (
	TypeSessionBegins      MessageType = "SessionBegins"
	TypeSessionResumed     MessageType = "SessionResumed"
	TypePartialTranscript  MessageType = "PartialTranscript"
	TypeFinalTranscript    MessageType = "FinalTranscript"
	TypeSessionInformation MessageType = "SessionInformation"
	TypeSessionTerminated  MessageType = "SessionTerminated"
)

// MessageTypes lists the server message types.
func MessageTypes() []MessageType {
	return []MessageType{TypeSessionBegins, TypeSessionResumed, TypePartialTranscript,
		TypeFinalTranscript, TypeSessionInformation, TypeSessionTerminated}
}

// Message is a server-to-client message; each is sent as one JSON text
// frame.
type Message interface {
	Type() MessageType
}

// TimeLayout formats created and expires_at like the real service
// (2022-11-04T14:14:36.994363, UTC, no zone).
const TimeLayout = wire.TimeLayout

func wireTime(t time.Time) string { return wire.Time(t) }

// SessionBegins is the first message of a new session. The Go SDK reads
// the first message of a connection as this type without checking
// message_type.
type SessionBegins struct {
	MessageType MessageType `json:"message_type"`
	SessionID   string      `json:"session_id"`
	ExpiresAt   string      `json:"expires_at"`
}

// Type implements Message.
func (SessionBegins) Type() MessageType { return TypeSessionBegins }

// SessionResumed is the first message of a resumed session. It carries
// expires_at too, so a client that reads it as SessionBegins (the Go SDK)
// gets both fields.
type SessionResumed struct {
	MessageType MessageType `json:"message_type"`
	SessionID   string      `json:"session_id"`
	ExpiresAt   string      `json:"expires_at"`
}

// Type implements Message.
func (SessionResumed) Type() MessageType { return TypeSessionResumed }

// Word is a word of a streaming transcript; times are milliseconds since
// the session started.
type Word struct {
	Start      int64   `json:"start"`
	End        int64   `json:"end"`
	Confidence float64 `json:"confidence"`
	Text       string  `json:"text"`
}

// PartialTranscript is the current hypothesis of the open utterance:
// lowercase, unpunctuated, revised by later partials.
type PartialTranscript struct {
	MessageType MessageType `json:"message_type"`
	SessionID   string      `json:"session_id"`
	AudioStart  int64       `json:"audio_start"`
	AudioEnd    int64       `json:"audio_end"`
	Confidence  float64     `json:"confidence"`
	Text        string      `json:"text"`
	Words       []Word      `json:"words"`
	Created     string      `json:"created"`
}

// Type implements Message.
func (PartialTranscript) Type() MessageType { return TypePartialTranscript }

// FinalTranscript is a finished utterance, punctuated and cased by
// Config.Format.
type FinalTranscript struct {
	MessageType   MessageType `json:"message_type"`
	SessionID     string      `json:"session_id"`
	AudioStart    int64       `json:"audio_start"`
	AudioEnd      int64       `json:"audio_end"`
	Confidence    float64     `json:"confidence"`
	Text          string      `json:"text"`
	Words         []Word      `json:"words"`
	Created       string      `json:"created"`
	Punctuated    bool        `json:"punctuated"`
	TextFormatted bool        `json:"text_formatted"`
}

// Type implements Message.
func (FinalTranscript) Type() MessageType { return TypeFinalTranscript }

// SessionInformation reports the audio received; sent just before
// SessionTerminated.
type SessionInformation struct {
	MessageType          MessageType `json:"message_type"`
	SessionID            string      `json:"session_id"`
	AudioDurationSeconds float64     `json:"audio_duration_seconds"`
}

// Type implements Message.
func (SessionInformation) Type() MessageType { return TypeSessionInformation }

// SessionTerminated confirms terminate_session; the server then closes
// with 1000.
type SessionTerminated struct {
	MessageType MessageType `json:"message_type"`
	SessionID   string      `json:"session_id"`
}

// Type implements Message.
func (SessionTerminated) Type() MessageType { return TypeSessionTerminated }

// ErrorMessage is {"error": "..."}, sent before an error close. It has no
// message_type.
type ErrorMessage struct {
	Error string `json:"error"`
}

// Type implements Message; it returns "".
func (ErrorMessage) Type() MessageType { return "" }
