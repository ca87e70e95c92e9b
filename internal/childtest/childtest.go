package childtest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// EnvVar is set in a child's environment to the name of the test it runs.
const EnvVar = "EARSHOT_CHILDTEST"

// stateVar names the file in which the child records its progress.
const stateVar = "EARSHOT_CHILDTEST_STATE"

// Progress lines in the state file.
const (
	markStarted  = "started\n"
	markFinished = "finished\n"
)

// DefaultTimeout bounds a child when the parent test has no deadline.
const DefaultTimeout = 10 * time.Minute

// excerptLen bounds the output quoted in an Error.
const excerptLen = 6000

// Options configures a child run. The zero value is the default.
type Options struct {
	// Env holds extra "KEY=value" entries for the child, after the
	// parent's environment (so they override it). Default none.
	Env []string
	// Timeout bounds the child's run. Default: the parent test's remaining
	// time (t.Deadline) less a tenth and at least 5 s kept for reporting,
	// or DefaultTimeout when the test has no deadline. A child past its
	// timeout is killed and the test fails with Error.TimedOut.
	Timeout time.Duration
}

// Result is what a child run did. Exec returns it; Err judges it.
type Result struct {
	// Test is the test the child ran (t.Name()).
	Test string
	// Output is the child's stdout and stderr together.
	Output string
	// ExitCode is the child's exit status, -1 when a signal killed it.
	ExitCode int
	// Signal names the signal that ended the child ("SIGSEGV"), from the
	// wait status or from the Go runtime's crash report; "" when none.
	Signal string
	// CgoCrash reports that the runtime said "signal arrived during cgo
	// execution": the fault was in C code.
	CgoCrash bool
	// Started reports that the child reached the test body; Finished that
	// the body returned (passing or failing) and its cleanups ran.
	Started, Finished bool
	// TimedOut reports that the child was killed at Options.Timeout.
	TimedOut bool
	// Duration is the child's wall time, CPU its user plus system time.
	Duration, CPU time.Duration
	// StartErr is set when the child could not be started at all.
	StartErr error
}

// Error is a child that did not pass, as returned by Result.Err.
type Error struct {
	// Test is the test the child ran.
	Test string
	// Reason says what happened, e.g. "child died with SIGSEGV (signal
	// arrived during cgo execution)".
	Reason string
	// Excerpt is the part of the child's output that shows why: the
	// crash report from the signal line on, or the output's tail.
	Excerpt string
	// Result is the whole run.
	Result *Result
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s\n--- child output ---\n%s", e.Test, e.Reason, e.Excerpt)
}

// ErrChildFailed is wrapped by every *Error (errors.Is(err, ErrChildFailed)).
var ErrChildFailed = errors.New("childtest: child test did not pass")

// Unwrap lets errors.Is match ErrChildFailed.
func (e *Error) Unwrap() error { return ErrChildFailed }

// Run runs body in a child process (see the package doc) and fails t when
// the child does not pass. In the child it runs body(t) directly.
func Run(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	Options{}.Run(t, body)
}

// Run is the package's Run with these options.
func (o Options) Run(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	if InChild(t) {
		body(t)
		return
	}
	r := o.Exec(t)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		took := fmt.Sprintf("child passed in %v (%v CPU)", r.Duration.Round(time.Millisecond), r.CPU.Round(time.Millisecond))
		if l := childLog(r.Output); l != "" {
			t.Logf("%s; it logged:\n%s", took, l)
		} else {
			t.Log(took)
		}
	}
}

// InChild reports whether this process is the child started for t. When it
// is, it records that the body started and registers a cleanup recording
// that it finished; call it once, first thing, in the test (or subtest)
// the child was started for.
func InChild(t testing.TB) bool {
	t.Helper()
	if os.Getenv(EnvVar) != t.Name() {
		return false
	}
	state := os.Getenv(stateVar)
	mark := func(s string) {
		if state == "" {
			return
		}
		f, err := os.OpenFile(state, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Errorf("childtest: recording progress: %v", err)
			return
		}
		_, err = f.WriteString(s)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Errorf("childtest: recording progress: %v", err)
		}
	}
	mark(markStarted)
	t.Cleanup(func() { mark(markFinished) })
	return true
}

// Exec starts the child for t (re-executing os.Args[0] with -test.run
// selecting exactly t.Name()), waits for it and returns what it did,
// without failing t. Calling it from inside a child is an error reported in
// Result.StartErr (children do not nest).
func (o Options) Exec(t testing.TB) *Result {
	t.Helper()
	r := &Result{Test: t.Name(), ExitCode: -1}
	if os.Getenv(EnvVar) != "" {
		r.StartErr = fmt.Errorf("childtest: Exec called inside the child for %q", os.Getenv(EnvVar))
		return r
	}
	timeout := o.timeout(t)
	state := filepath.Join(t.TempDir(), "childtest-state")
	args := []string{
		"-test.run=" + RunPattern(t.Name()),
		"-test.count=1",
		"-test.timeout=" + timeout.String(),
		// Always verbose, so that what the body logged before a crash is
		// in the output (Run shows it only on failure or with -v).
		"-test.v=true",
		fmt.Sprintf("-test.short=%v", testing.Short()),
	}
	if f := flag.Lookup("test.gocoverdir"); f != nil && f.Value.String() != "" {
		args = append(args, "-test.gocoverdir="+f.Value.String())
	}
	// The context outlives -test.timeout by a little, so that the child's
	// own timeout panic (with its goroutines) comes first.
	ctx, cancel := context.WithTimeout(context.Background(), timeout+3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), EnvVar+"="+t.Name(), stateVar+"="+state), o.Env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	r.Duration = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = ps.UserTime() + ps.SystemTime()
	}
	r.Output = out.String()
	if b, rerr := os.ReadFile(state); rerr == nil {
		r.Started = strings.Contains(string(b), markStarted)
		r.Finished = strings.Contains(string(b), markFinished)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.ExitCode = 0
	case errors.As(err, &ee):
		r.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.Signal = signalName(ws.Signal())
		}
	default:
		r.StartErr = err
	}
	if ctx.Err() == context.DeadlineExceeded || strings.Contains(r.Output, "panic: test timed out after") {
		r.TimedOut = true
	}
	if sig, _ := crashSignal(r.Output); err != nil && sig != "" && (r.Signal == "" || r.Signal == "SIGABRT") {
		// GOTRACEBACK=crash re-raises SIGABRT after reporting the real
		// signal; the report names the cause.
		r.Signal = sig
	}
	r.CgoCrash = strings.Contains(r.Output, "signal arrived during cgo execution")
	return r
}

// Err returns nil when the child passed, otherwise an *Error saying why not.
func (r *Result) Err() error {
	fail := func(reason, excerpt string) error {
		return &Error{Test: r.Test, Reason: reason, Excerpt: excerpt, Result: r}
	}
	switch {
	case r.StartErr != nil:
		return fail("child could not be started: "+r.StartErr.Error(), tail(r.Output))
	case r.TimedOut:
		return fail(fmt.Sprintf("child timed out after %v", r.Duration.Round(time.Second)), tail(r.Output))
	case r.Signal != "":
		reason := "child died with " + r.Signal
		if d := signalDesc[r.Signal]; d != "" {
			reason += " (" + d + ")"
		}
		if r.CgoCrash {
			reason += "; signal arrived during cgo execution (in C code)"
		}
		return fail(reason, crashExcerpt(r.Output))
	case r.ExitCode == 0 && r.Started && r.Finished:
		return nil
	case r.ExitCode == 0 && !r.Started:
		return fail("child ran no test: -test.run="+RunPattern(r.Test)+" selected nothing, or the test does not call childtest.InChild/Run first", tail(r.Output))
	case r.Started && !r.Finished:
		return fail(fmt.Sprintf("child died with exit status %d before the test finished (a library called exit()?)", r.ExitCode), crashExcerpt(r.Output))
	case r.Finished:
		return fail(fmt.Sprintf("child test failed (exit status %d)", r.ExitCode), tail(r.Output))
	default:
		return fail(fmt.Sprintf("child exited with status %d without reaching the test", r.ExitCode), tail(r.Output))
	}
}

// RunPattern is the -test.run pattern that selects exactly the test or
// subtest named name (t.Name()): each level anchored and quoted.
func RunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func (o Options) timeout(t testing.TB) time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	type deadliner interface{ Deadline() (time.Time, bool) }
	if d, ok := t.(deadliner); ok {
		if dl, ok := d.Deadline(); ok {
			left := time.Until(dl)
			keep := max(left/10, 5*time.Second)
			return max(left-keep, time.Second)
		}
	}
	return DefaultTimeout
}

// crashRE finds the Go runtime's report of a fatal signal: "SIGSEGV:
// segmentation violation" at the start of a line (a signal in C code or a
// non-Go thread), or "[signal SIGSEGV: ..." after "fatal error: unexpected
// signal".
var crashRE = regexp.MustCompile(`(?m)^(SIG[A-Z]+): |\[signal (SIG[A-Z]+)`)

// crashSignal returns the signal named in the runtime's crash report and
// where the report starts, or "", -1.
func crashSignal(out string) (string, int) {
	m := crashRE.FindStringSubmatchIndex(out)
	if m == nil {
		return "", -1
	}
	start := m[0]
	if i := strings.LastIndex(out[:start], "fatal error:"); i >= 0 && start-i < 200 {
		start = i
	}
	if m[2] >= 0 {
		return out[m[2]:m[3]], start
	}
	return out[m[4]:m[5]], start
}

// signalDesc describes the signals a native crash usually ends in.
var signalDesc = map[string]string{
	"SIGSEGV": "segmentation violation",
	"SIGBUS":  "bus error",
	"SIGFPE":  "floating-point exception",
	"SIGILL":  "illegal instruction",
	"SIGABRT": "abort",
	"SIGKILL": "killed",
	"SIGTRAP": "trace trap",
}

func signalName(s syscall.Signal) string {
	for _, n := range []struct {
		s    syscall.Signal
		name string
	}{
		{syscall.SIGSEGV, "SIGSEGV"}, {syscall.SIGBUS, "SIGBUS"}, {syscall.SIGFPE, "SIGFPE"},
		{syscall.SIGILL, "SIGILL"}, {syscall.SIGABRT, "SIGABRT"}, {syscall.SIGKILL, "SIGKILL"},
		{syscall.SIGTERM, "SIGTERM"}, {syscall.SIGINT, "SIGINT"}, {syscall.SIGTRAP, "SIGTRAP"},
		{syscall.SIGPIPE, "SIGPIPE"}, {syscall.SIGQUIT, "SIGQUIT"},
	} {
		if n.s == s {
			return n.name
		}
	}
	return fmt.Sprintf("signal %d (%v)", int(s), s)
}

// crashExcerpt quotes the output from the runtime's crash report on (the
// signal, the faulting PC and the crashing goroutine's stack), preceded by
// what the test logged just before, or the output's tail.
func crashExcerpt(out string) string {
	if _, at := crashSignal(out); at >= 0 {
		s := out[at:]
		if len(s) > excerptLen {
			s = s[:excerptLen] + "\n[...]"
		}
		before := strings.TrimRight(out[:at], "\n")
		if len(before) > excerptLen/3 {
			before = before[len(before)-excerptLen/3:]
			if i := strings.IndexByte(before, '\n'); i >= 0 {
				before = before[i+1:]
			}
			before = "[...]\n" + before
		}
		if before != "" {
			return before + "\n" + s
		}
		return s
	}
	return tail(out)
}

func tail(out string) string {
	if len(out) <= excerptLen {
		return out
	}
	return "[...]\n" + out[len(out)-excerptLen:]
}

// childLog drops the test framework's own lines from a passing child's
// output, leaving what the body logged.
func childLog(out string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		s := strings.TrimSpace(l)
		if s == "PASS" || s == "" || strings.HasPrefix(s, "=== RUN") || strings.HasPrefix(s, "--- PASS") ||
			strings.HasPrefix(s, "=== PAUSE") || strings.HasPrefix(s, "=== CONT") || strings.HasPrefix(s, "=== NAME") || strings.HasPrefix(s, "ok ") {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}
