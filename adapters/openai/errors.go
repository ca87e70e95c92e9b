package openai

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/earshot-dev/earshot/transcribe"
)

// ErrClosed is returned by a Recognizer after Close.
var ErrClosed = errors.New("openai: recognizer closed")

// Error is a transcription request the engine did not complete. It wraps
// transcribe.ErrUnavailable when the engine could not do the work — it was
// unreachable, gave no answer within Config.Timeout, or kept answering 429
// or 5xx — so the Service can tell an engine outage from a request the
// engine refuses (any other 4xx) or an answer it cannot read.
type Error struct {
	// Engine is Config.Name.
	Engine string
	// URL is the request's URL.
	URL string
	// StatusCode is the last HTTP status; 0 when the engine never
	// answered.
	StatusCode int
	// Message is the engine's error message, or what went wrong.
	Message string
	// Attempts is how many times the request was sent.
	Attempts int
	// Timeout: the last attempt got no answer within Config.Timeout.
	Timeout bool
	// Err is the transport error of the last attempt, if any.
	Err error
	// Refused: the engine answered 200 with an error object and no
	// transcription ({"error": "failed to read audio data"}), as
	// whisper-server did before it answered 400 (f0d2bfbf, 2025-04). It is
	// a refusal like a 400 (Refusal), never retried.
	Refused bool

	// media is set by Recognize when the engine refused Earshot's own
	// WAV: the job fails with its reason rather than a generic one.
	media *transcribe.MediaError
}

// Refusal reports whether the engine refused the request's content: 400,
// 415 or 422, or a 200 with an error (Refused). RecognizeFile then returns
// transcribe.ErrFileNotTaken, so the Service sends decoded pieces instead;
// Recognize wraps a *transcribe.MediaError naming the engine's reason.
func (e *Error) Refusal() bool {
	switch e.StatusCode {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
		return true
	}
	return e.Refused
}

// Unavailable reports whether the engine could not do the work (no answer,
// 429 or 5xx), as opposed to refusing the request or answering badly.
func (e *Error) Unavailable() bool {
	return e.StatusCode == 0 || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

func (e *Error) Error() string {
	tries := ""
	if e.Attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	prefix := fmt.Sprintf("%s: POST %s", e.Engine, e.URL)
	switch {
	case e.Timeout:
		return fmt.Sprintf("%s: %s%s", prefix, e.Message, tries)
	case e.StatusCode == 0:
		return fmt.Sprintf("%s: speech engine unreachable%s: %s", prefix, tries, e.Message)
	case e.Refused:
		return fmt.Sprintf("%s: refused with HTTP 200: %s", prefix, e.Message)
	case e.StatusCode == http.StatusOK:
		return fmt.Sprintf("%s: %s", prefix, e.Message)
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	hint := ""
	switch e.StatusCode {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		hint = " (is the URL the engine's transcription endpoint? check BaseURL and Path)"
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check APIKey)"
	case http.StatusRequestEntityTooLarge:
		hint = " (lower MaxRequestBytes or MaxChunk to the engine's limit)"
	}
	return fmt.Sprintf("%s: HTTP %d%s: %s%s", prefix, e.StatusCode, tries, msg, hint)
}

// Outage reports whether the engine is down or overloaded rather than
// failing on this request: unreachable (no answer at all, not a timeout),
// 429, 502, 503 or 504. The Service waits such an outage out
// (transcribe.ErrEngineUnavailable) instead of failing the job.
func (e *Error) Outage() bool {
	switch e.StatusCode {
	case 0:
		return !e.Timeout
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Unwrap returns transcribe.ErrUnavailable when Unavailable,
// transcribe.ErrEngineUnavailable when Outage, Err, and, for a refusal of
// the audio Recognize sent, a *transcribe.MediaError with the engine's
// reason.
func (e *Error) Unwrap() []error {
	var out []error
	if e.Unavailable() {
		out = append(out, transcribe.ErrUnavailable)
	}
	if e.Outage() {
		out = append(out, transcribe.ErrEngineUnavailable)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	if e.media != nil {
		out = append(out, e.media)
	}
	return out
}
