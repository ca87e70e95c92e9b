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
//     NewStream (whose Stream has Write, Partial, EndUtterance, Close, and
//     CPUTime: its worker's CPU time, for admission control),
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
// system call, and is not answered: the worker decodes while the caller
// goes on, the next Partial or EndUtterance waits for it, and an engine
// error for the write comes back from that next call. A streaming step
// (Write, then Partial) so costs one round trip, not two. JSON is used for control because it is tiny next to audio
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
// calls and streams cut off that way get ErrClosed, which wraps
// transcribe.ErrClosed (the Service resumes such a job later), not a
// crash.
//
// # Choices
//
//   - NewStream exists whatever the engine: a Go type cannot implement an
//     interface conditionally. When Features().Streaming is false it
//     returns ErrNotStreaming.
//   - transcribe.FileRecognizer is not forwarded: it serves engines behind
//     HTTP that decode media themselves, which need no process isolation.
//   - Features are asked once, of the first worker, and cached.
//   - The worker's environment is minimal (internal/childenv: PATH,
//     LD_LIBRARY_PATH, HOME, TMPDIR, TZ, the Go runtime's settings,
//     LANG=C, LC_ALL=C), not the host's, so that an engine parsing hostile
//     audio holds none of the server's secrets (EARSHOT_API_KEYS, the
//     encryption key, database and S3 credentials); Config.Env adds to it.
//     Engines are configured through EngineConfig, not the environment.
//   - Only Unix systems are supported (file descriptor passing, process
//     groups); New fails elsewhere.
//
// # Performance
//
// The benchmarks interleave the same work in process and through a worker,
// clip by clip, and print ratios (go test -run '^$' -bench .
// -benchtime 3x ./adapters/isolate/). Measured on the 2-core development
// VM while other work kept its load average near 18 (pocketsphinx ran at
// about 1x real time instead of 5x), plain and under nice -n -15:
//
//   - BenchmarkTurnaround, Recognize over the five librivox clips (24.6 s
//     of speech): median isolated/in-process time 0.99 and 1.03, ratio of
//     the totals 0.99 and 1.00, CPU of host and worker over in-process CPU
//     1.00 and 1.05. A worker holding one pocketsphinx decoder has an RSS
//     of 115 MB.
//   - BenchmarkFirstPartial, each clip streamed at real time in 100 ms
//     chunks with a Partial after each: median first-partial latency of
//     isolated minus in-process -40 ms and -169 ms, mean per-step
//     difference -0.9 ms and -32 ms. On this loaded machine the noise
//     (the same in-process step took 31 to 62 ms from one run to the
//     next) is far larger than the cost; NewStream costs 6 to 13 ms more
//     (a round trip and the scheduling of the worker).
//   - BenchmarkStreamStep, the protocol alone (a 100 ms Write and a Partial
//     on an engine that does no work): 80 to 300 µs per step through a
//     worker, 0.1 µs in process. That is the intrinsic cost a stream pays
//     every 100 ms, far under the +10 ms budget for the first partial.
//
// Non-blocking worker pipes (the runtime's poller) halved the step, from
// 380 to 585 µs with blocking descriptors to 150 to 220 µs, in the same
// conditions.
//
// # Concurrency
//
// A Recognizer is safe for concurrent use. A Stream is not (as
// transcribe.Stream). Register and Main are meant for program start-up.
//
// # Dependencies
//
// golang.org/x/sys/unix names the signal that ended a crashed worker
// (unix.SignalName) in the error and log line; the standard library has
// no signal-name table.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the defaults
// Config documents (Default*), Factory, and the errors callers match with
// errors.Is (ErrClosed, ErrNotRegistered, ErrNotStreaming).
package isolate
