package isolate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/earshot-dev/earshot/transcribe"
)

// Recognizer runs a registered engine in supervised worker processes. It
// implements transcribe.Recognizer and transcribe.StreamRecognizer (NewStream
// fails with ErrNotStreaming when the engine does not stream) and is safe
// for concurrent use.
type Recognizer struct {
	p        *pool
	features transcribe.RecognizerFeatures
	once     sync.Once
}

var (
	_ transcribe.Recognizer       = (*Recognizer)(nil)
	_ transcribe.StreamRecognizer = (*Recognizer)(nil)
)

// New starts one worker for cfg.Engine, asks it for the engine's features
// and returns the Recognizer; the worker stays in the pool. The engine's
// construction errors come back as they are (a missing library wraps
// transcribe.ErrUnavailable). New fails when the binary's main did not call
// Main first (a re-executed binary would run the host again) and when the
// engine is not registered (ErrNotRegistered).
func New(cfg Config) (*Recognizer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if !mainCalled.Load() {
		return nil, errors.New("isolate: isolate.Main was not called at the start of main (or TestMain); without it a worker process would run the host program again")
	}
	if _, ok := lookup(cfg.Engine); !ok {
		return nil, fmt.Errorf("%w: %q (registered: %v)", ErrNotRegistered, cfg.Engine, registered())
	}
	engine, err := cfg.engineJSON()
	if err != nil {
		return nil, err
	}
	p := newPool(cfg, engine)
	p.tokens <- struct{}{}
	w, rd, err := p.newWorker(context.Background())
	if err != nil {
		return nil, err
	}
	p.release(w)
	go p.reaper()
	return &Recognizer{p: p, features: rd.Features}, nil
}

func registered() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	var names []string
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Features returns the engine's features, as its first worker reported
// them.
func (r *Recognizer) Features() transcribe.RecognizerFeatures {
	f := r.features
	f.Languages = slices.Clone(f.Languages)
	return f
}

// Recognize sends the audio to an idle worker (starting one if none is idle
// and fewer than Processes are busy, waiting otherwise) and returns its
// engine's result or error. A cancelled ctx returns ctx.Err() at once; the
// worker is told to stop and is killed if it has not within StopGrace. A
// worker that dies gives a *CrashError (wrapping
// transcribe.ErrEngineCrashed), and the pool starts another.
func (r *Recognizer) Recognize(ctx context.Context, audio []int16, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	js, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("isolate: encoding options: %w", err)
	}
	w, err := r.p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	res, err := w.call(ctx, msgRecognize, js, audio)
	r.p.release(w)
	if err != nil {
		return nil, err
	}
	var rec transcribe.Recognition
	if err := json.Unmarshal(res, &rec); err != nil {
		return nil, fmt.Errorf("isolate: unreadable recognition from the %s worker: %w", r.p.cfg.Engine, err)
	}
	return &rec, nil
}

// Warm starts workers until n (at most Processes) are alive and has each
// build its engine's models now (by calling the engine's
// Warm(ctx, 1) error method, when it has one), so the first requests do
// not pay for it.
func (r *Recognizer) Warm(ctx context.Context, n int) error {
	n = min(n, r.p.cfg.Processes)
	ws := make([]*worker, 0, n)
	defer func() {
		for _, w := range ws {
			r.p.release(w)
		}
	}()
	for range n {
		w, err := r.p.acquire(ctx)
		if err != nil {
			return err
		}
		ws = append(ws, w)
	}
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = w.call(ctx, msgWarm, nil, nil)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Stats reports the workers' numbers now.
func (r *Recognizer) Stats() Stats { return r.p.stats() }

// Close stops every worker and returns when all have exited: idle workers
// exit when their request pipe closes (and are killed after StopGrace);
// busy ones are killed at once and their calls and streams fail with
// ErrClosed. Later calls fail with ErrClosed. Closing twice is harmless.
func (r *Recognizer) Close() error {
	r.p.close()
	return nil
}
