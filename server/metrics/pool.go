package metrics

import (
	"context"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/earshot-dev/earshot/transcribe"
)

// InstrumentPool returns rec wrapped so that earshot_decoders_in_use{pool}
// counts its recognitions in flight and its open streams (each holds one
// of a pooled recognizer's decoders, such as pocketsphinx's), and sets
// earshot_decoders{pool} to size, the most the pool holds. A call still
// waiting for a free decoder counts as in use: in_use reaching size means
// the pool is the bottleneck. The wrapper is a StreamRecognizer and a
// FileRecognizer exactly when rec is; recognizer methods outside those
// interfaces (pocketsphinx's Warm) stay on rec, which the wrapper's
// Unwrap() transcribe.Recognizer method returns.
func (m *Metrics) InstrumentPool(pool string, size int, rec transcribe.Recognizer) transcribe.Recognizer {
	m.poolSize.WithLabelValues(pool).Set(float64(size))
	c := &counted{Recognizer: rec, inUse: m.poolInUse.WithLabelValues(pool)}
	sr, stream := rec.(transcribe.StreamRecognizer)
	fr, file := rec.(transcribe.FileRecognizer)
	switch {
	case stream && file:
		return &countedStreamFile{countedStream{c, sr}, fr}
	case stream:
		return &countedStream{c, sr}
	case file:
		return &countedFile{c, fr}
	}
	return c
}

type counted struct {
	transcribe.Recognizer
	inUse prometheus.Gauge
}

// Unwrap returns the wrapped recognizer (EngineCheck warms it).
func (c *counted) Unwrap() transcribe.Recognizer { return c.Recognizer }

func (c *counted) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	c.inUse.Inc()
	defer c.inUse.Dec()
	return c.Recognizer.Recognize(ctx, audio, o)
}

type countedStream struct {
	*counted
	sr transcribe.StreamRecognizer
}

func (c *countedStream) NewStream(ctx context.Context, o transcribe.StreamOptions) (transcribe.Stream, error) {
	c.inUse.Inc()
	st, err := c.sr.NewStream(ctx, o)
	if err != nil {
		c.inUse.Dec()
		return nil, err
	}
	return &countedStreamHandle{Stream: st, inUse: c.inUse}, nil
}

// countedStreamHandle gives its decoder back to the count on the first
// Close.
type countedStreamHandle struct {
	transcribe.Stream
	inUse prometheus.Gauge
	once  sync.Once
}

func (s *countedStreamHandle) Close() error {
	s.once.Do(s.inUse.Dec)
	return s.Stream.Close()
}

type countedFile struct {
	*counted
	fr transcribe.FileRecognizer
}

func (c *countedFile) AcceptsFile(format string) bool { return c.fr.AcceptsFile(format) }

func (c *countedFile) RecognizeFile(ctx context.Context, path string, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	c.inUse.Inc()
	defer c.inUse.Dec()
	return c.fr.RecognizeFile(ctx, path, o)
}

type countedStreamFile struct {
	countedStream
	fr transcribe.FileRecognizer
}

func (c *countedStreamFile) AcceptsFile(format string) bool { return c.fr.AcceptsFile(format) }

func (c *countedStreamFile) RecognizeFile(ctx context.Context, path string, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	c.inUse.Inc()
	defer c.inUse.Dec()
	return c.fr.RecognizeFile(ctx, path, o)
}
