package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// A batcher runs reads in batches, one statement for many, when reads
// come faster than the database answers them: a read that finds fewer
// than maxInFlight statements of its batcher running runs at once, alone
// (no wait when reads are few); otherwise it joins the next batch, which
// starts as soon as a running statement ends, or maxWait after it was
// formed, whichever comes first (so a statement that hangs holds up no
// other read for longer than that). A batch starts after every read in
// it was asked for, so each read sees every write committed before it
// was asked for, as a statement of its own would: batching saves round
// trips and statements (the CPU of both ends, which a confirmation per
// GET spends mostly on them), never freshness.
//
// The zero batcher is ready.
type batcher[Q, R any] struct {
	mu       sync.Mutex
	inFlight int
	next     *batch[Q, R]
}

// batch is the reads that run in one statement.
type batch[Q, R any] struct {
	run  func(ctx context.Context, qs []Q) ([]R, error)
	qs   []Q
	ctxs []context.Context
	res  []R
	err  error
	done chan struct{}
}

const (
	// maxInFlight is how many statements of one batcher may run at once
	// before reads wait to join the next batch. One: under load, every
	// read that comes while a statement runs shares the next, which
	// costs a read at most the rest of one statement's round trip.
	maxInFlight = 1
	// maxWait is how long the next batch waits for a running statement
	// to end before it starts anyway.
	maxWait = 2 * time.Millisecond
	// maxBatch bounds a batch; a read that finds the next batch full runs
	// alone.
	maxBatch = 64
)

// do reads q with run (which answers qs in their order), alone or in a
// batch.
func (b *batcher[Q, R]) do(ctx context.Context, q Q, run func(ctx context.Context, qs []Q) ([]R, error)) (R, error) {
	var zero R
	b.mu.Lock()
	if b.inFlight < maxInFlight {
		b.inFlight++
		b.mu.Unlock()
		rs, err := run(ctx, []Q{q})
		b.finished()
		if err != nil {
			return zero, err
		}
		return rs[0], nil
	}
	nb := b.next
	if nb == nil {
		nb = &batch[Q, R]{run: run, done: make(chan struct{})}
		b.next = nb
		time.AfterFunc(maxWait, func() { b.start(nb) })
	}
	if len(nb.qs) >= maxBatch {
		b.mu.Unlock()
		rs, err := run(ctx, []Q{q})
		if err != nil {
			return zero, err
		}
		return rs[0], nil
	}
	i := len(nb.qs)
	nb.qs = append(nb.qs, q)
	nb.ctxs = append(nb.ctxs, ctx)
	b.mu.Unlock()
	select {
	case <-nb.done:
		if nb.err != nil {
			return zero, nb.err
		}
		return nb.res[i], nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// finished ends a running statement: the next batch, if any, takes its
// place.
func (b *batcher[Q, R]) finished() {
	b.mu.Lock()
	nb := b.next
	b.next = nil
	if nb == nil {
		b.inFlight--
	}
	b.mu.Unlock()
	if nb != nil {
		go b.runBatch(nb)
	}
}

// start starts nb, if it is still waiting, in a place of its own.
func (b *batcher[Q, R]) start(nb *batch[Q, R]) {
	b.mu.Lock()
	if b.next != nb {
		b.mu.Unlock()
		return
	}
	b.next = nil
	b.inFlight++
	b.mu.Unlock()
	b.runBatch(nb)
}

// runBatch runs nb, whose reads wait for it, then ends.
func (b *batcher[Q, R]) runBatch(nb *batch[Q, R]) {
	ctx, cancel := batchContext(nb.ctxs)
	nb.res, nb.err = nb.run(ctx, nb.qs)
	cancel()
	close(nb.done)
	b.finished()
}

// batchContext is the context a batch runs under: its first read's
// values, the latest deadline of its reads (none if one has none), done
// once every read's own context is (no read waits for it then).
func batchContext(ctxs []context.Context) (context.Context, context.CancelFunc) {
	var latest time.Time
	for _, c := range ctxs {
		d, ok := c.Deadline()
		if !ok {
			latest = time.Time{}
			break
		}
		if d.After(latest) {
			latest = d
		}
	}
	base := context.WithoutCancel(ctxs[0])
	var (
		ctx    context.Context
		cancel context.CancelFunc
	)
	if latest.IsZero() {
		ctx, cancel = context.WithCancel(base)
	} else {
		ctx, cancel = context.WithDeadline(base, latest)
	}
	var left atomic.Int64
	left.Store(int64(len(ctxs)))
	stops := make([]func() bool, len(ctxs))
	for i, c := range ctxs {
		stops[i] = context.AfterFunc(c, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}
