package realtime

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
	"github.com/earshot-dev/earshot/transcribe"
)

func newTestAdmission(t *testing.T, clock *streamtest.Clock, cfg LoadAdmissionConfig) *LoadAdmission {
	t.Helper()
	cfg.Now = clock.Now
	if cfg.MachineCPU == nil {
		cfg.MachineCPU = IgnoreMachineLoad
	}
	a, err := NewLoadAdmission(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// stream plays one session's calls for one 100 ms audio message: a Write
// taking took, then a Partial taking nothing.
func stream(clock *streamtest.Clock, tk Ticket, took time.Duration) {
	tk.Enter()
	clock.Advance(took)
	tk.Leave(Call{Kind: CallWrite, Audio: 100 * time.Millisecond})
	tk.Enter()
	tk.Leave(Call{Kind: CallPartial})
	clock.Advance(100*time.Millisecond - took)
}

func TestLoadAdmissionConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg   LoadAdmissionConfig
		field string
	}{
		{LoadAdmissionConfig{Cores: -1}, "Cores"},
		{LoadAdmissionConfig{Headroom: 1.5}, "Headroom"},
		{LoadAdmissionConfig{Headroom: -0.1}, "Headroom"},
		{LoadAdmissionConfig{InitialCost: -1}, "InitialCost"},
		{LoadAdmissionConfig{MaxSessions: -2}, "MaxSessions"},
		{LoadAdmissionConfig{Window: -time.Second}, "Window"},
	} {
		_, err := NewLoadAdmission(c.cfg)
		if err == nil || !strings.Contains(err.Error(), "LoadAdmissionConfig."+c.field) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.field)
		}
	}
	a, err := NewLoadAdmission(LoadAdmissionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if a.cfg.Headroom != DefaultHeadroom || a.cfg.InitialCost != DefaultInitialCost || a.cfg.Cores < 1 ||
		a.cfg.FinalBudget != DefaultFinalBudget || a.cfg.Window != DefaultCostWindow {
		t.Errorf("defaults %+v", a.cfg)
	}
}

// TestLoadAdmissionCapacity: before any measurement the capacity follows
// InitialCost; once a window of audio is measured it follows the cost,
// and the session beyond it is refused with a *CapacityError until one
// ends.
func TestLoadAdmissionCapacity(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 2, InitialCost: 0.5})
	// 0.9 x 2 / 0.5 = 3.6: three sessions.
	var ts []Ticket
	for i := 0; i < 3; i++ {
		tk, err := a.Admit()
		if err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
		ts = append(ts, tk)
	}
	_, err := a.Admit()
	var ce *CapacityError
	if !errors.As(err, &ce) || !errors.Is(err, ErrAtCapacity) || ce.Live != 3 || ce.Capacity != 3 || ce.Cost != 0.5 {
		t.Fatalf("fourth session: %v (%+v)", err, ce)
	}
	if !strings.Contains(err.Error(), "3 live sessions fill 90% of 2 cores at 0.500 CPU-seconds per audio second") {
		t.Errorf("error text %q", err)
	}
	// The three stream, each message costing 15 ms: 0.15 CPU-s per
	// audio-s. After a window the capacity is 0.9 x 2 / 0.15 = 12.
	for i := 0; i < 20; i++ {
		for _, tk := range ts {
			tk.Enter()
			clock.Advance(15 * time.Millisecond)
			tk.Leave(Call{Kind: CallWrite, Audio: 100 * time.Millisecond})
		}
		clock.Advance(55 * time.Millisecond)
	}
	st := a.Stats()
	if !st.Measured || st.Cost < 0.149 || st.Cost > 0.151 || st.Capacity != 12 || st.Live != 3 {
		t.Fatalf("after 2 s of three sessions: %+v", st)
	}
	for i := 3; i < 12; i++ {
		tk, err := a.Admit()
		if err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
		ts = append(ts, tk)
	}
	if _, err := a.Admit(); !errors.Is(err, ErrAtCapacity) {
		t.Fatalf("13th session: %v", err)
	}
	ts[0].Release()
	ts[0].Release() // twice is harmless
	if _, err := a.Admit(); err != nil {
		t.Fatalf("after a session ended: %v", err)
	}
}

// TestLoadAdmissionSharedCost: a cost measured with no more sessions
// than cores counts SharedCostGrowth times beyond Cores sessions; once
// it is measured with more sessions live than cores, as it is.
func TestLoadAdmissionSharedCost(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 2, InitialCost: 0.5})
	first, err := a.Admit()
	if err != nil {
		t.Fatal(err)
	}
	ts := []Ticket{first}
	window := func(took time.Duration) LoadStats {
		for i := 0; i < 20; i++ {
			for _, tk := range ts {
				tk.Enter()
				clock.Advance(took)
				tk.Leave(Call{Kind: CallWrite, Audio: 100 * time.Millisecond})
			}
			clock.Advance(max(100*time.Millisecond-time.Duration(len(ts))*took, 0))
		}
		return a.Stats()
	}
	// A lone session at 0.24: 0.9 x 2 / 0.24 = 7.5, but beyond two
	// sessions 0.9 x 2 / (0.24 x 1.3) = 5.8.
	if st := window(24 * time.Millisecond); st.Cost < 0.239 || st.Cost > 0.241 || st.Capacity != 5 {
		t.Fatalf("lone session: %+v, want cost 0.24 and capacity 5", st)
	}
	for len(ts) < 5 {
		tk, err := a.Admit()
		if err != nil {
			t.Fatalf("session %d: %v", len(ts)+1, err)
		}
		ts = append(ts, tk)
	}
	_, err = a.Admit()
	if err == nil || !strings.Contains(err.Error(), "5 live sessions fill 90% of 2 cores at 0.240 CPU-seconds per audio second (0.312 with more sessions than cores)") {
		t.Fatalf("sixth session: %v", err)
	}
	// Five sessions sharing the cores cost 0.338 each (the grown cost
	// measured): half of the estimate is shared, (0.24 + 0.338) / 2 x
	// 1.15 = 0.332, and the capacity stays 5, not 0.9 x 2 / 0.289 = 6.
	if st := window(34 * time.Millisecond); st.Capacity != 5 {
		t.Fatalf("five sessions at 0.34: %+v, want capacity 5", st)
	}
	for range 6 {
		window(34 * time.Millisecond)
	}
	// The cost measured with five sessions live counts as it is: at 0.2
	// each, 0.9 x 2 / 0.2 = 9.
	for range 8 {
		window(20 * time.Millisecond)
	}
	if st := a.Stats(); st.Cost < 0.199 || st.Cost > 0.202 || st.Capacity != 8 && st.Capacity != 9 {
		t.Fatalf("five sessions at 0.2: %+v, want capacity 9", st)
	}
}

// TestLoadAdmissionConcurrentCalls: sessions inside recognizer calls at
// the same moment count at most Cores at a time, so sessions queueing for
// a core behind each other do not inflate the cost.
func TestLoadAdmissionConcurrentCalls(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 2, InitialCost: 0.01})
	var ts []Ticket
	for i := 0; i < 4; i++ {
		tk, err := a.Admit()
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tk)
	}
	// Every 100 ms all four enter at once and leave 80 ms later: four
	// sessions of 20 ms CPU each on two cores. Naively 0.8 s busy per
	// audio second; really 2 cores x 80 ms / 400 ms of audio = 0.4.
	for i := 0; i < 20; i++ {
		for _, tk := range ts {
			tk.Enter()
		}
		clock.Advance(80 * time.Millisecond)
		for _, tk := range ts {
			tk.Leave(Call{Kind: CallWrite, Audio: 100 * time.Millisecond})
		}
		clock.Advance(20 * time.Millisecond)
	}
	if st := a.Stats(); st.Cost < 0.399 || st.Cost > 0.401 || st.Capacity != 4 || st.Busy != 0 {
		t.Fatalf("%+v, want cost 0.4 and capacity 4", st)
	}
	// A fifth is refused: 4 live, capacity 4.
	if _, err := a.Admit(); !errors.Is(err, ErrAtCapacity) {
		t.Fatalf("fifth session: %v", err)
	}
	// Measurements are smoothed: a window at cost 0.2 moves the estimate
	// half way.
	for i := 0; i < 20; i++ {
		for _, tk := range ts {
			tk.Enter()
		}
		clock.Advance(40 * time.Millisecond)
		for _, tk := range ts {
			tk.Leave(Call{Kind: CallWrite, Audio: 100 * time.Millisecond})
		}
		clock.Advance(60 * time.Millisecond)
	}
	if st := a.Stats(); st.Cost < 0.299 || st.Cost > 0.301 {
		t.Fatalf("%+v, want cost 0.3", st)
	}
}

// TestLoadAdmissionLateFinals: while the median of the utterances'
// slowest calls is over FinalBudget, nothing is admitted whatever the
// cost; the first session always is; the guard forgets once the server
// is idle.
func TestLoadAdmissionLateFinals(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 8, InitialCost: 0.01})
	tk, err := a.Admit()
	if err != nil {
		t.Fatal(err)
	}
	utterance := func(slowest time.Duration) {
		for i := 0; i < 10; i++ {
			stream(clock, tk, 10*time.Millisecond)
		}
		// pocketsphinx ends the utterance inside a Partial; EndUtterance
		// itself is quick.
		tk.Enter()
		clock.Advance(slowest)
		tk.Leave(Call{Kind: CallPartial})
		tk.Enter()
		clock.Advance(time.Millisecond)
		tk.Leave(Call{Kind: CallEndUtterance})
	}
	for _, d := range []time.Duration{100, 400, 120} {
		utterance(d * time.Millisecond)
	}
	if st := a.Stats(); st.Late || st.Final != 120*time.Millisecond {
		t.Fatalf("%+v, want the median 120 ms, not late", st)
	}
	tk2, err := a.Admit()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{500, 600} {
		utterance(d * time.Millisecond)
	}
	_, err = a.Admit()
	var ce *CapacityError
	if !errors.As(err, &ce) || ce.Final != 400*time.Millisecond || !strings.Contains(err.Error(), "late already (400 ms") {
		t.Fatalf("with late finals: %v", err)
	}
	tk.Release()
	tk2.Release()
	clock.Advance(DefaultCostWindow)
	if st := a.Stats(); st.Late || st.Live != 0 {
		t.Fatalf("idle: %+v", st)
	}
	if _, err := a.Admit(); err != nil {
		t.Fatalf("idle server: %v", err)
	}
}

func TestLoadAdmissionMaxSessions(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 64, MaxSessions: 2})
	for i := 0; i < 2; i++ {
		if _, err := a.Admit(); err != nil {
			t.Fatal(err)
		}
	}
	_, err := a.Admit()
	var ce *CapacityError
	if !errors.As(err, &ce) || ce.MaxSessions != 2 || !strings.Contains(err.Error(), "the most it runs") {
		t.Fatalf("third session: %v", err)
	}
}

// refuseAll is an Admission that refuses everything with its own error.
type refuseAll struct{ err error }

func (r refuseAll) Admit() (Ticket, error) { return nil, r.err }

// TestHandlerAdmission: a refused session is closed with 1013 and the
// reason of the spec at once, without opening a recognizer stream; an
// admitted session's ticket is released when it ends, and when its
// stream cannot be opened.
func TestHandlerAdmission(t *testing.T) {
	t.Parallel()
	t.Run("refused", func(t *testing.T) {
		s := newTestServer(t, func(c *Config) {
			c.Admission = refuseAll{&CapacityError{Live: 3, Capacity: 3, Cost: 0.6, Cores: 2, Headroom: 0.9}}
		})
		t0 := time.Now()
		c := s.dial("/v2/realtime/ws", nil, "key-a")
		text := expectClose(t, c, CloseTryAgainLater)
		if d := time.Since(t0); d > time.Second {
			t.Errorf("refusal took %v", d)
		}
		if !strings.Contains(text, "at capacity: 3 live sessions fill 90% of 2 cores") {
			t.Errorf("error %q", text)
		}
		if n := len(s.rec.Streams()); n != 0 {
			t.Errorf("%d streams opened for a refused session", n)
		}
	})
	t.Run("close error as it is", func(t *testing.T) {
		s := newTestServer(t, func(c *Config) { c.Admission = refuseAll{ErrTooManyStreams.with("quota")} })
		if text := expectClose(t, s.dial("/v2/realtime/ws", nil, "key-a"), CloseTooManyStreams); text != "quota" {
			t.Errorf("error %q", text)
		}
	})
	t.Run("tickets", func(t *testing.T) {
		clock := newFakeClock()
		a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 4, MaxSessions: 1})
		s := newTestServer(t, func(c *Config) { c.Admission = a })
		c, _ := begin(t, s, "key-a", nil)
		send(t, c, websocket.MessageBinary, streamtest.Tone(200, 16000))
		// One live session is the most: the next is refused with 1013.
		text := expectClose(t, s.dial("/v2/realtime/ws", nil, "key-a"), CloseTryAgainLater)
		if !strings.Contains(text, "capacity") {
			t.Errorf("error %q", text)
		}
		send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
		expectCloseAfterMessages(t, c)
		waitFor(t, func() bool { return a.Stats().Live == 0 })
		if st := a.Stats(); st.Busy != 0 {
			t.Errorf("after the session: %+v", st)
		}
		// The session's calls were metered: 200 ms of audio.
		a.mu.Lock()
		audio := a.audio
		a.mu.Unlock()
		if audio != 200*time.Millisecond {
			t.Errorf("metered audio %v", audio)
		}
		// A stream that cannot be opened gives its ticket back.
		s.rec.SetNewErr(errors.New("no decoder"))
		expectClose(t, s.dial("/v2/realtime/ws", nil, "key-a"), CloseInternalServerError)
		if st := a.Stats(); st.Live != 0 {
			t.Errorf("after a failed stream: %+v", st)
		}
		s.rec.SetNewErr(nil)
		c, _ = begin(t, s, "key-a", nil)
		send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
		expectCloseAfterMessages(t, c)
	})
}

// TestAdmitAll admits everything and meters nothing.
func TestAdmitAll(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, func(c *Config) { c.Admission = AdmitAll })
	for i := 0; i < 3; i++ {
		c, _ := begin(t, s, "key-a", nil)
		defer func() {
			send(t, c, websocket.MessageText, []byte(`{"terminate_session":true}`))
			expectCloseAfterMessages(t, c)
		}()
	}
	tk, err := AdmitAll.Admit()
	if err != nil || tk == nil {
		t.Fatal(tk, err)
	}
	tk.Enter()
	tk.Leave(Call{Kind: CallWrite, Audio: time.Second})
	tk.Release()
}

// A NewSession outside a Handler opens its stream unmetered.
func TestSessionWithoutTicket(t *testing.T) {
	t.Parallel()
	rec := &streamtest.FakeRecognizer{}
	s, err := NewSession(context.Background(), Config{Recognizer: rec}, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort(StateTerminated)
	st, err := s.cfg.Recognizer.NewStream(context.Background(), transcribe.StreamOptions{SampleRate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*meteredStream); ok {
		t.Error("a stream without a ticket was metered")
	}
}

func TestCapacityFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cores int
		cost  float64
		want  int
	}{{2, 0.15, 12}, {2, 0.3, 6}, {1, 2, 1}, {0, 0.1, 1}, {4, 0, 1}, {4, -1, 1}, {8, 1e-12, 2147483647}} {
		if got := CapacityFor(c.cores, c.cost); got != c.want {
			t.Errorf("CapacityFor(%d, %v) = %d, want %d", c.cores, c.cost, got, c.want)
		}
	}
}

// machine is a fake LoadAdmissionConfig.MachineCPU: busy cores of
// cores, advanced with the clock.
type machine struct {
	clock       *streamtest.Clock
	cores       int
	busy, total time.Duration
	at          time.Time
	load        float64 // cores busy now
}

func (m *machine) cpu() (busy, total time.Duration, ok bool) {
	now := m.clock.Now()
	if !m.at.IsZero() {
		d := now.Sub(m.at)
		m.busy += time.Duration(m.load * float64(d))
		m.total += time.Duration(m.cores) * d
	}
	m.at = now
	return m.busy, m.total, true
}

// TestLoadAdmissionOtherWork: the cores other work keeps busy are taken
// off Cores.
func TestLoadAdmissionOtherWork(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := &machine{clock: clock, cores: 2}
	a := newTestAdmission(t, clock, LoadAdmissionConfig{Cores: 2, InitialCost: 0.01, MachineCPU: m.cpu})
	tk, err := a.Admit()
	if err != nil {
		t.Fatal(err)
	}
	// One session costing 0.1 (10 ms per 100 ms message), while other
	// work keeps one core busy: the machine is 1.1 cores busy.
	m.load = 1.1
	for i := 0; i < 20; i++ {
		stream(clock, tk, 10*time.Millisecond)
	}
	st := a.Stats()
	if st.Cost < 0.099 || st.Cost > 0.101 || st.External < 0.49 || st.External > 0.51 {
		t.Fatalf("after one window: %+v, want cost 0.1 and other work 0.5 (smoothed from 0)", st)
	}
	for i := 0; i < 60; i++ {
		stream(clock, tk, 10*time.Millisecond)
	}
	st = a.Stats()
	// 0.9 x (2 - 1) / 0.1 = 9 at a lone session's cost, 6.9 at the cost
	// grown by SharedCostGrowth that counts beyond two sessions, with the
	// estimate within 1/8 of a core.
	if st.External < 0.87 || st.External > 1.001 || st.Capacity < 6 || st.Capacity > 7 {
		t.Fatalf("after four windows: %+v, want other work near 1 core and capacity 6 or 7", st)
	}
	var ts []Ticket
	for {
		t2, err := a.Admit()
		if err != nil {
			var ce *CapacityError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cores other work leaves") {
				t.Fatalf("refusal %v", err)
			}
			break
		}
		ts = append(ts, t2)
	}
	if n := len(ts) + 1; n != st.Capacity {
		t.Errorf("admitted %d, capacity %d", n, st.Capacity)
	}
}

func TestParseProcStat(t *testing.T) {
	t.Parallel()
	busy, total, ok := parseProcStat("cpu  100 5 50 800 20 3 2 10 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
	if !ok || busy != 170 || total != 990 {
		t.Errorf("busy %d total %d ok %v", busy, total, ok)
	}
	if _, _, ok := parseProcStat("cpu  100 5 50 800 20 3 2\n"); !ok {
		t.Error("a line without steal refused")
	}
	for _, bad := range []string{"", "intr 1 2 3", "cpu 1 2 3", "cpu a b c d e f g h", "cpu -1 0 0 0 0 0 0 0"} {
		if _, _, ok := parseProcStat(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := os.Stat("/proc/stat"); err == nil {
		if b1, t1, ok := procStatCPU(); !ok || b1 > t1 || t1 == 0 {
			t.Errorf("this machine's /proc/stat: %d of %d, %v", b1, t1, ok)
		}
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add("cpu  100 5 50 800 20 3 2 10 0 0\n")
	f.Add("cpu  1 2 3\n")
	f.Fuzz(func(t *testing.T, s string) {
		busy, total, ok := parseProcStat(s)
		if ok && (busy < 0 || busy > total) {
			t.Fatalf("%q: busy %d, total %d", s, busy, total)
		}
	})
}
