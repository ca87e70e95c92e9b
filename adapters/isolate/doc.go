// Package isolate runs speech engines that execute native code in
// supervised worker processes, so that a crash in the engine (a SIGSEGV in
// C code) fails only the work that worker held instead of killing the
// server with every job and streaming session in it.
//
// # Entry points
//
//   - Register(name, Factory) makes an engine constructible by name; call
//     it before Main (in an init function or at the top of main).
//     JSONFactory adapts a constructor taking a typed config struct.
//   - Main() must be the first call of main (and of TestMain in test
//     binaries that start workers). In the host it returns at once; in a
//     worker it serves requests and exits, never returning.
//   - New(Config) starts the first worker, asks it for the engine's
//     features, and returns a *Recognizer implementing
//     transcribe.Recognizer and transcribe.StreamRecognizer: Recognize,
//     NewStream (whose Stream has Write, Partial, EndUtterance, Close),
//     Features, Warm, Stats and Close.
//   - A worker that dies while it holds work fails that work with a
//     *CrashError, which wraps transcribe.ErrEngineCrashed and reads
//     "the speech engine crashed (signal SIGSEGV) while processing this
//     audio".
//
// A host program:
//
//	func init() {
//		if err := isolate.Register("pocketsphinx", isolate.JSONFactory(
//			func(c pocketsphinx.Config) (transcribe.Recognizer, error) { return pocketsphinx.New(c) })); err != nil {
//			panic(err)
//		}
//	}
//
//	func main() {
//		isolate.Main()
//		rec, err := isolate.New(isolate.Config{Engine: "pocketsphinx", EngineConfig: pocketsphinx.Config{Decoders: 1}})
//		...
//	}
//
// # Processes
//
// The host re-executes its own binary (/proc/self/exe on Linux, as moby's
// reexec does) with EARSHOT_ISOLATE_WORKER set, so a worker has exactly the
// host's code and registry and there is no second binary to ship or keep
// in step. Main in the worker reads the engine's name and JSON config from
// the host, builds the engine once with its Factory, and then serves one
// request at a time. A pool keeps at most Config.Processes workers: a
// Recognize call holds one worker for the call, a Stream holds one until
// Close; callers beyond that wait, honouring their context. Workers start
// on demand (or with Warm), are reused, and exit after Config.IdleTimeout
// unused, so the memory of a burst returns to the system. Each worker runs
// one engine with one decoder: that is what confines a crash to one piece
// of work. The cost is memory: every worker holds its own model (for
// pocketsphinx ~107 MB of decoder, the same as one in-process decoder, plus
// a Go runtime of a few MB and the host binary's own start-up allocations).
//
// Workers die with the host. On Linux each is started with
// Pdeathsig=SIGKILL, from one goroutine locked to its OS thread for the life
// of the process, because the kernel ties Pdeathsig to the thread that
// forked the child and the Go runtime may retire other threads. Every
// worker also exits when its request pipe reaches EOF. Workers lead their
// own process group, so a Ctrl-C in a terminal reaches only the host, which
// stops them itself (Close); a worker killed by the host takes anything it
// started with it (the group is killed).
//
// # Wire
//
// Requests and replies are length-prefixed frames on two pipes, passed to
// the worker as file descriptors 3 and 4 (exec.Cmd.ExtraFiles) rather than
// its stdin and stdout: the worker's stdout and stderr both go to the
// host's Logger, so a native library that prints to stdout cannot corrupt
// the protocol. A frame is a 9-byte header (length, type, JSON length), a
// small JSON part for options and results, and raw little-endian int16
// samples, written straight from the caller's []int16 and read straight
// into the worker's (no encoding; on little-endian machines the only copy
// is the kernel's). A stream's 100 ms write is one frame, one write
// system call. JSON is used for control because it is tiny next to audio
// and needs no schema compiler; the frames are hand-written because no
// library fits a two-process pipe protocol this small (net/rpc and gRPC
// would add a copy and an encoding of every sample, and a socket). The
// engine's errors cross the wire with their kind, so errors.Is and
// errors.As still find transcribe.ErrUnavailable, context.Canceled,
// *transcribe.ParamError and *transcribe.MediaError on the host.
//
// # Failures
//
// A worker that dies (a signal, an exit, a broken pipe) while it holds a
// request fails that request with a *CrashError; a stream's Write,
// Partial or EndUtterance return it, and so does every later call of the
// stream. A native crash in a Go program is caught by the Go runtime, which
// prints "SIGSEGV: segmentation violation" and exits with status 2; the
// host reads the worker's stderr to name the signal anyway. The worker's
// crash report is logged once with the error, at level Error; its other
// stderr lines are logged as they come, at level Warn. The pool then starts
// a replacement in the background. A Service that gets ErrEngineCrashed
// should end the transcript in error with Error() as the reason (it says
// what happened in words a user understands), and realtime should close
// the session with 1011 and that reason.
//
// A cancelled context returns ctx.Err() at once: the worker is sent a
// cancel message (the engine's context is cancelled, which pocketsphinx
// checks every 128 ms of audio), and it goes back to the pool when it
// answers, or is killed if it has not answered within Config.StopGrace.
// Close stops idle workers by closing their pipes and kills busy ones;
// calls and streams cut off that way get ErrClosed, not a crash.
//
// # Choices
//
//   - NewStream exists whatever the engine: a Go type cannot implement an
//     interface conditionally. When Features().Streaming is false it
//     returns ErrNotStreaming.
//   - transcribe.FileRecognizer is not forwarded: it serves engines behind
//     HTTP that decode media themselves, which need no process isolation.
//   - Features are asked once, of the first worker, and cached.
//   - The worker's environment is the host's; Config.Env adds to it.
//   - Only Unix systems are supported (file descriptor passing, process
//     groups); New fails elsewhere.
//
// # Performance
//
// Measured on the 2-core development VM with BenchmarkTurnaround and
// BenchmarkFirstPartial (go test -run '^$' -bench . ./adapters/isolate/),
// which print ratios measured in the same run: see the README of the
// change in the lead's report; the figures are repeated here when stable.
//
// # Concurrency
//
// A Recognizer is safe for concurrent use. A Stream is not (as
// transcribe.Stream). Register and Main are meant for program start-up.
package isolate
