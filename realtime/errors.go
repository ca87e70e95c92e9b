package realtime

import (
	"errors"
	"fmt"

	"github.com/earshot-dev/earshot/realtime/engine"
	"github.com/earshot-dev/earshot/transcribe"
)

// CloseCode is a WebSocket close status code used by /v2/realtime/ws.
type CloseCode int

// Close codes. The reasons the service sends with each are in the
// CloseError values below (ErrNotAuthorized, ...).
const (
	CloseNormal              CloseCode = 1000 // after SessionTerminated
	CloseTryAgainLater       CloseCode = 1013 // at capacity, or reconnect attempts exhausted
	CloseBadSampleRate       CloseCode = 4000 // sample_rate is not a usable positive integer
	CloseNotAuthorized       CloseCode = 4001 // bad or missing API key or token
	CloseSessionNotFound     CloseCode = 4004 // resume of an unknown session id
	CloseSessionExpired      CloseCode = 4008 // session or resume window expired
	CloseSessionClosed       CloseCode = 4010 // resume of a terminated session
	CloseRateLimited         CloseCode = 4029 // audio sent faster than real time for too long
	CloseUniqueSession       CloseCode = 4030 // second WebSocket to a live session
	CloseSessionIdle         CloseCode = 4031 // no audio for IdleTimeout
	CloseAudioTooShort       CloseCode = 4032 // audio message shorter than MinAudioPerMessage
	CloseAudioTooLong        CloseCode = 4033 // audio message longer than MaxAudioPerMessage
	CloseBadJSON             CloseCode = 4100 // text frame is not JSON
	CloseBadSchema           CloseCode = 4101 // JSON message of an unknown or invalid shape
	CloseTooManyStreams      CloseCode = 4102 // project at MaxSessionsPerProject
	CloseBadWordBoost        CloseCode = 4104 // word_boost is not a JSON list of strings, or too long
	CloseInternalServerError CloseCode = 1011 // recognizer failure
)

// CloseError ends a connection (and usually its session) with Code and
// Reason. Engine and Handler methods return it; errors.As finds it. The
// transport sends {"error": Reason} and then closes with Code and Reason.
type CloseError struct {
	Code   CloseCode
	Reason string // close reason, at most 123 bytes
	// Detail, when set, is sent as the {"error": ...} text instead of
	// Reason, to say exactly what was wrong.
	Detail string
}

func (e *CloseError) Error() string {
	if e.Detail != "" && e.Detail != e.Reason {
		return fmt.Sprintf("realtime: close %d %s: %s", e.Code, e.Reason, e.Detail)
	}
	return fmt.Sprintf("realtime: close %d %s", e.Code, e.Reason)
}

// Is matches another *CloseError with the same Code, so
// errors.Is(err, ErrAudioTooShort) works whatever the Detail.
func (e *CloseError) Is(target error) bool {
	t, ok := target.(*CloseError)
	return ok && t.Code == e.Code
}

// Message returns the text for the {"error": ...} message.
func (e *CloseError) Message() string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.Reason
}

func (e *CloseError) with(detail string, args ...any) *CloseError {
	c := *e
	c.Detail = fmt.Sprintf(detail, args...)
	return &c
}

// The close errors, one per code, with the reasons from the spec.
var (
	ErrNotAuthorized       = &CloseError{Code: CloseNotAuthorized, Reason: "Not Authorized"}
	ErrBadSampleRate       = &CloseError{Code: CloseBadSampleRate, Reason: "Sample rate must be a positive integer"}
	ErrSessionNotFound     = &CloseError{Code: CloseSessionNotFound, Reason: "Session not found"}
	ErrSessionExpired      = &CloseError{Code: CloseSessionExpired, Reason: "Session Expired"}
	ErrSessionClosed       = &CloseError{Code: CloseSessionClosed, Reason: "Session previously closed"}
	ErrRateLimited         = &CloseError{Code: CloseRateLimited, Reason: "Client sent audio too fast"}
	ErrUniqueSession       = &CloseError{Code: CloseUniqueSession, Reason: "Unique session violation"}
	ErrSessionIdle         = &CloseError{Code: CloseSessionIdle, Reason: "Session idle for too long"}
	ErrAudioTooShort       = &CloseError{Code: CloseAudioTooShort, Reason: "Audio duration is too short"}
	ErrAudioTooLong        = &CloseError{Code: CloseAudioTooLong, Reason: "Audio duration is too long"}
	ErrBadJSON             = &CloseError{Code: CloseBadJSON, Reason: "Endpoint received invalid JSON"}
	ErrBadSchema           = &CloseError{Code: CloseBadSchema, Reason: "Endpoint received a message with an invalid schema"}
	ErrTooManyStreams      = &CloseError{Code: CloseTooManyStreams, Reason: "Too many concurrent sessions"}
	ErrBadWordBoost        = &CloseError{Code: CloseBadWordBoost, Reason: "Could not parse word boost parameter"}
	ErrReconnectsExhausted = &CloseError{Code: CloseTryAgainLater, Reason: "Temporary server condition forced blocking client's request"}
	ErrRecognizer          = &CloseError{Code: CloseInternalServerError, Reason: "Internal server error"}
)

// ErrSessionEnded is returned by Session methods called after the session
// was terminated or expired.
var ErrSessionEnded = errors.New("realtime: session has ended")

// closeErrors lists every CloseError, for tests and documentation.
func closeErrors() []*CloseError {
	return []*CloseError{ErrNotAuthorized, ErrBadSampleRate, ErrSessionNotFound, ErrSessionExpired,
		ErrSessionClosed, ErrRateLimited, ErrUniqueSession, ErrSessionIdle, ErrAudioTooShort,
		ErrAudioTooLong, ErrBadJSON, ErrBadSchema, ErrTooManyStreams, ErrBadWordBoost,
		ErrReconnectsExhausted, ErrRecognizer}
}

// maxCloseReason is the longest close reason a WebSocket close frame holds.
const maxCloseReason = 123

// recognizerClose is the close for an engine failure: for an engine
// crash (engine.CrashReason: errors.As an *isolate.CrashError, or
// errors.Is transcribe.ErrEngineCrashed) the crash's own sentence as a
// 1011 reason; for anything else a generic 1011. The recognizer's own
// text is for the log, never for the client.
func recognizerClose(err error) *CloseError {
	if reason, ok := engine.CrashReason(err); ok {
		if len(reason) > maxCloseReason {
			reason = reason[:maxCloseReason]
		}
		return &CloseError{Code: CloseInternalServerError, Reason: reason}
	}
	return ErrRecognizer.with("the speech recognizer failed; the session has ended")
}

// openClose maps an error of opening a session (startStream) to the close
// the client gets, by type: a *CloseError as it is; a
// *transcribe.ParamError by paramClose; a refusal of the Admission
// (ErrAtCapacity, or any other error it returns) 1013; an engine crash
// its sentence; anything else a generic 1011 (the caller logs the error).
func openClose(err error) *CloseError {
	var ce *CloseError
	var pe *transcribe.ParamError
	var ae *admissionError
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &pe):
		return paramClose(pe)
	case errors.Is(err, ErrAtCapacity):
		// A *CapacityError's text is written for the client.
		var cap *CapacityError
		if errors.As(err, &cap) {
			return ErrReconnectsExhausted.with("%s", cap.Error())
		}
		return ErrReconnectsExhausted.with("the server is at capacity; try again later")
	case errors.As(err, &ae):
		return ErrReconnectsExhausted.with("the server is not taking new sessions now; try again later")
	}
	return recognizerClose(err)
}

// paramClose is the v2 close for an option the engine or the recognizer
// refused: the protocol gives sample_rate (4000) and word_boost (4104)
// codes of their own, every other option 4101. The ParamError's text
// names the option and the rule, and is sent.
func paramClose(pe *transcribe.ParamError) *CloseError {
	switch pe.Field {
	case "sample_rate":
		return ErrBadSampleRate.with("%s", pe.Error())
	case "word_boost":
		return ErrBadWordBoost.with("%s", pe.Error())
	}
	return ErrBadSchema.with("%s", pe.Error())
}

// admissionError wraps an error of Config.Admission that is not a
// *CloseError or ErrAtCapacity, so openClose knows it for a refusal.
type admissionError struct{ err error }

func (e *admissionError) Error() string { return "realtime: admission refused: " + e.err.Error() }
func (e *admissionError) Unwrap() error { return e.err }
