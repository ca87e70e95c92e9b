package enginepool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// Defaults of Config.
const (
	// DefaultRecheckInterval is how often a server marked down is checked
	// while another server of the pool is up.
	DefaultRecheckInterval = 2 * time.Second
	// DefaultCheckTimeout bounds one health check.
	DefaultCheckTimeout = 5 * time.Second
)

// ErrClosed is returned by Acquire after Close.
var ErrClosed = errors.New("enginepool: pool closed")

// Outcome is how one request to a server ended (Slot.Release).
type Outcome string

// Outcomes of a request, the values of the metrics' outcome label.
const (
	// OK: the server answered with a transcription.
	OK Outcome = "ok"
	// Refused: the server answered that the request is at fault (a 4xx,
	// or an error in a 200): it is up.
	Refused Outcome = "refused"
	// Failed: the server answered but failed the request (a 500, an
	// unreadable answer) or gave no answer in time; it stays in use.
	Failed Outcome = "error"
	// Unavailable: the server is down or overloaded (no connection, 429,
	// 502, 503, 504): it is marked down and skipped until it passes a
	// health check or, when every server is down, answers a request.
	Unavailable Outcome = "unavailable"
	// Canceled: the caller gave up; says nothing of the server.
	Canceled Outcome = "canceled"
)

// Outcomes lists every Outcome, for metrics that create their series up
// front.
func Outcomes() []Outcome { return []Outcome{OK, Refused, Failed, Unavailable, Canceled} }

// EventKind says what an Event reports.
type EventKind int

// Kinds of Event.
const (
	// Started: a request was given a slot on the server.
	Started EventKind = iota
	// Finished: a request on the server ended with Event.Outcome.
	Finished
	// Up: the server is in use (also sent for every server by New).
	Up
	// Down: the server is skipped (Event.Err says why).
	Down
)

// Event is what Config.OnEvent receives.
type Event struct {
	Kind EventKind
	// Server is the server's name (Config.Servers).
	Server string
	// InFlight is the server's requests in flight after the event.
	InFlight int
	// Outcome is set for Finished.
	Outcome Outcome
	// Err is set for Down: the failure that took the server out.
	Err error
}

// Config configures a Pool. Servers is required.
type Config struct {
	// Servers names the servers (their URLs without credentials): in
	// errors, events and metrics. At least one, no two alike.
	Servers []string
	// Concurrency is how many requests each server is given at once; a
	// request beyond it waits in Acquire for the first free slot. 0: no
	// limit. Negative is an error.
	Concurrency int
	// Check runs the health check of server i: nil when it is up, an
	// error wrapping transcribe.ErrEngineUnavailable when it is down (any
	// other error counts as up: the server answered). Default none: a
	// server marked down is used again after RecheckInterval.
	Check func(ctx context.Context, i int) error
	// RecheckInterval is how often servers marked down are checked while
	// another server is up. Default DefaultRecheckInterval (2 s).
	RecheckInterval time.Duration
	// CheckTimeout bounds each health check run by the pool. Default
	// DefaultCheckTimeout (5 s).
	CheckTimeout time.Duration
	// OnEvent receives every Event. It is called with the pool's lock
	// held, so it must be quick and must not call the pool; metrics are
	// its intended use. Default none.
	OnEvent func(Event)
}

type server struct {
	name     string
	inFlight int
	up       bool
	failedAt time.Time // last outage, for the order in which down servers are tried
	lastErr  error
	checking bool
}

// Pool spreads requests over servers of one engine: each request goes to
// the server with the fewest requests in flight among those that are up,
// no server is given more than Config.Concurrency at once, and a server
// that fails with an outage is skipped until a health check finds it up
// again. When every server is down, requests still go out (the least
// recently failed server first), so their failures report the outage to
// the caller. Safe for concurrent use.
type Pool struct {
	cfg     Config
	mu      sync.Mutex
	servers []*server
	wake    chan struct{} // closed and replaced when a slot frees or a server comes up
	next    int           // where ties start, so equal servers take turns
	closed  bool
	probing bool // the recheck loop runs
	stop    chan struct{}
	wg      sync.WaitGroup
}

// New checks cfg and returns a Pool with every server up. It contacts no
// server.
func New(cfg Config) (*Pool, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("enginepool: Config.Servers is empty")
	}
	if cfg.Concurrency < 0 {
		return nil, fmt.Errorf("enginepool: Config.Concurrency must not be negative, got %d", cfg.Concurrency)
	}
	if cfg.RecheckInterval <= 0 {
		cfg.RecheckInterval = DefaultRecheckInterval
	}
	if cfg.CheckTimeout <= 0 {
		cfg.CheckTimeout = DefaultCheckTimeout
	}
	p := &Pool{cfg: cfg, wake: make(chan struct{}), stop: make(chan struct{})}
	seen := map[string]bool{}
	for _, name := range cfg.Servers {
		if name == "" {
			return nil, errors.New("enginepool: Config.Servers has an empty name")
		}
		if seen[name] {
			return nil, fmt.Errorf("enginepool: Config.Servers names %s twice", name)
		}
		seen[name] = true
		p.servers = append(p.servers, &server{name: name, up: true})
	}
	p.mu.Lock()
	for _, s := range p.servers {
		p.emit(Event{Kind: Up, Server: s.name})
	}
	p.mu.Unlock()
	return p, nil
}

// Len returns the number of servers.
func (p *Pool) Len() int { return len(p.servers) }

// Name returns server i's name.
func (p *Pool) Name(i int) string { return p.servers[i].name }

// AnyUp reports whether a server is up.
func (p *Pool) AnyUp() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.servers {
		if s.up {
			return true
		}
	}
	return false
}

// Capacity returns how many requests the pool serves at once: servers
// times Config.Concurrency; 0 when Concurrency is unlimited.
func (p *Pool) Capacity() int { return len(p.servers) * p.cfg.Concurrency }

func (p *Pool) emit(e Event) {
	if p.cfg.OnEvent != nil {
		p.cfg.OnEvent(e)
	}
}

// broadcast wakes every Acquire waiting; p.mu held.
func (p *Pool) broadcast() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// Slot is a request's place on one server, from Acquire to Release.
type Slot struct {
	p *Pool
	// Server is the server's index in Config.Servers.
	Server int
	done   bool
}

// Acquire waits for a free slot and returns it: on the up server with the
// fewest requests in flight (ties taken in turn), avoid (an index, -1 for
// none) only when no other up server has a slot free; when no server is
// up, on the down server that failed longest ago. It returns ctx's error
// when ctx ends first, ErrClosed after Close.
func (p *Pool) Acquire(ctx context.Context, avoid int) (*Slot, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		if i := p.pick(avoid); i >= 0 {
			s := p.servers[i]
			s.inFlight++
			p.emit(Event{Kind: Started, Server: s.name, InFlight: s.inFlight})
			p.mu.Unlock()
			return &Slot{p: p, Server: i}, nil
		}
		w := p.wake
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-w:
		}
	}
}

// pick returns the server for the next request, or -1 when every
// candidate is full; p.mu held.
func (p *Pool) pick(avoid int) int {
	anyUp := false
	for _, s := range p.servers {
		anyUp = anyUp || s.up
	}
	n := len(p.servers)
	best := -1
	better := func(i int) bool {
		if best < 0 {
			return true
		}
		a, b := p.servers[i], p.servers[best]
		if (i == avoid) != (best == avoid) {
			return best == avoid
		}
		if a.inFlight != b.inFlight {
			return a.inFlight < b.inFlight
		}
		if !anyUp {
			return a.failedAt.Before(b.failedAt)
		}
		return false // the earlier in turn order wins the tie
	}
	for k := range n {
		i := (p.next + k) % n
		s := p.servers[i]
		if s.up != anyUp || (p.cfg.Concurrency > 0 && s.inFlight >= p.cfg.Concurrency) {
			continue
		}
		if better(i) {
			best = i
		}
	}
	if best >= 0 {
		p.next = (best + 1) % n
	}
	return best
}

// Release ends the slot's request with outcome; err is the failure for
// Unavailable. Unavailable marks the server down (rechecked every
// Config.RecheckInterval while another server is up); any other outcome
// but Canceled shows the server answers, so a server marked down is up
// again. Only the first call counts.
func (s *Slot) Release(outcome Outcome, err error) {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.done {
		return
	}
	s.done = true
	sv := p.servers[s.Server]
	sv.inFlight--
	p.emit(Event{Kind: Finished, Server: sv.name, InFlight: sv.inFlight, Outcome: outcome})
	switch outcome {
	case Canceled:
	case Unavailable:
		p.markDown(s.Server, err)
	default:
		p.markUp(s.Server)
	}
	p.broadcast()
}

// markDown takes server i out; p.mu held.
func (p *Pool) markDown(i int, err error) {
	s := p.servers[i]
	s.failedAt, s.lastErr = time.Now(), err
	if !s.up {
		return
	}
	s.up = false
	p.emit(Event{Kind: Down, Server: s.name, InFlight: s.inFlight, Err: err})
	if len(p.servers) > 1 && !p.probing && !p.closed {
		// With one server there is nothing to skip to: its requests are
		// its checks.
		p.probing = true
		p.wg.Add(1)
		go p.recheck()
	}
}

// markUp puts server i back; p.mu held.
func (p *Pool) markUp(i int) {
	s := p.servers[i]
	if s.up {
		return
	}
	s.up, s.lastErr = true, nil
	p.emit(Event{Kind: Up, Server: s.name, InFlight: s.inFlight})
	p.broadcast()
}

// recheck checks the servers marked down every RecheckInterval, each on
// its own, until none is down or the pool closes.
func (p *Pool) recheck() {
	defer p.wg.Done()
	t := time.NewTicker(p.cfg.RecheckInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		p.mu.Lock()
		var due []int
		down := false
		for i, s := range p.servers {
			if !s.up {
				down = true
				if !s.checking {
					s.checking = true
					due = append(due, i)
				}
			}
		}
		if !down || p.closed {
			p.probing = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		for _, i := range due {
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				err := p.check(i)
				p.mu.Lock()
				defer p.mu.Unlock()
				p.servers[i].checking = false
				p.apply(i, err)
			}()
		}
	}
}

// check runs the health check of server i within CheckTimeout (nil
// without a Check), giving up when the pool closes.
func (p *Pool) check(i int) error {
	if p.cfg.Check == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.CheckTimeout)
	defer cancel()
	go func() {
		select {
		case <-p.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return p.cfg.Check(ctx, i)
}

// apply records a health check's answer for server i; p.mu held.
func (p *Pool) apply(i int, err error) {
	switch {
	case err == nil || !errors.Is(err, transcribe.ErrEngineUnavailable):
		p.markUp(i)
	default:
		p.markDown(i, err)
	}
}

// Health checks every server at once (Config.Check), marking each up or
// down by its answer, and returns nil when at least one is up. Otherwise
// it returns the one server's error, or an error naming every server's
// failure (wrapping transcribe.ErrEngineUnavailable when one of them
// does). Without a Check it returns nil while a server is up.
func (p *Pool) Health(ctx context.Context) error {
	errs := make([]error, len(p.servers))
	if p.cfg.Check != nil {
		var wg sync.WaitGroup
		for i := range p.servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = p.cfg.Check(ctx, i)
			}()
		}
		wg.Wait()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ok := false
	for i, s := range p.servers {
		if p.cfg.Check != nil {
			p.apply(i, errs[i])
		} else if !s.up && s.lastErr != nil {
			errs[i] = s.lastErr
		}
		ok = ok || errs[i] == nil
	}
	if ok {
		return nil
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return &DownError{Errs: errs}
}

// DownError is Health's error when every server fails its check.
type DownError struct {
	// Errs are the servers' errors, in Config.Servers order.
	Errs []error
}

func (e *DownError) Error() string {
	msg := fmt.Sprintf("all %d servers fail their health checks", len(e.Errs))
	for _, err := range e.Errs {
		msg += "; " + err.Error()
	}
	return msg
}

// Unwrap returns the servers' errors.
func (e *DownError) Unwrap() []error { return e.Errs }

// ServerStats is one server's state (Stats).
type ServerStats struct {
	Name     string
	Up       bool
	InFlight int
}

// Stats returns every server's state, in Config.Servers order.
func (p *Pool) Stats() []ServerStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]ServerStats, len(p.servers))
	for i, s := range p.servers {
		out[i] = ServerStats{Name: s.name, Up: s.up, InFlight: s.inFlight}
	}
	return out
}

// Close stops the health checks of servers marked down; later Acquire
// calls return ErrClosed, and requests waiting in Acquire get it too.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.stop)
	p.broadcast()
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}
