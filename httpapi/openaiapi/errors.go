package openaiapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"syscall"

	"github.com/earshot-dev/earshot/transcribe"
)

// Error types of OpenAI's error envelope.
const (
	// TypeInvalidRequest: the request is wrong (400, 401, 404, 405, 413).
	TypeInvalidRequest = "invalid_request_error"
	// TypeServer: the server failed (500, 503, 507).
	TypeServer = "server_error"
	// TypeRateLimit: too many requests (429).
	TypeRateLimit = "requests"
)

// Error is an OpenAI-style API error. It is written as
//
//	{"error": {"message": ..., "type": ..., "param": ..., "code": ...}}
//
// with Status as the HTTP status; an empty Param or Code is written as
// null, as OpenAI does. The SDKs surface Message, Type, Param and Code on
// their APIError (openai-node src/core/error.ts).
type Error struct {
	Status  int    // HTTP status
	Message string // a sentence for the client
	Type    string // TypeInvalidRequest, TypeServer, TypeRateLimit
	Param   string // the form field at fault ("file", "model"), or ""
	Code    string // a machine-readable code ("invalid_api_key"), or ""
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("openaiapi: %d %s (%s): %s", e.Status, e.Type, e.Param, e.Message)
	}
	return fmt.Sprintf("openaiapi: %d %s: %s", e.Status, e.Type, e.Message)
}

// MarshalJSON writes the envelope.
func (e *Error) MarshalJSON() ([]byte, error) {
	type body struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	b := body{Message: e.Message, Type: e.Type}
	if e.Param != "" {
		b.Param = &e.Param
	}
	if e.Code != "" {
		b.Code = &e.Code
	}
	return json.Marshal(struct {
		Error body `json:"error"`
	}{b})
}

func invalid(param, code, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: param, Code: code, Message: fmt.Sprintf(format, args...)}
}

func serverError(status int, msg string) *Error {
	return &Error{Status: status, Type: TypeServer, Message: msg}
}

// writeError writes e as JSON.
func writeError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, e)
}

// writeJSON writes v as application/json with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(serverError(status, "The server had an error while processing your request."))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// paramNames maps the Service's parameter names to the form fields they
// come from, so a *transcribe.ParamError names what the client sent.
var paramNames = map[string]string{
	"speech_model":    "model",
	"speech_models":   "model",
	"language_code":   "language",
	"prompt":          "prompt",
	"keyterms_prompt": "prompt",
	"temperature":     "temperature",
	"audio_url":       "file",
}

// fromService turns an error of Service.Upload or Service.Submit into the
// Error the client sees. Clients see the messages of errors made for them
// (*ParamError, *LimitError) or a fixed sentence; internal chains go to the
// log only. ok is false for errors that are the server's (logged by the
// caller).
func fromService(err error) (e *Error, clientFault bool) {
	var pe *transcribe.ParamError
	var le *transcribe.LimitError
	var re *transcribe.ReadError
	switch {
	case errors.As(err, &pe):
		param := paramNames[pe.Field]
		if param == "" {
			param = pe.Field
		}
		return invalid(param, "", "%s: %s", param, pe.Reason), true
	case errors.As(err, &le):
		return tooLarge(le.Limit), true
	case errors.Is(err, transcribe.ErrTooLarge):
		return &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeInvalidRequest, Param: "file", Message: "The file is too large."}, true
	case errors.Is(err, transcribe.ErrEmptyUpload):
		return invalid("file", "", "The uploaded file is empty."), true
	case errors.As(err, &re):
		return invalid("file", "", "The file could not be read to its end: the request body was cut off or stopped flowing."), true
	case errors.Is(err, transcribe.ErrForbidden):
		return &Error{Status: http.StatusForbidden, Type: TypeInvalidRequest, Message: "The uploaded file belongs to another project."}, true
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return serverError(http.StatusInsufficientStorage, "The server's disk is full; try again later."), false
	case errors.Is(err, transcribe.ErrClosed):
		return serverError(http.StatusServiceUnavailable, "The server is shutting down; try again shortly."), false
	}
	return serverError(http.StatusInternalServerError, "The server had an error while processing your request."), false
}

// tooLarge is OpenAI's 413 (its message reads "Maximum content size limit
// (26214400) exceeded (N bytes read)").
func tooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeInvalidRequest, Param: "file",
		Message: fmt.Sprintf("Maximum content size limit (%d) exceeded: the file is larger than %d bytes.", limit, limit)}
}

// Reasons the Service gives a failed transcript for the server's own
// failures (transcribe/worker.go reasonFor). Any other reason is about
// the media and safe to show (a *MediaError). Matching on them is the only
// way to tell the two apart on a Transcript; TestEngineFailures fails if
// the Service's sentences change.
const (
	reasonUnavailable = "the speech engine is unavailable; try again later"
	reasonInternal    = "internal error while processing the media"
)

// fromTranscript is the Error for a transcript that ended in status error.
func fromTranscript(t *transcribe.Transcript) *Error {
	reason := "transcription failed"
	if t.Error != nil {
		reason = *t.Error
	}
	switch reason {
	case reasonUnavailable:
		return serverError(http.StatusServiceUnavailable, "The speech engine is unavailable; try again later.")
	case reasonInternal:
		return serverError(http.StatusInternalServerError, "The server had an error while processing your request.")
	case transcribe.DeletedText:
		return serverError(http.StatusInternalServerError, "The transcript was deleted before it completed.")
	}
	return invalid("file", "", "The audio could not be transcribed: %s", reason)
}
