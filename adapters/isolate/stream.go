package isolate

import (
	"context"
	"encoding/json"
	"fmt"

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
		st.err = err
		st.w.stream = false
		st.r.p.release(st.w)
		st.w = nil
	}
	return res, err
}

// Write feeds samples at the stream's sample rate.
func (st *Stream) Write(samples []int16) error {
	_, err := st.do(msgStreamWrite, samples)
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
