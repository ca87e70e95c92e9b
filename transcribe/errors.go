package transcribe

import (
	"errors"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe/driver"
)

// Sentinel errors. Adapters wrap them (fmt.Errorf("...: %w", ErrNotFound));
// callers test with errors.Is. httpapi maps them to status codes. Those
// of the storage contracts are package driver's, under the same names.
var (
	// ErrNotFound: the transcript, upload, blob or delivery does not exist
	// (or belongs to another project).
	ErrNotFound = driver.ErrNotFound
	// ErrForbidden: the upload belongs to another project.
	ErrForbidden = errors.New("transcribe: forbidden")
	// ErrNotReady: the operation needs a completed transcript.
	ErrNotReady = errors.New("transcribe: transcript not ready")
	// ErrNoJob: ClaimJob found nothing to do.
	ErrNoJob = driver.ErrNoJob
	// ErrExists: Create with an id already present.
	ErrExists = driver.ErrExists
	// ErrEmptyUpload: an upload body with no bytes.
	ErrEmptyUpload = errors.New("transcribe: upload is empty")
	// ErrTooLarge: an upload or media file exceeds a configured cap.
	ErrTooLarge = errors.New("transcribe: too large")
	// ErrLeaseLost: the job's lease was taken over by another worker.
	ErrLeaseLost = driver.ErrLeaseLost
	// ErrUnavailable: a required engine (library, model, program) is missing.
	ErrUnavailable = errors.New("transcribe: engine unavailable")
	// ErrEngineUnavailable: the speech engine could not be reached or
	// answered that it cannot work now (connection refused, 502, 503, 504,
	// 429): an outage of the engine, not a fault of the job. Adapters of
	// remote engines wrap it; the Service waits and retries such a call for
	// Config.OutageWindow before it fails the job, without counting an
	// attempt.
	ErrEngineUnavailable = errors.New("transcribe: speech engine unavailable")
	// ErrStorageUnavailable: the blob store could not be reached or
	// answered 5xx: an outage, handled like ErrEngineUnavailable (the job
	// waits for it). BlobStore adapters of remote stores wrap it.
	ErrStorageUnavailable = driver.ErrStorageUnavailable
	// ErrEngineCrashed: the speech engine's process died while it held this
	// work (a native crash in an isolated engine). The job caused it; the
	// Service counts it against the job and never resumes a job that has
	// crashed an engine twice.
	ErrEngineCrashed = errors.New("transcribe: speech engine crashed")
	// ErrNotificationRefused: a Notifier will never queue this
	// Notification (its URL or header is invalid); the Service logs it and
	// does not retry it.
	ErrNotificationRefused = errors.New("transcribe: notification refused")
	// ErrClosed: an adapter (recognizer, store) was used after Close. A job
	// that gets it was cut off by a shutdown and is resumed later; it never
	// fails the transcript.
	ErrClosed = driver.ErrClosed
)

// ParamError reports a request parameter that breaks a rule of the spec.
// httpapi turns it into HTTP 400 {"error": Error()}.
type ParamError struct {
	Field  string // JSON name of the offending parameter, e.g. "speaker_labels"
	Reason string // human-readable rule that was broken
}

func (e *ParamError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Reason)
}

func paramErr(field, format string, args ...any) *ParamError {
	return &ParamError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// MediaError is a processing failure caused by the submitted media (empty,
// undecodable, silent, too long). It ends the transcript in status error
// with Error() as the reason.
type MediaError struct{ Reason string }

func (e *MediaError) Error() string { return e.Reason }

// NotReadyError reports an operation that needs a state the transcript is
// not in (exports of an unfinished transcript, redacted audio that was not
// requested or has expired). Reason is a sentence safe to show a client.
// It matches ErrNotReady with errors.Is.
type NotReadyError struct{ Reason string }

func (e *NotReadyError) Error() string { return e.Reason }

// Is reports whether target is ErrNotReady.
func (e *NotReadyError) Is(target error) bool { return target == ErrNotReady }

func notReady(format string, args ...any) error {
	return &NotReadyError{Reason: fmt.Sprintf(format, args...)}
}

// LimitError reports input over a configured cap (an upload larger than
// MaxUploadBytes). It matches ErrTooLarge with errors.Is; Error() is safe
// to show a client.
type LimitError struct {
	What  string // "upload"
	Limit int64
	Unit  string // "bytes"
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the %s exceeds the limit of %d %s", e.What, e.Limit, e.Unit)
}

// Is reports whether target is ErrTooLarge.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }

// ReadError reports that a request body could not be read to its end (the
// client went away or sent a truncated chunked body). Err is the reader's
// error.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return "transcribe: reading the upload: " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }
