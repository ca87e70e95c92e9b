package media

import (
	"errors"
	"fmt"
	"io"

	"github.com/jfreymuth/oggvorbis"
)

// vorbisSource streams Ogg Vorbis through jfreymuth/oggvorbis.
type vorbisSource struct {
	r        *oggvorbis.Reader
	rate     int
	channels int
	buf      []float32
	out      planar
}

func newVorbisSource(r io.Reader) (*vorbisSource, error) {
	// Hide Seek: with a Seeker the reader scans to the end first.
	vr, err := oggvorbis.NewReader(struct{ io.Reader }{r})
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("Ogg Vorbis headers: %w", errTruncated)
		}
		return nil, &corruptError{FormatVorbis, err}
	}
	if vr.Channels() < 1 || vr.SampleRate() < 1 {
		return nil, errors.New("Ogg Vorbis header is invalid")
	}
	return &vorbisSource{r: vr, rate: vr.SampleRate(), channels: vr.Channels()}, nil
}

func (s *vorbisSource) format() (int, int) { return s.rate, s.channels }

func (s *vorbisSource) next() ([][]float32, error) {
	if s.buf == nil {
		s.buf = make([]float32, 4096*s.channels)
	}
	for empty := 0; ; empty++ {
		if empty > 10000 {
			return nil, &corruptError{FormatVorbis, errors.New("no audio in 10000 consecutive packets")}
		}
		n, err := s.r.Read(s.buf)
		frames := n / s.channels
		if frames > 0 {
			out := s.out.size(s.channels, frames)
			for i := 0; i < frames; i++ {
				for c := 0; c < s.channels; c++ {
					out[c][i] = s.buf[i*s.channels+c]
				}
			}
			// An error after data is reported by the next call.
			return out, nil
		}
		switch {
		case err == nil:
			continue
		case err == io.EOF:
			return nil, io.EOF
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("Ogg Vorbis stream: %w", errTruncated)
		default:
			return nil, &corruptError{FormatVorbis, err}
		}
	}
}
