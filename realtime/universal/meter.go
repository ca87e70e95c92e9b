package universal

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/earshot-dev/earshot/realtime"
	"github.com/earshot-dev/earshot/transcribe"
)

// meteredRecognizer reports the calls of a stream it opens to the
// realtime.Ticket that Handler put in NewStream's context, as the v2
// Handler does, so that one Admission (LoadAdmission measures the cost of
// recognizer calls) accounts for v2 and v3 sessions alike.
type meteredRecognizer struct {
	transcribe.StreamRecognizer
}

type ticketKey struct{}

// ticketHolder carries a ticket to NewStream and back whether a stream
// was opened with it (else the Handler releases it).
type ticketHolder struct {
	t      realtime.Ticket
	opened atomic.Bool
}

func (m meteredRecognizer) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	th, _ := ctx.Value(ticketKey{}).(*ticketHolder)
	st, err := m.StreamRecognizer.NewStream(ctx, opts)
	if err != nil || th == nil || !th.opened.CompareAndSwap(false, true) {
		return st, err
	}
	rate := opts.SampleRate
	if rate <= 0 {
		rate = 16000
	}
	return &meteredStream{st: st, t: th.t, rate: rate}, nil
}

type meteredStream struct {
	st   transcribe.Stream
	t    realtime.Ticket
	rate int
	done bool
}

func (m *meteredStream) Write(samples []int16) error {
	m.t.Enter()
	err := m.st.Write(samples)
	m.t.Leave(realtime.Call{Kind: realtime.CallWrite, Audio: time.Duration(len(samples)) * time.Second / time.Duration(m.rate)})
	return err
}

func (m *meteredStream) Partial() (transcribe.Hypothesis, error) {
	m.t.Enter()
	h, err := m.st.Partial()
	m.t.Leave(realtime.Call{Kind: realtime.CallPartial})
	return h, err
}

func (m *meteredStream) EndUtterance() (transcribe.Hypothesis, error) {
	m.t.Enter()
	h, err := m.st.EndUtterance()
	m.t.Leave(realtime.Call{Kind: realtime.CallEndUtterance})
	return h, err
}

func (m *meteredStream) Close() error {
	if m.done {
		return m.st.Close()
	}
	m.done = true
	m.t.Enter()
	err := m.st.Close()
	m.t.Leave(realtime.Call{Kind: realtime.CallClose})
	m.t.Release()
	return err
}
