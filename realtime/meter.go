package realtime

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// admitted is the Handler's way to open a session's recognizer stream
// (startStream: new sessions, and sessions resumed from another process):
// it asks Config.Admission first (a refusal is a 1013 close) and has open
// run with the admission's ticket in its context, where the metered
// recognizer (Config.Recognizer after withDefaults) finds it.
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
	th := &ticketHolder{t: t}
	s, err := open(context.WithValue(ctx, ticketKey{}, th))
	if !th.opened.Load() {
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

// meteredRecognizer reports the calls of the streams it opens to the
// ticket in NewStream's context (put there by Handler.admitted); streams
// opened without one (NewSession on its own) are not wrapped.
type meteredRecognizer struct {
	transcribe.StreamRecognizer
}

// metered wraps r, unless it is already metered or nil.
func metered(r transcribe.StreamRecognizer) transcribe.StreamRecognizer {
	if _, ok := r.(*meteredRecognizer); ok || r == nil {
		return r
	}
	return &meteredRecognizer{r}
}

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
	return &meteredStream{st: st, t: th.t, rate: rate}, nil
}

type meteredStream struct {
	st   transcribe.Stream
	t    Ticket
	rate int
	done bool
}

func (m *meteredStream) Write(samples []int16) error {
	m.t.Enter()
	err := m.st.Write(samples)
	m.t.Leave(Call{Kind: CallWrite, Audio: time.Duration(len(samples)) * time.Second / time.Duration(m.rate)})
	return err
}

func (m *meteredStream) Partial() (transcribe.Hypothesis, error) {
	m.t.Enter()
	h, err := m.st.Partial()
	m.t.Leave(Call{Kind: CallPartial})
	return h, err
}

func (m *meteredStream) EndUtterance() (transcribe.Hypothesis, error) {
	m.t.Enter()
	h, err := m.st.EndUtterance()
	m.t.Leave(Call{Kind: CallEndUtterance})
	return h, err
}

func (m *meteredStream) Close() error {
	if m.done {
		return m.st.Close()
	}
	m.done = true
	m.t.Enter()
	err := m.st.Close()
	m.t.Leave(Call{Kind: CallClose})
	m.t.Release()
	return err
}
