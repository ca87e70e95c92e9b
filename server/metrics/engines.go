package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// EngineHealthTTL is how long EngineCheck reuses a remote engine's health
// answer.
const EngineHealthTTL = 5 * time.Second

// healther is a remote engine with a health check of its own.
type healther interface {
	Health(ctx context.Context) error
}

// cachedHealth runs fn at most once per EngineHealthTTL, one call at a
// time; an answer cut off by the caller's context is not kept.
type cachedHealth struct {
	fn func(ctx context.Context) error

	mu  sync.Mutex
	at  time.Time
	err error
}

func (c *cachedHealth) check(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < EngineHealthTTL {
		return c.err
	}
	err := c.fn(ctx)
	if ctx.Err() == nil {
		c.at, c.err = time.Now(), err
	}
	return err
}

// WatchEngine adds earshot_engine_up{engine}: 1 while check (an
// EngineCheck) passes, 0 while it fails, run at each scrape within
// CountTimeout (a remote engine's answer is reused for EngineHealthTTL).
// Call it once per engine.
func (m *Metrics) WatchEngine(engine string, check Check) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "earshot_engine_up",
		Help:        "Whether the speech engine passes its health check (1) or not (0), by engine.",
		ConstLabels: prometheus.Labels{"engine": engine},
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.CountTimeout)
		defer cancel()
		if check.Func(ctx) != nil {
			return 0
		}
		return 1
	}))
}
