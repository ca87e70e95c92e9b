package postgres

import (
	"context"
	"sync"
	"time"
)

// A batcher runs reads in batches, one statement for many, when reads
// come faster than the database answers them: a read that finds fewer
// than maxInFlight statements of its batcher running runs at once, alone
// (no wait when reads are few); otherwise it joins the next batch, which
// starts as soon as a running statement ends. A batch starts after every
// read in it was asked for, so each read sees every write committed
// before it was asked for, as a statement of its own would: batching
// saves round trips and statements (the CPU of both ends, which a
// confirmation per GET spends mostly on them), never freshness.
//
// run answers qs in their order. The zero batcher is ready.
type batcher[Q, R any] struct {
	mu       sync.Mutex
	inFlight int
	next     *batch[Q, R]
}

// batch is the reads that run in one statement.
type batch[Q, R any] struct {
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
	// maxBatch bounds a batch; a read that finds the next batch full runs
	// alone.
	maxBatch = 64
)

// do reads q with run, alone or in a batch.
func (b *batcher[Q, R]) do(ctx context.Context, q Q, run func(ctx context.Context, qs []Q) ([]R, error)) (R, error) {
	var zero R
	b.mu.Lock()
	if b.inFlight < maxInFlight {
		b.inFlight++
		b.mu.Unlock()
		rs, err := run(ctx, []Q{q})
		b.finished(run)
		if err != nil {
			return zero, err
		}
		return rs[0], nil
	}
	nb := b.next
	if nb == nil {
		nb = &batch[Q, R]{done: make(chan struct{})}
		b.next = nb
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
func (b *batcher[Q, R]) finished(run func(ctx context.Context, qs []Q) ([]R, error)) {
	b.mu.Lock()
	nb := b.next
	b.next = nil
	if nb == nil {
		b.inFlight--
	}
	b.mu.Unlock()
	if nb != nil {
		go b.runBatch(nb, run)
	}
}

// runBatch runs nb, whose reads wait for it, then ends.
func (b *batcher[Q, R]) runBatch(nb *batch[Q, R], run func(ctx context.Context, qs []Q) ([]R, error)) {
	ctx, cancel := batchContext(nb.ctxs)
	nb.res, nb.err = run(ctx, nb.qs)
	cancel()
	close(nb.done)
	b.finished(run)
}

// batchContext is the context a batch runs under: its first read's
// values, without its cancellation, and the latest deadline of its reads
// (none if one has none). A read whose own context ends stops waiting.
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
	if latest.IsZero() {
		return context.WithCancel(base)
	}
	return context.WithDeadline(base, latest)
}
