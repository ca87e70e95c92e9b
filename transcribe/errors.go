package transcribe

import (
	"errors"
	"fmt"
)

// Sentinel errors. Adapters wrap them (fmt.Errorf("...: %w", ErrNotFound));
// callers test with errors.Is. httpapi maps them to status codes.
var (
	// ErrNotFound: the transcript, upload, blob or delivery does not exist
	// (or belongs to another project).
	ErrNotFound = errors.New("transcribe: not found")
	// ErrForbidden: the upload belongs to another project.
	ErrForbidden = errors.New("transcribe: forbidden")
	// ErrNotReady: the operation needs a completed transcript.
	ErrNotReady = errors.New("transcribe: transcript not ready")
	// ErrNoJob: ClaimJob / ClaimDelivery found nothing to do.
	ErrNoJob = errors.New("transcribe: no job available")
	// ErrExists: Create with an id already present.
	ErrExists = errors.New("transcribe: already exists")
	// ErrEmptyUpload: an upload body with no bytes.
	ErrEmptyUpload = errors.New("transcribe: upload is empty")
	// ErrTooLarge: an upload or media file exceeds a configured cap.
	ErrTooLarge = errors.New("transcribe: too large")
	// ErrLeaseLost: the job's lease was taken over by another worker.
	ErrLeaseLost = errors.New("transcribe: lease lost")
	// ErrUnavailable: a required engine (library, model, program) is missing.
	ErrUnavailable = errors.New("transcribe: engine unavailable")
	// ErrEngineCrashed: the speech engine's process died while it held this
	// work (a native crash in an isolated engine). The job caused it; the
	// Service counts it against the job and never resumes a job that has
	// crashed an engine twice.
	ErrEngineCrashed = errors.New("transcribe: speech engine crashed")
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
