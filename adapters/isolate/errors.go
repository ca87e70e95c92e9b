package isolate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
)

var (
	// ErrClosed is returned by calls on a closed Recognizer or Stream, and
	// by calls cut off because Close stopped their worker. It wraps
	// transcribe.ErrClosed, so the Service resumes such a job later
	// instead of failing it.
	ErrClosed = fmt.Errorf("isolate: closed: %w", transcribe.ErrClosed)
	// ErrNotStreaming is returned by NewStream when the engine does not
	// implement transcribe.StreamRecognizer (Features().Streaming false).
	ErrNotStreaming = errors.New("isolate: the engine does not stream")
	// ErrNotRegistered is wrapped by New, and by a worker's start-up
	// error, when Config.Engine names no engine given to Register in this
	// binary.
	ErrNotRegistered = errors.New("isolate: engine not registered")

	errUnsupported = errors.New("isolate: worker processes need a Unix system (file descriptor passing, process groups)")
)

// CrashError reports a worker process that died (a signal, an exit, a
// closed pipe) while it held a request or a stream. It unwraps to
// transcribe.ErrEngineCrashed, and Error() is written for the person who
// submitted the audio: "the speech engine crashed (signal SIGSEGV) while
// processing this audio". The details a developer needs (the child's
// last stderr lines, its pid) are logged to Config.Logger.
type CrashError struct {
	Engine string // Config.Engine
	PID    int    // the worker's process id
	// Signal is the signal that ended the worker ("SIGSEGV", "SIGABRT",
	// "SIGKILL"), whether the kernel delivered it or the Go runtime
	// caught it and reported it before exiting; "" when none.
	Signal string
	// ExitCode is the worker's exit status, -1 when a signal killed it.
	ExitCode int
	// Cause is a short description in plain words when the worker said
	// more than a signal: "out of memory", "internal error",
	// "stopped responding"; "" otherwise.
	Cause string
}

func (e *CrashError) Error() string {
	const what = "while processing this audio"
	switch {
	case e.Cause == "stopped responding":
		return "the speech engine stopped responding " + what
	case e.Cause == "out of memory":
		return "the speech engine ran out of memory " + what
	case e.Signal == "SIGKILL":
		return "the speech engine was killed (signal SIGKILL, often a sign that the machine ran out of memory) " + what
	case e.Signal != "":
		return fmt.Sprintf("the speech engine crashed (signal %s) %s", e.Signal, what)
	case e.Cause != "":
		return fmt.Sprintf("the speech engine crashed (%s) %s", e.Cause, what)
	default:
		return fmt.Sprintf("the speech engine exited unexpectedly (exit status %d) %s", e.ExitCode, what)
	}
}

// Unwrap returns transcribe.ErrEngineCrashed.
func (e *CrashError) Unwrap() error { return transcribe.ErrEngineCrashed }

// classify fills Signal and Cause from what the Go runtime of a crashed
// worker wrote to stderr. A native crash inside a Go program (a SIGSEGV in
// C code called through purego or cgo) is caught by the runtime, which
// prints "SIGSEGV: segmentation violation" and exits with status 2 rather
// than dying of the signal, so the exit status alone would hide it.
func (e *CrashError) classify(stderr []string) {
	for _, l := range stderr {
		switch {
		case e.Signal == "" && strings.HasPrefix(l, "SIG") && strings.Contains(l, ": "):
			name := l[:strings.Index(l, ": ")]
			if isSignalName(name) {
				e.Signal = name
			}
		case e.Signal == "" && strings.HasPrefix(l, "[signal SIG"):
			// "[signal SIGSEGV: segmentation violation code=... addr=...]"
			rest := l[len("[signal "):]
			if i := strings.IndexAny(rest, ": ]"); i > 0 && isSignalName(rest[:i]) {
				e.Signal = rest[:i]
			}
		case e.Cause == "" && strings.HasPrefix(l, "fatal error: ") && strings.Contains(l, "out of memory"):
			e.Cause = "out of memory"
		case e.Cause == "" && (strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ")):
			e.Cause = "internal error"
		}
	}
}

func isSignalName(s string) bool {
	if len(s) < 4 || len(s) > 10 || !strings.HasPrefix(s, "SIG") {
		return false
	}
	for _, r := range s[3:] {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
