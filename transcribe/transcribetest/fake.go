package transcribetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// FakeRecognizer is a scripted transcribe.Recognizer for unit tests of code
// that uses one. The zero value is ready: it recognizes nothing in every
// call. Set the fields before the first call and do not change them while
// calls may run; the methods are safe for concurrent use.
//
// Each Recognize call, in order: counts the call and records its options
// and audio length; fails if the fake was closed (an error wrapping
// transcribe.ErrUnavailable) or ctx is done; waits Delay (returning
// ctx.Err() if ctx ends first); returns Err when set; and otherwise
// returns the words of the first of Script, Words or Text that is set.
type FakeRecognizer struct {
	// Script, when set, computes the result from the audio and options; a
	// non-nil error is returned as is.
	Script func(audio []int16, opts transcribe.RecognizeOptions) ([]transcribe.Word, error)
	// Words, when set, is returned (copied) for every call.
	Words []transcribe.Word
	// Text, when set, is split on spaces, lowercased and spread evenly over
	// the audio's duration at Capabilities.SampleRate, with confidence
	// 0.9. Empty or all-zero audio yields no words, like silence.
	Text string
	// Model is Recognition.Model; default "fake".
	Model string
	// Delay is how long each call takes.
	Delay time.Duration
	// Err, when set, is returned by every call (after Delay).
	Err error
	// Capabilities is what Features returns; a zero SampleRate reads as
	// 16000 and nil Languages as ["en"].
	Capabilities transcribe.RecognizerFeatures

	mu      sync.Mutex
	calls   int
	active  int
	peak    int
	opts    []transcribe.RecognizeOptions
	samples []int
	closed  bool
}

var _ transcribe.Recognizer = (*FakeRecognizer)(nil)

// Recognize implements transcribe.Recognizer.
func (f *FakeRecognizer) Recognize(ctx context.Context, audio []int16, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	f.mu.Lock()
	f.calls++
	f.opts = append(f.opts, cloneOptions(opts))
	f.samples = append(f.samples, len(audio))
	closed := f.closed
	if !closed {
		f.active++
		f.peak = max(f.peak, f.active)
	}
	f.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("transcribetest: FakeRecognizer is closed: %w", transcribe.ErrUnavailable)
	}
	defer func() {
		f.mu.Lock()
		f.active--
		f.mu.Unlock()
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.Delay > 0 {
		timer := time.NewTimer(f.Delay)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
	if f.Err != nil {
		return nil, f.Err
	}
	model := f.Model
	if model == "" {
		model = "fake"
	}
	var words []transcribe.Word
	switch {
	case f.Script != nil:
		w, err := f.Script(audio, opts)
		if err != nil {
			return nil, err
		}
		words = cloneWords(w)
	case f.Words != nil:
		words = cloneWords(f.Words)
	case f.Text != "":
		words = SpreadWords(f.Text, audio, f.Features().SampleRate)
	}
	return &transcribe.Recognition{Words: words, Model: model}, nil
}

// Features implements transcribe.Recognizer.
func (f *FakeRecognizer) Features() transcribe.RecognizerFeatures {
	c := f.Capabilities
	if c.SampleRate == 0 {
		c.SampleRate = 16000
	}
	if c.Languages == nil {
		c.Languages = []string{"en"}
	} else {
		c.Languages = slices.Clone(c.Languages)
	}
	return c
}

// Close implements transcribe.Recognizer; later Recognize calls fail with
// an error wrapping transcribe.ErrUnavailable.
func (f *FakeRecognizer) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

// Calls returns how many times Recognize was called.
func (f *FakeRecognizer) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// MaxConcurrent returns the largest number of Recognize calls that ran at
// the same time.
func (f *FakeRecognizer) MaxConcurrent() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

// Options returns the options of every call, in call order.
func (f *FakeRecognizer) Options() []transcribe.RecognizeOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]transcribe.RecognizeOptions, len(f.opts))
	for i, o := range f.opts {
		out[i] = cloneOptions(o)
	}
	return out
}

// Samples returns the audio length, in samples, of every call, in call
// order.
func (f *FakeRecognizer) Samples() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.samples)
}

// Closed reports whether Close was called.
func (f *FakeRecognizer) Closed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// SpreadWords splits text on white space, lowercases it and spreads the
// words evenly over the duration of audio at sampleRate: word i of n spans
// the i-th n-th of the audio, less a 10% gap at its end, with confidence
// 0.9. Empty or all-zero audio, empty text or a sampleRate <= 0 give no
// words.
func SpreadWords(text string, audio []int16, sampleRate int) []transcribe.Word {
	fields := strings.Fields(strings.ToLower(text))
	if len(fields) == 0 || sampleRate <= 0 || silent(audio) {
		return nil
	}
	total := int64(len(audio)) * 1000 / int64(sampleRate)
	n := int64(len(fields))
	words := make([]transcribe.Word, len(fields))
	for i, w := range fields {
		start := total * int64(i) / n
		end := total * int64(i+1) / n
		end -= (end - start) / 10
		if end <= start {
			end = start + 1
		}
		words[i] = transcribe.Word{Text: w, Start: start, End: end, Confidence: 0.9}
	}
	return words
}

func silent(audio []int16) bool {
	for _, s := range audio {
		if s != 0 {
			return false
		}
	}
	return true
}

func cloneWords(ws []transcribe.Word) []transcribe.Word {
	if ws == nil {
		return nil
	}
	out := make([]transcribe.Word, len(ws))
	for i, w := range ws {
		if w.Speaker != nil {
			s := *w.Speaker
			w.Speaker = &s
		}
		if w.Channel != nil {
			c := *w.Channel
			w.Channel = &c
		}
		out[i] = w
	}
	return out
}

func cloneOptions(o transcribe.RecognizeOptions) transcribe.RecognizeOptions {
	o.WordBoost = slices.Clone(o.WordBoost)
	return o
}

// ErrScripted is a ready-made error for FakeRecognizer.Err.
var ErrScripted = errors.New("transcribetest: scripted recognizer failure")
