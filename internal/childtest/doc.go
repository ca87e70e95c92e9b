// Package childtest runs the body of a Go test in a child process, so that
// native code which crashes (a SIGSEGV in a C library loaded with purego, a
// C abort(), a library calling exit()) fails that one test with the cause
// named — "child died with SIGSEGV" — instead of killing the whole test
// binary and every other test in it.
//
// # Entry points
//
//   - Run(t, body) is the usual form: in the parent it re-executes the test
//     binary (os.Args[0]) with -test.run selecting exactly t.Name() and an
//     environment variable (EnvVar) marking the child; in the child it runs
//     body(t). A child that passes passes the test; one that fails, crashes,
//     exits early or times out fails it with an *Error describing what
//     happened and an excerpt of the child's output.
//   - Options.Run is Run with extra environment or a timeout.
//   - InChild(t) and Options.Exec(t) split the two halves for tests that
//     expect a child to die (this package's own tests do): InChild reports
//     whether this process is the child for t and records that the body
//     started; Exec starts the child and returns its Result without judging
//     it.
//
// Usage:
//
//	func TestNativeThing(t *testing.T) {
//		childtest.Run(t, func(t *testing.T) {
//			// code that calls into C
//		})
//	}
//
// Subtests work: the child is started with -test.run=^TestX$/^sub$, so only
// the code on the path to that subtest runs there.
//
// # How a crash is recognised
//
// The Go runtime turns a fatal signal into a crash report ("SIGSEGV:
// segmentation violation ... signal arrived during cgo execution", or
// "fatal error: unexpected signal ... [signal SIGSEGV ...]") and exit status
// 2, unless GOTRACEBACK=crash makes it re-raise SIGABRT; a SIGKILL from the
// kernel ends the process without a word. Result.Signal is taken from the
// wait status when the child was killed by a signal, otherwise from the
// runtime's report in the output. The child marks, in a file the parent
// names, that the body started and (through t.Cleanup) that it finished,
// which tells "the test failed" (finished, non-zero exit) apart from "the
// process died in the middle" (started, never finished) and from "the
// pattern selected nothing" (never started).
//
// # Choices
//
// Written by hand because the standard library has the pieces (os/exec,
// testing's -test.run) but no helper, and the usual idiom (the
// os/exec and crypto/x509 tests' helper-process pattern with
// GO_WANT_HELPER_PROCESS) does not tell a crash from a failure. The child
// inherits the parent's environment, -test.short and -test.gocoverdir, and
// always runs with -test.v, so that what the body logged before dying
// (streamed at once in verbose mode) precedes the crash report in the
// error; a passing child's log is shown only when the parent runs with -v.
// Its timeout is what is left of the parent's -test.timeout
// less a margin (10 minutes when there is no deadline), and -test.timeout is
// passed too so that a hung child prints its goroutines before it is killed.
//
// The functions are safe to call from parallel tests; each child is its own
// process.
package childtest
