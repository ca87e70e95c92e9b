// Package streamtest holds the test helpers that the realtime (v2) and
// realtime/universal (v3) tests share: a fake transcribe.StreamRecognizer,
// an injectable clock, PCM builders (tones, silence, chunks), real-speech
// clips and a word-overlap score.
//
// It is a package of its own, not part of realtimetest, because
// realtimetest imports realtime, and the realtime package's own tests
// could not import it back (an import cycle).
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: FakeStream,
// the type FakeRecognizer's streams have, for tests that inspect one.
package streamtest

import (
	"context"
	"errors"
	"math"
	"sync"

	"github.com/earshot-dev/earshot/transcribe"
)

// FakeRecognizer is a transcribe.StreamRecognizer for tests: its streams
// call every burst of energy (at least 50 ms above RMS LoudRMS, ended by
// 30 ms below) a word, named by its position in the stream: "one", "two",
// ... (or by Names). Set the fields before use; while streams are open,
// change them with the Set methods.
type FakeRecognizer struct {
	NewErr   error    // NewStream's error
	WriteErr error    // every stream's Write error
	Block    bool     // NewStream waits for ctx, like a pool with no free decoder
	LoudRMS  float64  // a frame is part of a word above this RMS; default 1000
	Names    []string // the words' names in order, repeated; default one, two, ...

	mu      sync.Mutex
	open    int
	streams []*FakeStream
}

var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// Recognize fails: the fake only streams.
func (f *FakeRecognizer) Recognize(context.Context, []int16, transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	return nil, errors.New("fake: batch recognition not supported")
}

// Features reports 16 kHz English streaming with word times.
func (f *FakeRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, WordTimestamps: true, Streaming: true, Languages: []string{"en"}}
}

// Close does nothing.
func (f *FakeRecognizer) Close() error { return nil }

// NewStream opens a stream, or returns NewErr, or with Block waits for
// ctx to end.
func (f *FakeRecognizer) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	f.mu.Lock()
	block, err := f.Block, f.NewErr
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	s := &FakeStream{rec: f, opts: opts}
	f.mu.Lock()
	f.open++
	f.streams = append(f.streams, s)
	f.mu.Unlock()
	return s, nil
}

// SetNewErr sets NewErr under the recognizer's lock.
func (f *FakeRecognizer) SetNewErr(err error) {
	f.mu.Lock()
	f.NewErr = err
	f.mu.Unlock()
}

// SetWriteErr sets WriteErr under the recognizer's lock.
func (f *FakeRecognizer) SetWriteErr(err error) {
	f.mu.Lock()
	f.WriteErr = err
	f.mu.Unlock()
}

// SetBlock sets Block under the recognizer's lock.
func (f *FakeRecognizer) SetBlock(b bool) {
	f.mu.Lock()
	f.Block = b
	f.mu.Unlock()
}

// SetLoudRMS sets LoudRMS under the recognizer's lock.
func (f *FakeRecognizer) SetLoudRMS(rms float64) {
	f.mu.Lock()
	f.LoudRMS = rms
	f.mu.Unlock()
}

// OpenStreams is the number of streams opened and not yet closed.
func (f *FakeRecognizer) OpenStreams() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open
}

// Streams returns every stream opened so far, closed ones included.
func (f *FakeRecognizer) Streams() []*FakeStream {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*FakeStream(nil), f.streams...)
}

// FakeStream is a stream of a FakeRecognizer.
type FakeStream struct {
	rec    *FakeRecognizer
	opts   transcribe.StreamOptions
	mu     sync.Mutex
	pos    int64 // samples written
	buf    []int16
	count  int // words in the stream so far
	words  []transcribe.Word
	loud   int   // consecutive loud frames
	quiet  int   // consecutive quiet frames
	start  int64 // ms where the current burst began
	closed bool
}

// Options returns the options the stream was opened with.
func (s *FakeStream) Options() transcribe.StreamOptions { return s.opts }

// Write takes samples; it fails after Close or with the recognizer's
// WriteErr.
func (s *FakeStream) Write(x []int16) error {
	s.rec.mu.Lock()
	werr, loud, names := s.rec.WriteErr, s.rec.LoudRMS, s.rec.Names
	s.rec.mu.Unlock()
	if werr != nil {
		return werr
	}
	if loud == 0 {
		loud = 1000
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("fake: write after close")
	}
	frame := s.opts.SampleRate / 100
	s.buf = append(s.buf, x...)
	for len(s.buf) >= frame {
		var e float64
		for _, v := range s.buf[:frame] {
			e += float64(v) * float64(v)
		}
		s.buf = s.buf[frame:]
		ms := s.pos * 1000 / int64(s.opts.SampleRate)
		s.pos += int64(frame)
		if math.Sqrt(e/float64(frame)) > loud {
			if s.loud == 0 {
				s.start = ms
			}
			s.loud++
			s.quiet = 0
			continue
		}
		s.quiet++
		if s.loud >= 5 && s.quiet == 3 {
			s.emit(ms-20, names)
		}
		if s.quiet >= 3 {
			s.loud = 0
		}
	}
	return nil
}

func (s *FakeStream) emit(end int64, names []string) {
	s.count++
	name := "many"
	if s.count < len(numberWords) {
		name = numberWords[s.count]
	}
	if len(names) > 0 {
		name = names[(s.count-1)%len(names)]
	}
	s.words = append(s.words, transcribe.Word{Text: name, Start: s.start, End: end, Confidence: 0.9})
	s.loud = 0
}

// Partial returns the words of the current utterance so far.
func (s *FakeStream) Partial() (transcribe.Hypothesis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return transcribe.Hypothesis{Words: append([]transcribe.Word(nil), s.words...)}, nil
}

// EndUtterance ends the current utterance (a burst still loud is a word)
// and returns its words.
func (s *FakeStream) EndUtterance() (transcribe.Hypothesis, error) {
	s.rec.mu.Lock()
	names := s.rec.Names
	s.rec.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loud >= 5 {
		s.emit(s.pos*1000/int64(s.opts.SampleRate), names)
	}
	s.loud, s.quiet = 0, 0
	h := transcribe.Hypothesis{Words: s.words}
	s.words = nil
	return h, nil
}

// Close closes the stream; a second Close fails.
func (s *FakeStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("fake: double close")
	}
	s.closed = true
	s.rec.mu.Lock()
	s.rec.open--
	s.rec.mu.Unlock()
	return nil
}
