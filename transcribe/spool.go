package transcribe

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Sink receives decoded audio as a StreamDecoder produces it.
//
//   - Start is called before any Write, with the channel count (after any
//     mix-down), the sample rate, and the number of frames the container
//     declares at that rate (0 when it does not say). An error stops
//     decoding; DecodeTo returns it. Start may be called again when the
//     decoder starts over (it found corrupt data and falls back to another
//     decoder): the sink then drops everything written so far.
//   - Write appends samples of channel c; they are valid only during the
//     call. An error stops decoding; DecodeTo returns it.
type Sink interface {
	Start(channels, sampleRate int, declaredFrames int64) error
	Write(c int, samples []int16) error
}

// StreamDecoder is the optional extension of Decoder that writes decoded
// audio to a Sink as it goes, so that decoding needs bounded memory
// whatever the media's length (media.Decoder implements it). DecodeTo
// returns the media's format as media.Sniff names it ("" when unknown) and
// the same errors as Decode.
type StreamDecoder interface {
	Decoder
	DecodeTo(ctx context.Context, path string, sampleRate int, keepChannels bool, sink Sink) (format string, err error)
}

// spool is decoded audio kept in temporary files, one per channel of
// 16-bit little-endian samples, so that a job of any length is decoded,
// checked and recognized in bounded memory. It is a Sink. A spool belongs
// to one job: it is not safe for concurrent writes, Read may be called
// from several goroutines once writing is done, and Close removes the
// files.
type spool struct {
	SampleRate int
	// Format is the media format the audio was decoded from ("" when
	// unknown).
	Format string

	dir    string
	limit  func(channels int, frames int64) error
	files  []*os.File
	bufs   []*bufio.Writer
	frames []int64
	done   bool
	raw    []byte // Write's scratch
}

// newSpool returns an empty spool making its files in dir. limit, when not
// nil, is asked at Start (with the declared length) and as samples arrive
// whether the audio may still grow.
func newSpool(dir string, limit func(channels int, frames int64) error) *spool {
	return &spool{dir: dir, limit: limit}
}

// Start implements Sink.
func (s *spool) Start(channels, rate int, declared int64) error {
	if s.done {
		return errors.New("transcribe: spool.Start after writing ended")
	}
	if s.files != nil {
		s.Close() // a decoder starting over: drop what it wrote
	}
	if channels < 1 || rate < 1 {
		return fmt.Errorf("transcribe: spool.Start: %d channels at %d Hz", channels, rate)
	}
	if s.limit != nil && declared > 0 {
		if err := s.limit(channels, declared); err != nil {
			return err
		}
	}
	s.SampleRate = rate
	s.files = make([]*os.File, channels)
	s.bufs = make([]*bufio.Writer, channels)
	s.frames = make([]int64, channels)
	for c := range s.files {
		f, err := os.CreateTemp(s.dir, tempPrefix+"pcm-*")
		if err != nil {
			s.Close()
			return fmt.Errorf("transcribe: spooling decoded audio: %w", err)
		}
		s.files[c] = f
		s.bufs[c] = bufio.NewWriterSize(f, 64<<10)
	}
	return nil
}

// Write implements Sink.
func (s *spool) Write(c int, samples []int16) error {
	if c < 0 || c >= len(s.files) || s.done {
		return fmt.Errorf("transcribe: spool.Write to channel %d of %d", c, len(s.files))
	}
	s.frames[c] += int64(len(samples))
	if s.limit != nil && c == 0 && len(samples) > 0 {
		if err := s.limit(len(s.files), s.frames[0]); err != nil {
			return err
		}
	}
	if cap(s.raw) < 2*len(samples) {
		s.raw = make([]byte, 2*len(samples))
	}
	raw := s.raw[:2*len(samples)]
	for i, v := range samples {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(v))
	}
	if _, err := s.bufs[c].Write(raw); err != nil {
		return fmt.Errorf("transcribe: spooling decoded audio: %w", err)
	}
	return nil
}

// finish flushes what was written; then the spool is read-only. Channels
// of unequal length are cut to the shortest.
func (s *spool) finish() error {
	if s.done {
		return nil
	}
	s.done = true
	for _, b := range s.bufs {
		if err := b.Flush(); err != nil {
			return fmt.Errorf("transcribe: spooling decoded audio: %w", err)
		}
	}
	s.bufs = nil
	return nil
}

// Channels returns the number of channels.
func (s *spool) Channels() int { return len(s.files) }

// Frames returns the number of samples per channel.
func (s *spool) Frames() int64 {
	if len(s.frames) == 0 {
		return 0
	}
	n := s.frames[0]
	for _, f := range s.frames[1:] {
		n = min(n, f)
	}
	return n
}

// Duration returns the length of the audio.
func (s *spool) Duration() time.Duration {
	if s.SampleRate == 0 {
		return 0
	}
	return time.Duration(s.Frames()) * time.Second / time.Duration(s.SampleRate)
}

// Read fills dst with samples of channel c from frame from on and returns
// how many it read: fewer than len(dst) only at the end (with io.EOF).
func (s *spool) Read(c int, from int64, dst []int16) (int, error) {
	if c < 0 || c >= len(s.files) {
		return 0, fmt.Errorf("transcribe: spool has no channel %d", c)
	}
	end := s.Frames()
	if from >= end {
		return 0, io.EOF
	}
	n := int(min(int64(len(dst)), end-from))
	buf := make([]byte, 2*n)
	if _, err := s.files[c].ReadAt(buf, 2*from); err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("transcribe: reading spooled audio: %w", err)
	}
	for i := range n {
		dst[i] = int16(binary.LittleEndian.Uint16(buf[2*i:]))
	}
	if n < len(dst) {
		return n, io.EOF
	}
	return n, nil
}

// Samples returns channel c's samples [from, to) in memory.
func (s *spool) Samples(c int, from, to int64) ([]int16, error) {
	if to < from {
		return nil, fmt.Errorf("transcribe: spool.Samples(%d, %d)", from, to)
	}
	out := make([]int16, to-from)
	n, err := s.Read(c, from, out)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return out[:n], nil
}

// PCM returns frames [from, to) of every channel in memory.
func (s *spool) PCM(from, to int64) (*PCM, error) {
	p := &PCM{SampleRate: s.SampleRate, Format: s.Format, Channels: make([][]int16, s.Channels())}
	for c := range p.Channels {
		x, err := s.Samples(c, from, to)
		if err != nil {
			return nil, err
		}
		p.Channels[c] = x
	}
	return p, nil
}

// Close removes the files.
func (s *spool) Close() error {
	var first error
	for _, f := range s.files {
		if f == nil {
			continue
		}
		f.Close()
		if err := os.Remove(f.Name()); err != nil && first == nil && !errors.Is(err, os.ErrNotExist) {
			first = err
		}
	}
	s.files, s.bufs = nil, nil
	return first
}

// spoolPCM writes in-memory PCM (from a Decoder without DecodeTo) to a
// spool.
func spoolPCM(s *spool, p *PCM) error {
	if len(p.Channels) == 0 {
		return &MediaError{Reason: "the media contains no audio"}
	}
	if err := s.Start(len(p.Channels), p.SampleRate, int64(len(p.Channels[0]))); err != nil {
		return err
	}
	for c, x := range p.Channels {
		if err := s.Write(c, x); err != nil {
			return err
		}
	}
	s.Format = p.Format
	return s.finish()
}
