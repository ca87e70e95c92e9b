package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"syscall"

	"github.com/earshot-dev/earshot/internal/wire"
	"github.com/earshot-dev/earshot/transcribe"
)

// writeJSON writes v as a JSON response (wire.WriteJSON).
func writeJSON(w http.ResponseWriter, status int, v any) { wire.WriteJSON(w, status, v) }

type errorBody struct {
	Error string `json:"error"`
}

// writeError writes {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

// writeErr maps an error from transcribe to an HTTP status and message.
// This is the one place where errors become status codes. Every 5xx is
// logged with its cause; a store outage (see outage) is 503 with
// Retry-After.
func (a *API) writeErr(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := a.classify(r.Context(), err)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(outageRetryAfter))
	}
	if status >= 500 {
		a.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	}
	writeError(w, status, msg)
}

// bodyError is an error reading or decoding the request body: the only
// errors that are the client's because of their type alone (a truncated
// body is io.ErrUnexpectedEOF, which is also what a database driver
// returns for a cut connection, so only the decode site may call it 400).
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "request body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

// asBodyError marks err as the request body's; nil stays nil.
func asBodyError(err error) error {
	if err == nil {
		return nil
	}
	return &bodyError{err: err}
}

// Clients see the message of an error made for them (*ParamError,
// *NotReadyError, *LimitError, request body errors) or a fixed sentence
// per kind; internal error chains (file names, adapter messages) only go
// to the log.
func (a *API) classify(ctx context.Context, err error) (int, string) {
	var pe *transcribe.ParamError
	var nr *transcribe.NotReadyError
	var le *transcribe.LimitError
	var be *bodyError
	var ic *idempotencyConflict
	switch {
	case errors.As(err, &be):
		return classifyBody(be.err)
	case errors.As(err, &ic):
		return http.StatusUnprocessableEntity, ic.Error()
	case errors.As(err, &pe):
		return http.StatusBadRequest, pe.Error()
	case errors.As(err, &nr):
		return http.StatusBadRequest, nr.Reason
	case errors.As(err, &le):
		return http.StatusRequestEntityTooLarge, le.Error()
	case errors.Is(err, transcribe.ErrNotFound):
		return http.StatusNotFound, "Transcript not found"
	case errors.Is(err, transcribe.ErrForbidden):
		return http.StatusForbidden, "Cannot access uploaded file"
	case errors.Is(err, transcribe.ErrNotReady):
		return http.StatusBadRequest, "Transcript is not ready"
	case errors.Is(err, transcribe.ErrTooLarge):
		return http.StatusRequestEntityTooLarge, "Request is too large"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return http.StatusInsufficientStorage, "Insufficient storage: the server's disk is full; try again later"
	}
	if reason, ok := a.outage(ctx, err); ok {
		return http.StatusServiceUnavailable, reason
	}
	return http.StatusInternalServerError, "Internal server error"
}

// classifyBody maps an error of reading or decoding the request body.
func classifyBody(err error) (int, string) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than the limit of %d bytes", mbe.Limit)
	case errors.As(err, &syn):
		return http.StatusBadRequest, fmt.Sprintf("request body is not valid JSON: %v", syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return http.StatusBadRequest, fmt.Sprintf("request body must be a JSON object, not %s", typ.Value)
		}
		return http.StatusBadRequest, fmt.Sprintf("%s: must be of type %s, got %s", field, jsonType(typ.Type.String()), typ.Value)
	case errors.Is(err, errBadJSON):
		return http.StatusBadRequest, errBadJSON.Error()
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return http.StatusBadRequest, "request body is empty or truncated JSON"
	}
	return http.StatusBadRequest, "request body could not be read"
}

var errBadJSON = errors.New("request body must be a single JSON object")

func jsonType(goType string) string {
	switch goType {
	case "bool", "*bool":
		return "boolean"
	case "string", "*string":
		return "string"
	case "int64", "*int64", "int", "*int":
		return "integer"
	case "float64", "*float64":
		return "number"
	}
	if len(goType) > 2 && goType[:2] == "[]" {
		return "array"
	}
	return "object"
}

// logger returns l or the default.
func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}
