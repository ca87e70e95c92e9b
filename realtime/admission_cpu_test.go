package realtime

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// TestLoadAdmissionCPU: calls that report the session's CPU are charged
// that CPU, not the time spent inside them. Sessions whose 100 ms writes
// take 80 ms (waiting for a core on a busy machine, or for a worker
// process) but 15 ms of their own CPU cost 0.15, and the admission gives
// 0.9 x 2 / 0.15 = 12 sessions, where wall time would have said 0.8 and
// two.
func TestLoadAdmissionCPU(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 2, InitialCost: 0.5})
	var ts []Ticket
	for i := 0; i < 2; i++ {
		tk, err := a.Admit()
		if err != nil {
			t.Fatal(err)
		}
		tk.(cpuTicket).meteredCPU()
		ts = append(ts, tk)
	}
	for i := 0; i < 30; i++ {
		for _, tk := range ts {
			tk.Enter()
		}
		clock.Advance(80 * time.Millisecond)
		for _, tk := range ts {
			tk.Leave(Call{Kind: CallWrite, Audio: 100 * time.Millisecond, CPU: 15 * time.Millisecond, HasCPU: true})
		}
		clock.Advance(20 * time.Millisecond)
	}
	st := a.Stats()
	// Two sessions on two cores measure a lone session's cost, which
	// counts SharedCostGrowth times beyond two: 0.9 x 2 / 0.195 = 9.
	if !st.Measured || st.Cost < 0.149 || st.Cost > 0.151 || st.Capacity != 9 {
		t.Fatalf("stats %+v, want cost 0.15 and capacity 9", st)
	}
	// A metered call that could not be measured counts its wall time.
	for i := 0; i < 30; i++ {
		ts[0].Enter()
		clock.Advance(50 * time.Millisecond)
		ts[0].Leave(Call{Kind: CallWrite, Audio: 100 * time.Millisecond})
		clock.Advance(50 * time.Millisecond)
	}
	if st := a.Stats(); st.Cost < 0.25 || st.Cost >= 0.5 {
		t.Fatalf("cost %.3f after unmeasured calls of 0.5 s per audio second, want it on its way from 0.15 to 0.5", st.Cost)
	}
}

// cpuRecognizer opens streams whose Write spends spin of this thread's
// CPU, sleeps sleep, and adds proc to a worker process's CPU clock that
// the stream reports (CPUTime) when proc > 0.
type cpuRecognizer struct {
	spin, sleep, proc time.Duration
}

func (r cpuRecognizer) Recognize(context.Context, []int16, transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	return &transcribe.Recognition{}, nil
}
func (r cpuRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000}
}
func (r cpuRecognizer) Close() error { return nil }
func (r cpuRecognizer) NewStream(context.Context, transcribe.StreamOptions) (transcribe.Stream, error) {
	if r.proc > 0 {
		return &procStream{cpuStream: cpuStream{r: r}}, nil
	}
	return &cpuStream{r: r}, nil
}

type cpuStream struct {
	r   cpuRecognizer
	cpu time.Duration // the fake worker's CPU clock
	mu  sync.Mutex
}

func (s *cpuStream) Write([]int16) error {
	if s.r.spin > 0 {
		runtime.LockOSThread()
		t0, _ := threadCPU()
		for {
			t1, _ := threadCPU()
			if time.Duration(t1-t0) >= s.r.spin {
				break
			}
		}
		runtime.UnlockOSThread()
	}
	time.Sleep(s.r.sleep)
	s.mu.Lock()
	s.cpu += s.r.proc
	s.mu.Unlock()
	return nil
}
func (s *cpuStream) Partial() (transcribe.Hypothesis, error) { return transcribe.Hypothesis{}, nil }
func (s *cpuStream) EndUtterance() (transcribe.Hypothesis, error) {
	return transcribe.Hypothesis{}, nil
}
func (s *cpuStream) Close() error { return nil }

type procStream struct{ cpuStream }

func (s *procStream) CPUTime() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cpu, true
}

// TestMeterCPU streams 2 s of audio in 100 ms writes, each followed by a
// Partial, through Meter into a LoadAdmission, with recognizers that cost
// known CPU: the measured cost is the session's own CPU per audio second
// whatever the calls' wall time — a stream that sleeps 40 ms per write
// (a worker decoding elsewhere, or a wait for a core) costs nothing, one
// that spins 15 ms of its thread's CPU costs 0.15, one whose worker
// process reports 25 ms per write costs 0.25.
func TestMeterCPU(t *testing.T) {
	if !threadCPUOK {
		t.Skip("no thread CPU clock here")
	}
	t.Parallel()
	for _, c := range []struct {
		name     string
		r        cpuRecognizer
		min, max float64
	}{
		{"sleeping", cpuRecognizer{sleep: 40 * time.Millisecond}, 0, 0.03},
		{"spinning", cpuRecognizer{spin: 15 * time.Millisecond}, 0.15, 0.2},
		{"worker process", cpuRecognizer{proc: 25 * time.Millisecond, sleep: 5 * time.Millisecond}, 0.25, 0.3},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := newFakeClock()
			a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 2, InitialCost: 1})
			tk, err := a.Admit()
			if err != nil {
				t.Fatal(err)
			}
			ctx, opened := WithTicket(context.Background(), tk)
			st, err := Meter(c.r).NewStream(ctx, transcribe.StreamOptions{SampleRate: 16000})
			if err != nil || !opened() {
				t.Fatalf("NewStream: %v, opened %v", err, opened())
			}
			buf := make([]int16, 1600)
			for i := 0; i < 20; i++ {
				if err := st.Write(buf); err != nil {
					t.Fatal(err)
				}
				if _, err := st.Partial(); err != nil {
					t.Fatal(err)
				}
			}
			clock.Advance(3 * time.Second)
			s := a.Stats()
			if !s.Measured || s.Cost < c.min || s.Cost > c.max {
				t.Fatalf("measured cost %.3f (%+v), want %.2f..%.2f", s.Cost, s, c.min, c.max)
			}
			t.Logf("cost %.3f CPU-s per audio-s", s.Cost)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if s := a.Stats(); s.Live != 0 || s.Busy != 0 {
				t.Fatalf("after Close: %+v", s)
			}
		})
	}
}

// TestWithTicketUnmetered: a recognizer that is not metered leaves the
// ticket to the caller.
func TestWithTicketUnmetered(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 2})
	tk, err := a.Admit()
	if err != nil {
		t.Fatal(err)
	}
	ctx, opened := WithTicket(context.Background(), tk)
	st, err := cpuRecognizer{}.NewStream(ctx, transcribe.StreamOptions{})
	if err != nil || opened() {
		t.Fatalf("unmetered NewStream: %v, opened %v", err, opened())
	}
	st.Close()
	tk.Release()
	if a.Stats().Live != 0 {
		t.Fatal("ticket still live")
	}
	if Meter(nil) != nil || Meter(Meter(cpuRecognizer{})).(*meteredRecognizer).StreamRecognizer != (cpuRecognizer{}) {
		t.Fatal("Meter wraps nil or twice")
	}
}
