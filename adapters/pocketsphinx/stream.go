package pocketsphinx

import (
	"context"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// maxStreamRate bounds StreamOptions.SampleRate.
const maxStreamRate = 192000

// NewStream starts a streaming session on its own pooled decoder (waiting
// for one while all are busy, until ctx is done). opts.SampleRate 0 means
// 16000; other rates are resampled inside the stream. opts.WordBoost biases
// the whole session with the default boost weight.
func (r *Recognizer) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	rate := opts.SampleRate
	if rate == 0 {
		rate = SampleRate
	}
	if rate < 1000 || rate > maxStreamRate {
		return nil, fmt.Errorf("pocketsphinx: stream sample rate %d out of range 1000..%d", opts.SampleRate, maxStreamRate)
	}
	boost, err := parseBoost(opts.WordBoost, "")
	if err != nil {
		return nil, err
	}
	d, err := r.acquire(ctx)
	if err != nil {
		return nil, err
	}
	st := &Stream{r: r, d: d, boosted: boost != nil}
	if boost != nil {
		if err := d.applyBoost(boost); err != nil {
			st.boosted = false
			d.clearBoost()
			r.release(d)
			return nil, err
		}
	}
	if rate != SampleRate {
		if st.rs, err = media.NewInt16Resampler(rate, SampleRate); err != nil {
			st.Close()
			return nil, err
		}
		st.rate = rate
	}
	if st.s, err = newSession(d); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// Stream is one incremental recognition session (transcribe.Stream). Word
// times are milliseconds since the stream started, continuing across
// utterances. Not safe for concurrent use.
type Stream struct {
	r       *Recognizer
	d       *decoder
	s       *session
	rs      *media.Int16Resampler
	rsOut   []int16 // the resampler's output buffer, reused
	rate    int     // the stream's own rate when it is resampled
	boosted bool
	closed  bool
}

// Write feeds samples at the stream's sample rate.
func (st *Stream) Write(samples []int16) error {
	if st.closed {
		return ErrClosed
	}
	if st.rs != nil {
		st.rsOut = st.rs.Process(st.rsOut, samples)
		samples = st.rsOut
	}
	return st.s.feed(samples)
}

// Partial returns the words of the open utterance so far: finished
// stretches of speech with their posteriors, the stretch in progress with
// confidences estimated from its acoustic scores (partialConfidence).
func (st *Stream) Partial() (transcribe.Hypothesis, error) {
	if st.closed {
		return transcribe.Hypothesis{}, ErrClosed
	}
	return transcribe.Hypothesis{Words: st.s.partial()}, nil
}

// EndUtterance decodes everything written, closes the utterance and returns
// its final words. The next Write starts a new utterance.
func (st *Stream) EndUtterance() (transcribe.Hypothesis, error) {
	if st.closed {
		return transcribe.Hypothesis{}, ErrClosed
	}
	if st.rs != nil {
		// The tail the filter holds back ends this utterance; the next
		// utterance starts a fresh filter.
		st.rsOut = st.rs.Flush(st.rsOut)
		if err := st.s.feed(st.rsOut); err != nil {
			return transcribe.Hypothesis{}, err
		}
		st.rs, _ = media.NewInt16Resampler(st.rate, SampleRate)
	}
	words, err := st.s.finish()
	if err != nil {
		return transcribe.Hypothesis{}, err
	}
	return transcribe.Hypothesis{Words: words}, nil
}

// Close ends the session and returns the decoder to the pool. Closing twice
// is harmless.
func (st *Stream) Close() error {
	if st.closed {
		return nil
	}
	st.closed = true
	if st.s != nil {
		st.s.abort()
	}
	if st.boosted {
		st.d.clearBoost()
	}
	st.r.release(st.d)
	return nil
}
