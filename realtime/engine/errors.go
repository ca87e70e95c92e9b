package engine

import (
	"errors"
	"fmt"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/transcribe"
)

// ErrClosed is returned by Session methods called after Close, Abort or
// a recognizer failure ended the session.
var ErrClosed = errors.New("engine: session closed")

// Op names the recognizer call that failed in a RecognizerError.
type Op string

// Recognizer calls.
const (
	OpOpen         Op = "open"          // StreamRecognizer.NewStream
	OpWrite        Op = "write"         // Stream.Write
	OpPartial      Op = "partial"       // Stream.Partial
	OpEndUtterance Op = "end_utterance" // Stream.EndUtterance
	OpClose        Op = "close"         // Stream.Close
)

// RecognizerError reports a failed call of the session's recognizer
// stream. Its text is for logs, never for a client: it holds whatever the
// engine said. A failure of Write, Partial or EndUtterance ends the
// session (its stream is released); a failure of Close (OpClose) is
// returned after the session ended normally, with its events.
type RecognizerError struct {
	Op  Op
	Err error
}

func (e *RecognizerError) Error() string {
	return fmt.Sprintf("engine: recognizer %s: %v", e.Op, e.Err)
}

// Unwrap returns Err.
func (e *RecognizerError) Unwrap() error { return e.Err }

// Crashed reports whether the engine's process died (an isolated
// engine's worker crashed): errors.Is(Err, transcribe.ErrEngineCrashed).
func (e *RecognizerError) Crashed() bool { return errors.Is(e.Err, transcribe.ErrEngineCrashed) }

// genericCrash is CrashReason's sentence for a crash that says no more.
const genericCrash = "the speech engine crashed while processing this audio"

// CrashReason returns the sentence a client may be shown for an engine
// crash found in err's chain, and whether there is one: an
// *isolate.CrashError's own text ("the speech engine crashed (signal
// SIGSEGV) while processing this audio"), else, for any other error that
// matches transcribe.ErrEngineCrashed, a generic sentence. It goes by
// type (errors.As, errors.Is), never by an error's text.
func CrashReason(err error) (string, bool) {
	var ce *isolate.CrashError
	if errors.As(err, &ce) {
		return ce.Error(), true
	}
	if errors.Is(err, transcribe.ErrEngineCrashed) {
		return genericCrash, true
	}
	return "", false
}

// paramErr is a *transcribe.ParamError (Field names the option).
func paramErr(field, format string, args ...any) error {
	return &transcribe.ParamError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
