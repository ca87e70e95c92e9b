package isolate

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"
)

// pool keeps at most cfg.Processes workers. A token in tokens is held by
// every caller that holds a worker (and by a worker being started, drained
// after a cancelled request, or replaced), so busy workers never exceed
// Processes; idle workers hold none, and a new worker is started only when
// none is idle, so live workers never exceed it either (except for moments
// while a stopped worker exits).
type pool struct {
	cfg    Config
	env    []string
	engine json.RawMessage

	tokens     chan struct{}
	done       chan struct{} // closed by close
	base       context.Context
	cancelBase context.CancelFunc

	mu     sync.Mutex
	idle   []*worker // most recently used last
	live   map[*worker]struct{}
	closed bool
	nextID int

	bg       sync.WaitGroup // drains, replacements, stops
	started  atomic.Uint64
	crashes  atomic.Uint64
	restarts atomic.Uint64
}

func newPool(cfg Config, engine json.RawMessage) *pool {
	base, cancel := context.WithCancel(context.Background())
	return &pool{
		cfg: cfg, env: cfg.workerEnv(), engine: engine,
		tokens: make(chan struct{}, cfg.Processes), done: make(chan struct{}),
		base: base, cancelBase: cancel,
		live: map[*worker]struct{}{},
	}
}

// acquire returns a worker for the caller's exclusive use: an idle one, or
// a new one when none is idle and fewer than Processes are busy. It waits
// for a free worker until ctx is done.
func (p *pool) acquire(ctx context.Context) (*worker, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case <-p.done:
		return nil, ErrClosed
	default:
	}
	select {
	case p.tokens <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.done:
		return nil, ErrClosed
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			<-p.tokens
			return nil, ErrClosed
		}
		n := len(p.idle)
		if n == 0 {
			p.mu.Unlock()
			break
		}
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		if w.dead() { // died while idle (killed from outside, out of memory)
			w.logIdleDeath()
			p.remove(w)
			continue
		}
		return w, nil
	}
	w, _, err := p.newWorker(ctx)
	if err != nil {
		<-p.tokens
		return nil, err
	}
	return w, nil
}

// newWorker starts a worker and adds it to the live set.
func (p *pool) newWorker(ctx context.Context) (*worker, *ready, error) {
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.mu.Unlock()
	w, r, err := p.startWorker(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	p.started.Add(1)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		w.closing.Store(true)
		w.discard()
		return nil, nil, ErrClosed
	}
	p.live[w] = struct{}{}
	p.mu.Unlock()
	return w, r, nil
}

// release takes back a worker from its caller: idle again if healthy,
// drained in the background after a cancelled request, discarded (and
// replaced) when it died or was killed.
func (p *pool) release(w *worker) {
	switch {
	case w.stream || w.dead() || w.killed.Load():
		p.remove(w)
		<-p.tokens
		p.replace()
	case w.pending:
		ok := p.background(func() {
			if w.drain() {
				p.putIdle(w)
				<-p.tokens
				return
			}
			p.remove(w)
			<-p.tokens
			p.replace()
		})
		if !ok { // closed
			p.remove(w)
			<-p.tokens
		}
	default:
		p.putIdle(w)
		<-p.tokens
	}
}

// background runs f in a goroutine that close waits for, unless the pool
// is closed (then it returns false and does not run f).
func (p *pool) background(f func()) bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false
	}
	p.bg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.bg.Done()
		f()
	}()
	return true
}

func (p *pool) putIdle(w *worker) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.remove(w)
		return
	}
	w.lastUsed = p.cfg.Now()
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// remove takes w out of the pool and kills it if it is still alive.
func (p *pool) remove(w *worker) {
	p.mu.Lock()
	delete(p.live, w)
	p.mu.Unlock()
	w.discard()
}

// replace starts a worker in the background to take the place of one that
// was lost, so that the next request does not wait for a start.
func (p *pool) replace() {
	p.background(func() {
		select {
		case p.tokens <- struct{}{}:
		case <-p.done:
			return
		}
		defer func() { <-p.tokens }()
		p.mu.Lock()
		needed := len(p.idle) == 0 && len(p.live) < p.cfg.Processes
		p.mu.Unlock()
		if !needed { // a caller started one meanwhile
			return
		}
		w, _, err := p.newWorker(p.base)
		if err != nil {
			if p.base.Err() == nil {
				p.cfg.Logger.Error("restarting a speech engine worker", "engine", p.cfg.Engine, "err", err)
			}
			return
		}
		p.restarts.Add(1)
		p.cfg.Logger.Info("speech engine worker restarted", "engine", p.cfg.Engine, "pid", w.pid)
		p.putIdle(w)
	})
}

// reap stops the workers idle since before now - IdleTimeout.
func (p *pool) reap(now time.Time) {
	if p.cfg.IdleTimeout < 0 {
		return
	}
	var stale []*worker
	p.mu.Lock()
	keep := p.idle[:0]
	for _, w := range p.idle {
		if now.Sub(w.lastUsed) >= p.cfg.IdleTimeout || w.dead() {
			stale = append(stale, w)
			delete(p.live, w)
		} else {
			keep = append(keep, w)
		}
	}
	clear(p.idle[len(keep):])
	p.idle = keep
	p.mu.Unlock()
	for _, w := range stale {
		if w.dead() && !w.killed.Load() {
			w.logIdleDeath()
		}
		if !p.background(func() {
			w.stop()
			w.discard()
		}) {
			w.discard()
		}
	}
}

// reaper calls reap a few times per IdleTimeout until the pool closes.
func (p *pool) reaper() {
	if p.cfg.IdleTimeout < 0 {
		return
	}
	every := min(max(p.cfg.IdleTimeout/4, 10*time.Millisecond), 30*time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.reap(p.cfg.Now())
		}
	}
}

// close stops every worker: idle ones by closing their request pipe (and
// killing them after StopGrace), busy ones at once (their callers get
// ErrClosed). It returns when all have exited.
func (p *pool) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.bg.Wait()
		return
	}
	p.closed = true
	close(p.done)
	p.cancelBase()
	idle := map[*worker]bool{}
	for _, w := range p.idle {
		idle[w] = true
	}
	var all []*worker
	for w := range p.live {
		all = append(all, w)
	}
	p.idle = nil
	p.live = map[*worker]struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range all {
		w.closing.Store(true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if idle[w] {
				w.stop()
			} else {
				w.kill()
				<-w.exited
			}
			w.discard()
		}()
	}
	wg.Wait()
	p.bg.Wait()
}

// Stats describes a Recognizer's workers at one moment.
type Stats struct {
	Processes int    // worker processes alive
	Idle      int    // of which waiting for work
	Started   uint64 // workers started since New
	Crashes   uint64 // workers that died while holding a request or stream
	Restarts  uint64 // workers started in the background to replace lost ones
}

func (p *pool) stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Processes: len(p.live), Idle: len(p.idle), Started: p.started.Load(), Crashes: p.crashes.Load(), Restarts: p.restarts.Load()}
}

// pids lists the live workers' process ids (for tests).
func (p *pool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for w := range p.live {
		out = append(out, w.pid)
	}
	return out
}
