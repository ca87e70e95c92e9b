package realtime

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// admitted is the Handler's way to open a session's recognizer stream
// (startStream: new sessions, and sessions resumed from another process):
// it asks Config.Admission first (a refusal is a 1013 close) and has open
// run with the admission's ticket in its context (WithTicket), where the
// metered recognizer (Config.Recognizer after withDefaults) finds it.
func (h *Handler) admitted(ctx context.Context, open func(context.Context) (*Session, error)) (*Session, error) {
	t, err := h.cfg.Admission.Admit()
	if err != nil {
		h.log.Warn("realtime: session refused", "err", err)
		var ce *CloseError
		if errors.As(err, &ce) || errors.Is(err, ErrAtCapacity) {
			return nil, err
		}
		return nil, &admissionError{err}
	}
	if t == nil {
		t = noTicket{}
	}
	tctx, opened := WithTicket(ctx, t)
	s, err := open(tctx)
	if !opened() {
		t.Release()
	}
	return s, err
}

type ticketKey struct{}

// ticketHolder carries a session's ticket to the metered recognizer's
// NewStream, and back whether a stream was opened with it.
type ticketHolder struct {
	t      Ticket
	opened atomic.Bool
}

// WithTicket returns ctx carrying t, an admitted session's Ticket, for the
// NewStream of a recognizer wrapped by Meter: the stream it opens reports
// its calls to t and releases t when it is closed. opened reports, once
// NewStream has returned, whether a stream took the ticket; when it did
// not (NewStream failed, or the recognizer is not metered), the caller
// releases t itself. A ticket is taken by one stream at most.
//
// A transport other than this package's Handler (Universal-Streaming v3,
// realtime/universal) meters its sessions exactly like v2's by asking the
// shared Admission for a ticket, opening its engine session with the
// context WithTicket returns, on a recognizer wrapped once with Meter:
//
//	t, err := adm.Admit()            // refuse on err
//	ctx, opened := realtime.WithTicket(ctx, t)
//	s, err := engine.New(ctx, engine.Config{Recognizer: realtime.Meter(rec)}, opts)
//	if !opened() {
//		t.Release()
//	}
func WithTicket(ctx context.Context, t Ticket) (context.Context, func() bool) {
	th := &ticketHolder{t: t}
	return context.WithValue(ctx, ticketKey{}, th), th.opened.Load
}

// meteredRecognizer reports the calls of the streams it opens to the
// ticket in NewStream's context (put there by WithTicket); streams opened
// without one (NewSession on its own) are not wrapped.
type meteredRecognizer struct {
	transcribe.StreamRecognizer
}

// Meter wraps r so that a stream opened with a Ticket in NewStream's
// context (WithTicket) reports each call to it: Ticket.Enter before the
// call and Ticket.Leave after it with the Call's kind, the audio written
// and the session's own CPU time (Call.CPU):
//
//   - the CPU time of the thread that made the call, measured around it
//     with the goroutine locked to its OS thread (Linux,
//     CLOCK_THREAD_CPUTIME_ID): an engine in this process decodes in the
//     caller's thread, so this is its work and nothing else's, however
//     busy the machine is;
//   - plus, for a stream whose engine runs in a process of its own
//     (a stream with a CPUTime() (time.Duration, bool) method, such as
//     *isolate.Stream), the CPU that process used since the last reading,
//     read at every call except Write (isolate's Write returns before the
//     worker decodes; the next call waits for it).
//
// Where neither can be measured (not Linux), Call.HasCPU is false and
// LoadAdmission counts the call's wall time instead. Meter returns r
// itself when it is nil or already metered; the Handler meters
// Config.Recognizer on its own.
func Meter(r transcribe.StreamRecognizer) transcribe.StreamRecognizer {
	if _, ok := r.(*meteredRecognizer); ok || r == nil {
		return r
	}
	return &meteredRecognizer{r}
}

// cpuTimer is a stream whose engine runs in a process of its own and
// reports that process's CPU time.
type cpuTimer interface {
	CPUTime() (time.Duration, bool)
}

// cpuTicket is a Ticket that wants CPU time rather than wall time: the
// metered stream tells it, before its first call, that its calls will
// report their CPU (LoadAdmission's tickets then stop counting the time
// spent inside calls).
type cpuTicket interface {
	Ticket
	meteredCPU()
}

// threadCPUOK is whether this system measures a thread's CPU time.
var threadCPUOK = func() bool { _, ok := threadCPU(); return ok }()

func (m *meteredRecognizer) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	th, _ := ctx.Value(ticketKey{}).(*ticketHolder)
	st, err := m.StreamRecognizer.NewStream(ctx, opts)
	if err != nil || th == nil || !th.opened.CompareAndSwap(false, true) {
		return st, err
	}
	rate := opts.SampleRate
	if rate <= 0 {
		rate = DefaultSampleRate
	}
	ms := &meteredStream{st: st, t: th.t, rate: rate}
	if p, ok := st.(cpuTimer); ok {
		if c, ok := p.CPUTime(); ok {
			ms.proc, ms.procLast = p, c
		}
	}
	if ct, ok := th.t.(cpuTicket); ok && (threadCPUOK || ms.proc != nil) {
		ct.meteredCPU()
	}
	return ms, nil
}

type meteredStream struct {
	st       transcribe.Stream
	t        Ticket
	rate     int
	proc     cpuTimer // nil when the engine runs in this process
	procLast time.Duration
	done     bool
}

// call runs f as one call of the session into its stream and reports it.
func (m *meteredStream) call(kind CallKind, audio time.Duration, f func()) {
	m.t.Enter()
	c := Call{Kind: kind, Audio: audio}
	if kind == CallClose {
		// The worker goes back to its pool at Close: read it first.
		m.procCPU(&c)
	}
	runtime.LockOSThread()
	t0, ok0 := threadCPU()
	f()
	t1, ok1 := threadCPU()
	runtime.UnlockOSThread()
	if ok0 && ok1 && t1 >= t0 {
		c.CPU += time.Duration(t1 - t0)
		c.HasCPU = true
	}
	if kind != CallWrite && kind != CallClose {
		m.procCPU(&c)
	}
	m.t.Leave(c)
}

// procCPU adds the engine process's CPU since the last reading to c.
func (m *meteredStream) procCPU(c *Call) {
	if m.proc == nil {
		return
	}
	p, ok := m.proc.CPUTime()
	if !ok {
		return
	}
	if p > m.procLast {
		c.CPU += p - m.procLast
		m.procLast = p
	}
	c.HasCPU = true
}

func (m *meteredStream) Write(samples []int16) error {
	var err error
	m.call(CallWrite, time.Duration(len(samples))*time.Second/time.Duration(m.rate), func() { err = m.st.Write(samples) })
	return err
}

func (m *meteredStream) Partial() (transcribe.Hypothesis, error) {
	var h transcribe.Hypothesis
	var err error
	m.call(CallPartial, 0, func() { h, err = m.st.Partial() })
	return h, err
}

func (m *meteredStream) EndUtterance() (transcribe.Hypothesis, error) {
	var h transcribe.Hypothesis
	var err error
	m.call(CallEndUtterance, 0, func() { h, err = m.st.EndUtterance() })
	return h, err
}

func (m *meteredStream) Close() error {
	if m.done {
		return m.st.Close()
	}
	m.done = true
	var err error
	m.call(CallClose, 0, func() { err = m.st.Close() })
	m.t.Release()
	return err
}
