package realtime

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// fakeRecognizer is a StreamRecognizer for tests: its streams call every
// burst of energy (at least 50 ms above RMS 1000, ended by 30 ms below) a
// word, named by its position in the stream: "one", "two", ...
type fakeRecognizer struct {
	mu       sync.Mutex
	open     int
	streams  []*fakeStream
	newErr   error
	writeErr error
	block    bool    // NewStream waits for ctx, like a pool with no free decoder
	loudRMS  float64 // a frame is part of a word above this RMS; default 1000
}

var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

func (f *fakeRecognizer) Recognize(ctx context.Context, audio []int16, opts transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	return nil, errors.New("fake: batch recognition not supported")
}

func (f *fakeRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, WordTimestamps: true, Streaming: true, Languages: []string{"en"}}
}

func (f *fakeRecognizer) Close() error { return nil }

func (f *fakeRecognizer) NewStream(ctx context.Context, opts transcribe.StreamOptions) (transcribe.Stream, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.block {
		f.mu.Unlock()
		<-ctx.Done()
		f.mu.Lock()
		return nil, ctx.Err()
	}
	if f.newErr != nil {
		return nil, f.newErr
	}
	s := &fakeStream{rec: f, opts: opts}
	f.open++
	f.streams = append(f.streams, s)
	return s, nil
}

func (f *fakeRecognizer) openStreams() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open
}

type fakeStream struct {
	rec     *fakeRecognizer
	opts    transcribe.StreamOptions
	mu      sync.Mutex
	pos     int64 // samples written
	buf     []int16
	count   int // words in the stream so far
	words   []transcribe.Word
	loud    int   // consecutive loud frames
	quiet   int   // consecutive quiet frames
	start   int64 // ms where the current burst began
	ends    int
	closed  bool
	written int64
}

func (s *fakeStream) Write(x []int16) error {
	s.rec.mu.Lock()
	werr := s.rec.writeErr
	s.rec.mu.Unlock()
	if werr != nil {
		return werr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("fake: write after close")
	}
	s.written += int64(len(x))
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
		loud := s.rec.loudRMS
		if loud == 0 {
			loud = 1000
		}
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
			s.emit(ms - 20)
		}
		if s.quiet >= 3 {
			s.loud = 0
		}
	}
	return nil
}

func (s *fakeStream) emit(end int64) {
	s.count++
	name := "many"
	if s.count < len(numberWords) {
		name = numberWords[s.count]
	}
	s.words = append(s.words, transcribe.Word{Text: name, Start: s.start, End: end, Confidence: 0.9})
	s.loud = 0
}

func (s *fakeStream) Partial() (transcribe.Hypothesis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return transcribe.Hypothesis{Words: append([]transcribe.Word(nil), s.words...)}, nil
}

func (s *fakeStream) EndUtterance() (transcribe.Hypothesis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loud >= 5 {
		s.emit(s.pos * 1000 / int64(s.opts.SampleRate))
	}
	s.loud, s.quiet = 0, 0
	h := transcribe.Hypothesis{Words: s.words}
	s.words = nil
	s.ends++
	return h, nil
}

func (s *fakeStream) Close() error {
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

// fakeClock is an injectable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 4, 14, 14, 36, 994363000, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// tone returns ms of a 440 Hz tone at rate as little-endian PCM.
func tone(ms, rate int) []byte { return toneAt(ms, rate, 8000) }

// toneAt returns ms of a 440 Hz tone of amplitude amp.
func toneAt(ms, rate int, amp float64) []byte {
	n := ms * rate / 1000
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		v := int16(amp * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// silence returns ms of zero samples at rate as PCM.
func silence(ms, rate int) []byte { return make([]byte, 2*(ms*rate/1000)) }

// chunks splits PCM into pieces of ms milliseconds at rate.
func chunks(b []byte, ms, rate int) [][]byte {
	size := 2 * ms * rate / 1000
	var out [][]byte
	for len(b) > 0 {
		n := min(size, len(b))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
