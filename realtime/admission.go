package realtime

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Admission decides whether the Handler opens one more session. The
// Handler asks it when a new session is about to open its recognizer
// stream (resumes are not asked: their session already holds a stream),
// before waiting for the recognizer, so a refusal is immediate. A refused
// connection gets {"error": ...} with the error's text and closes with
// 1013 (Temporary server condition forced blocking client's request); an
// error that is a *CloseError is sent as it is.
//
// Implementations must be safe for concurrent use. LoadAdmission is the
// default; AdmitAll admits every session.
type Admission interface {
	// Admit decides on one new session now, without waiting. It returns a
	// Ticket for an admitted session, or an error saying why not
	// (ErrAtCapacity, or a *CapacityError wrapping it, for the default).
	Admit() (Ticket, error)
}

// Ticket is an admitted session's account with its Admission. The Handler
// reports through it every call the session makes into its recognizer
// stream, and releases it when the stream is closed (or could not be
// opened). The methods of one ticket are called from one goroutine at a
// time, but tickets of different sessions are used concurrently.
type Ticket interface {
	// Enter is called as the session calls into its recognizer stream.
	Enter()
	// Leave is called when that call returns.
	Leave(c Call)
	// Release is called once, when the session's stream has been closed
	// or could not be opened. Enter and Leave are not called after it.
	Release()
}

// CallKind names a recognizer stream method.
type CallKind string

// The calls a session makes into its transcribe.Stream.
const (
	CallWrite        CallKind = "write"
	CallPartial      CallKind = "partial"
	CallEndUtterance CallKind = "end_utterance" // the final pass of an utterance
	CallClose        CallKind = "close"
)

// Call describes one call a session made into its recognizer stream.
type Call struct {
	Kind CallKind
	// Audio is the audio the call handed to the recognizer (Write), or 0.
	Audio time.Duration
	// CPU is the session's own CPU time for the call (see Meter: the
	// calling thread's, plus the engine process's since the last call for
	// an engine in a worker process), when HasCPU is set. Without it
	// (HasCPU false: not measured on this system, or a Ticket fed by
	// another meter) LoadAdmission counts the call's wall time.
	CPU    time.Duration
	HasCPU bool
}

// ErrAtCapacity is wrapped by the *CapacityError LoadAdmission returns
// when it refuses a session.
var ErrAtCapacity = errors.New("realtime: the server is at capacity")

// CapacityError says why LoadAdmission refused a session.
type CapacityError struct {
	Live     int     // sessions holding a recognizer stream
	Capacity int     // sessions the cores carry at the measured cost
	Cost     float64 // measured (or initial) cost, CPU-seconds per audio second
	// SharedCost is set when more sessions than Cores are live and the
	// cost is counted higher among them (see SharedCostGrowth).
	SharedCost float64
	Cores      int
	Headroom   float64
	// MaxSessions is set when the refusal came from
	// LoadAdmissionConfig.MaxSessions rather than the cost.
	MaxSessions int
	// External is the cores other work keeps busy, taken off Cores.
	External float64
	// Final is set when the refusal came from the live sessions' late
	// finals: the median of their utterances' slowest recognizer calls,
	// over LoadAdmissionConfig.FinalBudget.
	Final time.Duration
}

func (e *CapacityError) Error() string {
	shared := ""
	if e.SharedCost > e.Cost {
		shared = fmt.Sprintf(" (%.3f with more sessions than cores)", e.SharedCost)
	}
	if e.Final > 0 {
		return fmt.Sprintf("the server is at capacity: the %d live sessions' final transcripts are late already (%d ms to end an utterance); try again later", e.Live, e.Final.Milliseconds())
	}
	if e.MaxSessions > 0 {
		return fmt.Sprintf("the server is at capacity: %d live sessions, the most it runs; try again later", e.Live)
	}
	if e.External >= 0.05 {
		return fmt.Sprintf("the server is at capacity: %d live sessions fill %.0f%% of the %.1f of %d cores other work leaves, at %.3f CPU-seconds per audio second%s; try again later",
			e.Live, e.Headroom*100, max(float64(e.Cores)-e.External, 0), e.Cores, e.Cost, shared)
	}
	return fmt.Sprintf("the server is at capacity: %d live sessions fill %.0f%% of %d cores at %.3f CPU-seconds per audio second%s; try again later",
		e.Live, e.Headroom*100, e.Cores, e.Cost, shared)
}

// Unwrap returns ErrAtCapacity.
func (e *CapacityError) Unwrap() error { return ErrAtCapacity }

// AdmitAll is an Admission that admits every session: only the
// recognizer (a pool that makes new sessions wait Config.StreamWait for a
// free decoder) and MaxSessionsPerProject bound them.
var AdmitAll Admission = admitAll{}

type admitAll struct{}

func (admitAll) Admit() (Ticket, error) { return noTicket{}, nil }

type noTicket struct{}

func (noTicket) Enter()     {}
func (noTicket) Leave(Call) {}
func (noTicket) Release()   {}

// Defaults of LoadAdmissionConfig.
const (
	DefaultHeadroom    = 0.9
	DefaultInitialCost = 0.2
	DefaultFinalBudget = 250 * time.Millisecond
	DefaultCostWindow  = 2 * time.Second
)

// LoadAdmissionConfig configures a LoadAdmission. Zero values mean the
// documented default.
type LoadAdmissionConfig struct {
	// Cores is how many CPU cores the sessions' recognizers may use.
	// Default runtime.NumCPU().
	Cores int
	// Headroom is the fraction of Cores that admitted sessions may fill
	// (0 < Headroom <= 1). Default DefaultHeadroom (0.9).
	Headroom float64
	// InitialCost is the cost, in CPU-seconds per second of audio, assumed
	// until the first measurement (one Window with at least a second of
	// audio). Default DefaultInitialCost (0.2; isolated pocketsphinx
	// measures 0.13 to 0.2 on a 2-core VM, so the default errs on the side
	// of refusing during a burst at start-up). It is taken as the cost
	// with the cores shared: SharedCostGrowth is not added to it.
	InitialCost float64
	// FinalBudget bounds how long the slowest recognizer call of an
	// utterance may take: the call in which the engine ends the utterance
	// (Stream.EndUtterance, or for pocketsphinx the Write or Partial in
	// which its own voice detector ended it), from which a
	// FinalTranscript's latency comes. While the median over the last
	// utterances of the live sessions is longer, their finals are late
	// already and no session is admitted, whatever the cost says.
	// Default DefaultFinalBudget (250 ms: a final within 300 ms of the end
	// of the pause, with the audio message before it); negative disables
	// the check.
	FinalBudget time.Duration
	// MaxSessions caps live sessions whatever the cost: set it to the
	// recognizer's stream capacity (pool size) so that a session beyond it
	// is refused at once rather than after Config.StreamWait. Default 0:
	// no cap.
	MaxSessions int
	// MachineCPU reports the whole machine's CPU time so far: busy, and
	// in all (busy plus idle), each summed over its cores; ok is false
	// when it cannot tell. What other work takes of the cores (the
	// machine's busy share less the sessions' own) is measured with the
	// cost and taken off Cores, so that a machine shared with other work
	// (batch transcription, other programs) admits fewer sessions. Default:
	// /proc/stat on Linux, used only when it lists exactly Cores cores and
	// GOMAXPROCS is not below them (in a container limited to fewer cores
	// by a cpuset or a CPU quota, /proc/stat describes the host, so nothing
	// is taken off there). IgnoreMachineLoad turns it off.
	MachineCPU func() (busy, total time.Duration, ok bool)
	// Window is how much time one cost measurement covers; measurements
	// are smoothed (each new window weighs one half). Default
	// DefaultCostWindow (2 s).
	Window time.Duration
	// Now is the clock that times recognizer calls. Default time.Now (a
	// real clock: the cost is real time, unlike Config.Now).
	Now func() time.Time
}

// IgnoreMachineLoad is a LoadAdmissionConfig.MachineCPU that never
// knows: all of Cores is counted on for the sessions.
func IgnoreMachineLoad() (busy, total time.Duration, ok bool) { return 0, 0, false }

// LoadAdmission admits a new session only while the measured cost of
// recognition leaves room for it on the cores: with cost c (CPU-seconds
// per second of audio) it runs at most Headroom × (Cores − other work) ÷ c
// sessions (at least one), and refuses the next with a *CapacityError. It
// also refuses while the live sessions' final transcripts are late (see
// LoadAdmissionConfig.FinalBudget). Admit never waits: a refusal is
// immediate however loaded the machine is.
//
// The cost is the sessions' own CPU time per second of audio they handed
// to their recognizers, over each Window. Each call a metered stream
// (Meter) makes reports the CPU the session used for it — the calling
// thread's, and for engines in worker processes (isolate) the worker's,
// which serves that one session — so the cost does not grow when
// sessions wait for a core behind each other or behind other work. It
// does grow, and the admission follows it, when more decoders than cores
// take turns on them (1.2 to 1.35 times a lone session's on a 2-core VM,
// not when two share two cores; the cause, likely caches refilled at
// each switch, is not isolated; BenchmarkConcurrentCost in
// adapters/pocketsphinx, cost-full/alone in BenchmarkAdmission), so fewer
// sessions are admitted than the lone session's cost would allow. What
// other work takes is measured apart, over the same windows
// (LoadAdmissionConfig.MachineCPU):
// the machine's busy cores less the sessions' own CPU, taken off Cores,
// so a machine that also runs batch jobs or other programs — or this
// process's own work around the sessions: WebSockets, JSON, formatting —
// has that much less room. Each new window weighs one half in both
// estimates. A busy machine also makes calls slow, which the FinalBudget
// check sees.
//
// Calls that report no CPU (Call.HasCPU false: not Linux, or tickets used
// by another meter) are counted by their wall time instead: the time
// during which sessions were inside such calls, at most Cores calls at
// once (k sessions busy at the same moment use min(k, Cores) cores).
//
// A LoadAdmission is safe for concurrent use and starts no goroutines.
type LoadAdmission struct {
	cfg LoadAdmissionConfig

	mu       sync.Mutex
	live     int
	busy     int           // sessions inside a recognizer call
	wallBusy int           // of which counted by wall time (no CPU reported)
	last     time.Time     // when wallBusy last changed
	work     time.Duration // CPU reported + ∫ min(wallBusy, Cores) dt over the current window
	audio    time.Duration // audio handed to recognizers in the window
	winStart time.Time
	cost     float64
	measured bool
	finals   []finalPass // the last end-of-utterance passes, oldest first
	// shared is the part of cost measured in windows with more sessions
	// live than Cores (smoothed as cost is; InitialCost counts as such),
	// and winLive the most sessions live in the current window.
	shared  float64
	winLive int

	// other work: cores busy outside the sessions' calls (smoothed), and
	// the machine's CPU times when the window began
	external            float64
	machBusy, machTotal time.Duration
	machOK              bool
}

type finalPass struct {
	at   time.Time
	took time.Duration
}

// finalSamples is how many utterances the FinalBudget check looks at (the
// median of their slowest calls), and finalMin the fewest it needs.
const (
	finalSamples = 9
	finalMin     = 3
)

// NewLoadAdmission returns a LoadAdmission, or an error naming a bad
// field.
func NewLoadAdmission(cfg LoadAdmissionConfig) (*LoadAdmission, error) {
	if cfg.Cores == 0 {
		cfg.Cores = runtime.NumCPU()
	}
	if cfg.Headroom == 0 {
		cfg.Headroom = DefaultHeadroom
	}
	if cfg.InitialCost == 0 {
		cfg.InitialCost = DefaultInitialCost
	}
	if cfg.FinalBudget == 0 {
		cfg.FinalBudget = DefaultFinalBudget
	}
	if cfg.Window == 0 {
		cfg.Window = DefaultCostWindow
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MachineCPU == nil {
		cfg.MachineCPU = IgnoreMachineLoad
		if cfg.Cores > 0 && procStatCores() == cfg.Cores && runtime.GOMAXPROCS(0) >= cfg.Cores {
			cfg.MachineCPU = procStatCPU
		}
	}
	switch {
	case cfg.Cores < 0:
		return nil, fmt.Errorf("realtime: LoadAdmissionConfig.Cores must be positive, got %d", cfg.Cores)
	case !(cfg.Headroom > 0 && cfg.Headroom <= 1):
		return nil, fmt.Errorf("realtime: LoadAdmissionConfig.Headroom must be in (0, 1], got %v", cfg.Headroom)
	case !(cfg.InitialCost > 0) || math.IsInf(cfg.InitialCost, 0):
		return nil, fmt.Errorf("realtime: LoadAdmissionConfig.InitialCost must be a positive number, got %v", cfg.InitialCost)
	case cfg.MaxSessions < 0:
		return nil, fmt.Errorf("realtime: LoadAdmissionConfig.MaxSessions must be positive, got %d", cfg.MaxSessions)
	case cfg.Window < 0:
		return nil, fmt.Errorf("realtime: LoadAdmissionConfig.Window must be positive, got %v", cfg.Window)
	}
	now := cfg.Now()
	a := &LoadAdmission{cfg: cfg, cost: cfg.InitialCost, shared: 1, last: now, winStart: now}
	a.machBusy, a.machTotal, a.machOK = cfg.MachineCPU()
	return a, nil
}

// CapacityFor returns how many sessions cores carry at cost CPU-seconds
// per audio second with DefaultHeadroom (at least 1): the size to give a
// recognizer's stream pool so that the admission, not the pool, is what
// limits sessions. For pocketsphinx, which measures 0.15 to 0.19 on a
// 2-core VM, CapacityFor(runtime.NumCPU(), 0.1) leaves room for faster
// cores.
func CapacityFor(cores int, cost float64) int {
	if cores < 1 || !(cost > 0) {
		return 1
	}
	return max(1, int(min(math.Floor(DefaultHeadroom*float64(cores)/cost+1e-9), math.MaxInt32)))
}

// LoadStats is what a LoadAdmission knows at one moment.
type LoadStats struct {
	Live     int     // sessions holding a ticket
	Busy     int     // of which inside a recognizer call now
	Capacity int     // sessions it admits at the current cost
	Cost     float64 // CPU-seconds per second of audio
	Measured bool    // Cost was measured (false: InitialCost)
	External float64 // cores other work keeps busy (0 without MachineCPU)
	// Final is the median over the last utterances of their slowest
	// recognizer call (0 before there are enough), and Late whether it is
	// over FinalBudget.
	Final time.Duration
	Late  bool
}

// Stats reports the admission's numbers now.
func (a *LoadAdmission) Stats() LoadStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.cfg.Now()
	a.advance(now)
	f := a.finalMedian(now)
	return LoadStats{Live: a.live, Busy: a.busy, Capacity: a.capacity(), Cost: a.cost, Measured: a.measured, External: a.external,
		Final: f, Late: a.cfg.FinalBudget > 0 && f > a.cfg.FinalBudget}
}

// Capacity returns how many sessions it admits at the current cost
// (Stats().Capacity); realtime.Config.ProjectShare is a share of it.
func (a *LoadAdmission) Capacity() int { return a.Stats().Capacity }

// SharedCostGrowth is how much a session's cost grows once more
// sessions than cores take turns on them: 1.2 to 1.35 times a lone
// session's on a 2-core VM (BenchmarkConcurrentCost in
// adapters/pocketsphinx 1.21, pocketsphinx_continuous processes 1.35,
// cost-full/alone in BenchmarkAdmission 1.20 to 1.28).
const SharedCostGrowth = 1.3

// capacity is Headroom × (Cores − other work) ÷ cost, at least 1, at most
// MaxSessions. Beyond Cores sessions the part of the cost measured with
// no more sessions than cores counts SharedCostGrowth times: admitting at
// a lone session's cost filled the cores past real time before the grown
// cost was measured (7 sessions admitted at 0.24 on 2 cores, whose
// shared cost was 0.338, finals 3 to 8 s late).
func (a *LoadAdmission) capacity() int {
	n := math.MaxInt32
	if a.cost > 0 {
		cores := max(float64(a.cfg.Cores)-a.external, 0)
		fit := func(cost float64) int {
			return max(1, int(min(math.Floor(a.cfg.Headroom*cores/cost+1e-9), math.MaxInt32)))
		}
		n = fit(a.cost)
		if n > a.cfg.Cores {
			n = max(min(n, a.cfg.Cores), fit(a.sharedCost()))
		}
	}
	if a.cfg.MaxSessions > 0 {
		n = min(n, a.cfg.MaxSessions)
	}
	return n
}

// sharedCost is the cost of a session among more sessions than cores.
func (a *LoadAdmission) sharedCost() float64 {
	return a.cost * (1 + (SharedCostGrowth-1)*(1-a.shared))
}

// finalMedian is the median of the slowest calls of the recent
// utterances, or 0 when there are fewer than finalMin.
func (a *LoadAdmission) finalMedian(now time.Time) time.Duration {
	// Passes from before the last 15 windows say little about now.
	old := now.Add(-15 * a.cfg.Window)
	i := 0
	for i < len(a.finals) && a.finals[i].at.Before(old) {
		i++
	}
	a.finals = append(a.finals[:0], a.finals[i:]...)
	if len(a.finals) < finalMin {
		return 0
	}
	d := make([]time.Duration, len(a.finals))
	for i, f := range a.finals {
		d[i] = f.took
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// Admit admits a session while fewer than the capacity are live and
// their finals are on time; the first session is always admitted.
func (a *LoadAdmission) Admit() (Ticket, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.cfg.Now()
	a.advance(now)
	c := a.capacity()
	var late time.Duration
	if a.live > 0 && a.cfg.FinalBudget > 0 {
		if f := a.finalMedian(now); f > a.cfg.FinalBudget {
			late = f
		}
	}
	if a.live >= c || late > 0 {
		e := &CapacityError{Live: a.live, Capacity: c, Cost: a.cost, Cores: a.cfg.Cores, Headroom: a.cfg.Headroom, External: a.external, Final: late}
		if sc := a.sharedCost(); a.live > a.cfg.Cores && sc >= a.cost*1.01 {
			e.SharedCost = sc
		}
		if a.cfg.MaxSessions > 0 && c == a.cfg.MaxSessions && a.live >= c {
			e.MaxSessions = a.cfg.MaxSessions
		}
		return nil, e
	}
	a.live++
	a.winLive = max(a.winLive, a.live)
	return &loadTicket{a: a}, nil
}

// advance integrates the busy sessions up to now and closes the window
// when it is due.
func (a *LoadAdmission) advance(now time.Time) {
	if d := now.Sub(a.last); d > 0 {
		a.work += time.Duration(min(a.wallBusy, a.cfg.Cores)) * d
		a.last = now
	}
	if now.Sub(a.winStart) < a.cfg.Window {
		return
	}
	if a.audio < time.Second && (a.live > 0 || a.busy > 0) {
		return // too little audio yet: let the window grow
	}
	if a.audio >= time.Second {
		sample := a.work.Seconds() / a.audio.Seconds()
		shared := 0.0
		if a.winLive > a.cfg.Cores {
			shared = 1
		}
		if a.measured {
			a.cost = (a.cost + sample) / 2
			a.shared = (a.shared + shared) / 2
		} else {
			a.cost, a.shared, a.measured = sample, shared, true
		}
	}
	// Other work: the machine's busy cores less the sessions' own.
	busy, total, ok := a.cfg.MachineCPU()
	if ok && a.machOK && total > a.machTotal {
		machine := float64(busy-a.machBusy) / float64(total-a.machTotal) * float64(a.cfg.Cores)
		sessions := a.work.Seconds() / now.Sub(a.winStart).Seconds()
		a.external = (a.external + max(machine-sessions, 0)) / 2
	}
	a.machBusy, a.machTotal, a.machOK = busy, total, ok
	// A new window (after idle time, nothing is carried over).
	a.work, a.audio, a.winStart, a.winLive = 0, 0, now, a.live
	if a.live == 0 {
		a.finals = a.finals[:0]
	}
}

type loadTicket struct {
	a        *LoadAdmission
	entered  time.Time     // zero when not inside a call
	slowest  time.Duration // the slowest call of the open utterance
	released bool
	cpu      bool // calls report their CPU (Meter said so): not wall-timed
	wall     bool // the call under way is counted in wallBusy
}

// meteredCPU: the session's calls report their CPU time (cpuTicket).
func (t *loadTicket) meteredCPU() {
	t.a.mu.Lock()
	t.cpu = true
	t.a.mu.Unlock()
}

func (t *loadTicket) Enter() {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if !t.entered.IsZero() || t.released {
		return
	}
	now := a.cfg.Now()
	a.advance(now)
	t.entered = now
	a.busy++
	if !t.cpu {
		t.wall = true
		a.wallBusy++
	}
}

func (t *loadTicket) Leave(c Call) {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.released {
		return
	}
	now := a.cfg.Now()
	a.advance(now)
	if !t.entered.IsZero() {
		took := now.Sub(t.entered)
		t.slowest = max(t.slowest, took)
		if c.Kind == CallEndUtterance {
			if len(a.finals) == finalSamples {
				a.finals = append(a.finals[:0], a.finals[1:]...)
			}
			a.finals = append(a.finals, finalPass{at: now, took: t.slowest})
			t.slowest = 0
		}
		t.entered = time.Time{}
		a.busy--
		switch {
		case t.wall:
			t.wall = false
			a.wallBusy-- // counted by the integral
		case c.HasCPU:
			a.work += max(c.CPU, 0)
		default:
			a.work += took // a CPU-metered call that could not be measured
		}
	} else if !t.wall && c.HasCPU {
		a.work += max(c.CPU, 0)
	}
	if c.Audio > 0 {
		a.audio += c.Audio
	}
}

func (t *loadTicket) Release() {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.released {
		return
	}
	a.advance(a.cfg.Now())
	t.released = true
	if !t.entered.IsZero() {
		t.entered = time.Time{}
		a.busy--
		if t.wall {
			t.wall = false
			a.wallBusy--
		}
	}
	a.live--
}

// procStatCores counts the cpuN lines of /proc/stat, or returns 0.
func procStatCores() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if len(l) > 3 && strings.HasPrefix(l, "cpu") && l[3] >= '0' && l[3] <= '9' {
			n++
		}
	}
	return n
}

// procStatCPU reads the machine's busy and total CPU time from
// /proc/stat.
func procStatCPU() (busy, total time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	return parseProcStat(string(b))
}

// parseProcStat reads the first line of /proc/stat ("cpu user nice system
// idle iowait irq softirq steal ..." in clock ticks: only the ratio of
// busy to total is used, so the unit cancels out). Steal, when present,
// is time the cores were not this machine's: busy.
func parseProcStat(s string) (busy, total time.Duration, ok bool) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, 0, false
	}
	var v [8]int64
	for i := range v {
		if i+1 >= len(f) {
			break
		}
		n, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64/16 {
			return 0, 0, false
		}
		v[i] = n
	}
	b := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	return time.Duration(b), time.Duration(b + v[3] + v[4]), true
}
