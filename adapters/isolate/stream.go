package isolate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// NewStream opens a stream on a worker of its own, which it holds until
// Close (waiting for one while Processes are busy, until ctx is done). It
// returns ErrNotStreaming when the engine does not stream, and the
// engine's error when it refuses the options.
func (r *Recognizer) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	if !r.features.Streaming {
		return nil, fmt.Errorf("%w: %s", ErrNotStreaming, r.p.cfg.Engine)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	js, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("isolate: encoding stream options: %w", err)
	}
	w, err := r.p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := w.call(ctx, msgStreamOpen, js, nil); err != nil {
		if w.pending {
			// The engine may open the stream after all; the host would not
			// know of it, so this worker is not used again.
			w.kill()
		}
		r.p.release(w)
		return nil, err
	}
	w.stream = true
	return &Stream{r: r, w: w}, nil
}

// Stream is a stream running in a worker (transcribe.Stream). When the
// worker dies, the call that saw it and every later one return the same
// *CrashError (wrapping transcribe.ErrEngineCrashed), and the pool starts
// another worker. Not safe for concurrent use.
type Stream struct {
	r      *Recognizer
	w      *worker // nil once given back
	err    error   // sticky: the worker died or was stopped
	closed bool
}

// do runs one request of the stream. Engine errors are returned as they
// are and leave the stream usable; a dead worker ends it.
func (st *Stream) do(typ byte, audio []int16) ([]byte, error) {
	if st.closed {
		return nil, ErrClosed
	}
	if st.err != nil {
		return nil, st.err
	}
	res, err := st.w.call(context.Background(), typ, nil, audio)
	if err != nil && (st.w.dead() || st.w.killed.Load()) {
		return nil, st.lost(err)
	}
	return res, err
}

// Write sends samples at the stream's sample rate to the worker and
// returns without waiting for them to be decoded: the worker decodes while
// the caller goes on, and the next Partial or EndUtterance waits for it.
// That saves one round trip between processes per write. An error the
// engine returns for the write is therefore returned by the stream's next
// call (Partial, EndUtterance or Close); a worker found dead is reported at
// once. Write blocks when the worker is more than the pipe's buffer (about
// two seconds of 16 kHz audio) behind.
func (st *Stream) Write(samples []int16) error {
	if st.closed {
		return ErrClosed
	}
	if st.err != nil {
		return st.err
	}
	if err := st.w.send(context.Background(), msgStreamWrite, nil, samples); err != nil {
		return st.lost(st.w.crashed())
	}
	return nil
}

// lost ends the stream after its worker died or was stopped.
func (st *Stream) lost(err error) error {
	st.err = err
	st.w.stream = false
	st.r.p.release(st.w)
	st.w = nil
	return err
}

// Partial returns the current hypothesis of the open utterance.
func (st *Stream) Partial() (transcribe.Hypothesis, error) {
	return st.hypothesis(msgPartial)
}

// EndUtterance closes the open utterance and returns its final words.
func (st *Stream) EndUtterance() (transcribe.Hypothesis, error) {
	return st.hypothesis(msgEndUtterance)
}

func (st *Stream) hypothesis(typ byte) (transcribe.Hypothesis, error) {
	var h transcribe.Hypothesis
	res, err := st.do(typ, nil)
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(res, &h); err != nil {
		return transcribe.Hypothesis{}, fmt.Errorf("isolate: unreadable hypothesis from the %s worker: %w", st.r.p.cfg.Engine, err)
	}
	return h, nil
}

// Close ends the stream in its worker and gives the worker back to the
// pool (a worker that does not answer within StopGrace is killed). It
// returns the engine's error from closing the stream, if any; after a
// crash it returns nil. Closing twice is harmless.
func (st *Stream) Close() error {
	if st.closed {
		return nil
	}
	st.closed = true
	if st.w == nil {
		return nil
	}
	w := st.w
	st.w = nil
	ctx, cancel := context.WithTimeout(context.Background(), st.r.p.cfg.StopGrace)
	defer cancel()
	_, err := w.call(ctx, msgStreamClose, nil, nil)
	if err == nil || !(w.dead() || w.killed.Load() || w.pending) {
		w.stream = false // closed in the worker (or the engine said why not)
	}
	st.r.p.release(w)
	if w.dead() || w.killed.Load() || ctx.Err() != nil {
		return nil
	}
	return err
}

// CPUTime reports the CPU time (user and system) that the stream's worker
// process has used since it started, from /proc/<pid>/stat (10 ms
// resolution); ok is false where that cannot be read (not Linux) and once
// the stream has ended. The worker serves only this stream while it is
// open, so the difference between two readings is the stream's own CPU:
// realtime's metering (realtime.Meter) charges it to the session, which
// waiting for a reply cannot tell (Write returns before the worker
// decodes).
func (st *Stream) CPUTime() (time.Duration, bool) {
	if st.closed || st.w == nil || st.err != nil {
		return 0, false
	}
	return procCPU(st.w.pid)
}

// procCPU reads utime + stime of a process from /proc/<pid>/stat, in
// clock ticks of 1/100 s (USER_HZ, fixed at 100 for /proc).
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses,
	// so the fields are counted after the last ')'; utime and stime are
	// the 14th and 15th fields, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	s, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil || u < 0 || s < 0 {
		return 0, false
	}
	return time.Duration(u+s) * 10 * time.Millisecond, true
}
