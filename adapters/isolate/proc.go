package isolate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// spawn starts cmd from a goroutine locked to its OS thread for the life of
// the process. Linux's Pdeathsig is tied to the thread that forked the
// child, not the process: a child forked by a thread the Go runtime later
// retires would be killed with it. One permanent thread avoids that.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReqs = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for r := range spawnReqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawnReqs <- spawnReq{cmd, done}
	return <-done
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

var errStartTimeout = errors.New("isolate: worker start-up timed out")

var (
	spawnOnce sync.Once
	spawnReqs chan spawnReq
)

// A worker's stderr is logged line by line as it arrives. For the crash
// report logged with a crash, the host keeps the last stderrKeep lines and
// the first stderrReport lines from the first line the Go runtime writes
// when a process dies ("SIGSEGV: segmentation violation", "panic: ...");
// up to stderrMarks such lines classify the crash.
const (
	stderrKeep   = 10
	stderrReport = 40
	stderrMarks  = 8
	maxLine      = 4096
)

// worker is one worker process seen from the host. Its owner (the pool
// hands a worker to one caller at a time) sends requests and awaits
// replies; Close may kill it from another goroutine.
type worker struct {
	p        *pool
	id       int
	pid      int
	cmd      *exec.Cmd
	req      *os.File // requests: write end
	wbuf     []byte
	seq      uint64 // requests sent since hello
	replies  chan frame
	gone     chan struct{} // closed by discard: nobody will read replies again
	goneOnce sync.Once

	exited     chan struct{} // closed once the process has been reaped
	stderrDone chan struct{} // closed at EOF of its stderr
	readErr    error         // why replies closed (read after replies is closed)

	// pending: a cancelled request's reply has not arrived yet.
	pending bool
	// stream: a stream is open on the worker.
	stream bool
	// lastUsed is when the worker last went idle.
	lastUsed time.Time

	closing atomic.Bool // Close is stopping it: callers get ErrClosed
	killed  atomic.Bool // the host killed it (not a crash of its own)

	mu     sync.Mutex
	tail   []string // last stderr lines
	marks  []string // stderr lines naming a signal or fatal error
	report []string // stderr from the first such line on: the crash report
	state  *os.ProcessState
	crashE error
}

// startWorker executes the binary as a worker, sends hello and waits for
// the engine to be built.
func (p *pool) startWorker(ctx context.Context, id int) (*worker, *ready, error) {
	if !supported {
		return nil, nil, errUnsupported
	}
	ctx, cancel := context.WithTimeoutCause(ctx, p.cfg.StartTimeout, errStartTimeout)
	defer cancel()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("isolate: starting a worker: %w", err)
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, nil, fmt.Errorf("isolate: starting a worker: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		respR.Close()
		respW.Close()
		return nil, nil, fmt.Errorf("isolate: starting a worker: %w", err)
	}
	cmd := &exec.Cmd{
		Path:        p.cfg.Executable,
		Args:        []string{os.Args[0]},
		Env:         p.env,
		Stdout:      errW,
		Stderr:      errW,
		ExtraFiles:  []*os.File{reqR, respW},
		SysProcAttr: sysProcAttr(),
	}
	err = spawn(cmd)
	reqR.Close()
	respW.Close()
	errW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		errR.Close()
		return nil, nil, fmt.Errorf("isolate: starting worker %s: %w", p.cfg.Executable, err)
	}
	w := &worker{
		p: p, id: id, pid: cmd.Process.Pid, cmd: cmd, req: reqW,
		replies: make(chan frame), gone: make(chan struct{}), exited: make(chan struct{}), stderrDone: make(chan struct{}),
	}
	go w.readStderr(errR)
	go w.readReplies(respR)
	go func() {
		st, _ := cmd.Process.Wait()
		w.mu.Lock()
		w.state = st
		w.mu.Unlock()
		close(w.exited)
		reqW.Close()
	}()

	js, _ := json.Marshal(hello{Version: protocolVersion, Engine: p.cfg.Engine, Config: p.engine})
	if d, ok := ctx.Deadline(); ok {
		_ = w.req.SetWriteDeadline(d) // a binary that never reads cannot hold us
	}
	err = writeFrame(w.req, &w.wbuf, msgHello, js, nil)
	_ = w.req.SetWriteDeadline(time.Time{})
	if err != nil {
		w.discard()
		return nil, nil, w.startFailed(err)
	}
	var f frame
	select {
	case r, ok := <-w.replies:
		if !ok {
			w.discard()
			return nil, nil, w.startFailed(w.readErr)
		}
		f = r
	case <-ctx.Done():
		w.discard()
		if context.Cause(ctx) == errStartTimeout {
			return nil, nil, fmt.Errorf("isolate: the %s worker did not start within %s (does %s call isolate.Main first?)", p.cfg.Engine, p.cfg.StartTimeout, p.cfg.Executable)
		}
		return nil, nil, ctx.Err()
	}
	switch f.typ {
	case msgOK:
		var r ready
		if err := json.Unmarshal(f.json, &r); err != nil {
			w.discard()
			return nil, nil, fmt.Errorf("isolate: bad ready message from the %s worker: %w", p.cfg.Engine, err)
		}
		return w, &r, nil
	case msgError:
		w.discard()
		return nil, nil, decodeError(f.json)
	default:
		w.discard()
		return nil, nil, fmt.Errorf("isolate: the %s worker answered hello with message type %d", p.cfg.Engine, f.typ)
	}
}

// startFailed describes a worker that died before it was ready.
func (w *worker) startFailed(cause error) error {
	w.waitExit()
	select {
	case <-w.stderrDone:
	case <-time.After(time.Second):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	sig, code := exitSignal(w.state)
	how := fmt.Sprintf("exit status %d", code)
	if sig != "" {
		how = "signal " + sig
	}
	last := "" // what the worker said last, or the first line of its crash report
	if len(w.marks) > 0 {
		last = ": " + w.marks[0]
	} else if n := len(w.tail); n > 0 {
		last = ": " + w.tail[n-1]
	}
	return fmt.Errorf("isolate: the %s worker (pid %d) ended during start-up (%s, %v)%s", w.p.cfg.Engine, w.pid, how, cause, last)
}

func (w *worker) readReplies(r *os.File) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		f, err := readFrame(br, 0)
		if err != nil {
			w.readErr = err
			close(w.replies)
			r.Close()
			return
		}
		select {
		case w.replies <- f:
		case <-w.gone:
		}
	}
}

// discard kills the worker (if alive) and lets its reply reader finish.
func (w *worker) discard() {
	w.goneOnce.Do(func() { close(w.gone) })
	w.kill()
}

func (w *worker) readStderr(r *os.File) {
	defer close(w.stderrDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, maxLine)
	log := w.p.cfg.Logger.With("engine", w.p.cfg.Engine, "pid", w.pid)
	for {
		b, isPrefix, err := br.ReadLine()
		if err != nil {
			return
		}
		line := strings.ToValidUTF8(string(b), "\uFFFD")
		for isPrefix && err == nil { // drop the rest of an overlong line
			_, isPrefix, err = br.ReadLine()
		}
		w.mu.Lock()
		if len(w.report) > 0 || isMark(line) {
			// The rest of a crash report (a goroutine dump): logged whole
			// with the crash, so only at debug level here.
			log.Debug("speech engine worker: " + line)
		} else {
			log.Warn("speech engine worker: " + line)
		}
		if len(w.tail) == stderrKeep {
			copy(w.tail, w.tail[1:])
			w.tail = w.tail[:stderrKeep-1]
		}
		w.tail = append(w.tail, line)
		if len(w.marks) < stderrMarks && isMark(line) {
			w.marks = append(w.marks, line)
		}
		if (len(w.report) > 0 || isMark(line)) && len(w.report) < stderrReport {
			w.report = append(w.report, line)
		}
		w.mu.Unlock()
	}
}

// isMark: a line the Go runtime writes when a process dies.
func isMark(l string) bool {
	return strings.HasPrefix(l, "SIG") || strings.HasPrefix(l, "[signal SIG") ||
		strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ")
}

// send writes one request. Under a cancellable ctx a write blocked on a
// stuck worker is cut off when ctx is done.
func (w *worker) send(ctx context.Context, typ byte, js []byte, audio []int16) error {
	w.seq++
	if ctx.Done() != nil {
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			_ = w.req.SetWriteDeadline(time.Now())
			close(fired)
		})
		defer func() {
			if !stop() { // the deadline was set: wait for it, then clear it
				<-fired
				_ = w.req.SetWriteDeadline(time.Time{})
			}
		}()
	}
	return writeFrame(w.req, &w.wbuf, typ, js, audio)
}

// call sends a request and waits for its reply. It returns the reply's
// JSON, the engine's error, ctx.Err() (after asking the worker to cancel;
// the pool then waits for the late reply or kills the worker), ErrClosed
// when Close stopped the worker, or a *CrashError when the worker died.
func (w *worker) call(ctx context.Context, typ byte, js []byte, audio []int16) ([]byte, error) {
	if err := w.send(ctx, typ, js, audio); err != nil {
		if ctx.Err() != nil {
			// The write was cut off half way: the stream of frames is
			// broken, so the worker cannot be used again.
			w.kill()
			return nil, ctx.Err()
		}
		return nil, w.crashed()
	}
	select {
	case f, ok := <-w.replies:
		if !ok {
			return nil, w.crashed()
		}
		return w.result(f)
	case <-ctx.Done():
		w.pending = true
		c, _ := json.Marshal(cancelMsg{Seq: w.seq})
		_ = w.req.SetWriteDeadline(time.Now().Add(w.p.cfg.StopGrace))
		if err := writeFrame(w.req, &w.wbuf, msgCancel, c, nil); err != nil {
			w.kill()
		}
		_ = w.req.SetWriteDeadline(time.Time{})
		return nil, ctx.Err()
	}
}

func (w *worker) result(f frame) ([]byte, error) {
	switch f.typ {
	case msgOK:
		return f.json, nil
	case msgError:
		return nil, decodeError(f.json)
	}
	w.kill()
	return nil, fmt.Errorf("isolate: the %s worker sent message type %d", w.p.cfg.Engine, f.typ)
}

// drain waits up to StopGrace for the reply to a cancelled request and
// reports whether it came (the worker can be reused).
func (w *worker) drain() bool {
	t := time.NewTimer(w.p.cfg.StopGrace)
	defer t.Stop()
	select {
	case _, ok := <-w.replies:
		if ok {
			w.pending = false
			return true
		}
	case <-t.C:
		w.p.cfg.Logger.Warn("speech engine worker did not stop after a cancelled request; killing it", "engine", w.p.cfg.Engine, "pid", w.pid, "grace", w.p.cfg.StopGrace)
	}
	w.kill()
	return false
}

// dead reports whether the process has been reaped.
func (w *worker) dead() bool {
	select {
	case <-w.exited:
		return true
	default:
		return false
	}
}

// kill stops the worker now (it is not a crash of its own).
func (w *worker) kill() {
	w.killed.Store(true)
	w.mu.Lock()
	reaped := w.state != nil
	w.mu.Unlock()
	if !reaped {
		killTree(w.cmd.Process)
	}
}

// stop asks the worker to exit by closing its request pipe, and kills it
// if it has not exited after StopGrace. It returns once it has exited.
func (w *worker) stop() {
	w.killed.Store(true)
	w.req.Close()
	t := time.NewTimer(w.p.cfg.StopGrace)
	defer t.Stop()
	select {
	case <-w.exited:
	case <-t.C:
		w.kill()
		<-w.exited
	}
}

// waitExit waits for the process to end, killing it if it is still alive
// after StopGrace (its reply pipe closed but it lingers).
func (w *worker) waitExit() {
	t := time.NewTimer(w.p.cfg.StopGrace)
	defer t.Stop()
	select {
	case <-w.exited:
	case <-t.C:
		w.kill()
		<-w.exited
	}
}

// crashed is the error for a call whose worker died: ErrClosed when Close
// or the pool stopped it, a *CrashError otherwise (logged once with the
// worker's last stderr lines).
func (w *worker) crashed() error {
	w.waitExit()
	select { // the runtime's crash report arrives just before the exit
	case <-w.stderrDone:
	case <-time.After(time.Second):
	}
	if w.closing.Load() {
		return ErrClosed
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.crashE != nil {
		return w.crashE
	}
	e := &CrashError{Engine: w.p.cfg.Engine, PID: w.pid}
	e.Signal, e.ExitCode = exitSignal(w.state)
	if e.Signal == "SIGKILL" && w.killed.Load() {
		e.Signal, e.Cause = "", "stopped responding"
	} else {
		e.classify(w.marks)
	}
	w.crashE = e
	w.p.crashes.Add(1)
	w.p.cfg.Logger.Error("speech engine worker died while holding work", "engine", w.p.cfg.Engine, "pid", w.pid,
		"err", e.Error(), "exit_code", e.ExitCode, "stderr", w.stderrReportLocked())
	return e
}

// stderrReportLocked is the crash report the worker wrote, or its last
// lines of stderr when it wrote none. w.mu is held.
func (w *worker) stderrReportLocked() string {
	if len(w.report) > 0 {
		return strings.Join(w.report, "\n")
	}
	return strings.Join(w.tail, "\n")
}

// logIdleDeath reports a worker found dead while it held no work.
func (w *worker) logIdleDeath() {
	select {
	case <-w.stderrDone:
	case <-time.After(time.Second):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	sig, code := exitSignal(w.state)
	w.p.cfg.Logger.Warn("speech engine worker died while idle", "engine", w.p.cfg.Engine, "pid", w.pid,
		"signal", sig, "exit_code", code, "stderr", w.stderrReportLocked())
}
