package media

import (
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
)

// flacSource streams native FLAC through mewkiz/flac, frame by frame.
type flacSource struct {
	st       *flac.Stream
	rate     int
	channels int
	bps      int
	out      planar
}

func newFLACSource(r io.Reader) (*flacSource, error) {
	st, err := flac.New(r)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("FLAC header: %w", errTruncated)
		}
		return nil, &corruptError{FormatFLAC, err}
	}
	if st.Info == nil || st.Info.SampleRate == 0 || st.Info.NChannels == 0 {
		return nil, errors.New("FLAC stream info is invalid")
	}
	return &flacSource{st: st, rate: int(st.Info.SampleRate), channels: int(st.Info.NChannels), bps: int(st.Info.BitsPerSample)}, nil
}

func (s *flacSource) format() (int, int) { return s.rate, s.channels }

// declared returns the total samples per channel of the stream info (0
// when the encoder did not know it).
func (s *flacSource) declared() int64 { return int64(s.st.Info.NSamples) }

func (s *flacSource) next() ([][]float32, error) {
	f, err := s.st.ParseNext()
	if err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("FLAC frame: %w", errTruncated)
		}
		return nil, &corruptError{FormatFLAC, err}
	}
	if len(f.Subframes) != s.channels {
		return nil, &corruptError{FormatFLAC, fmt.Errorf("frame has %d channels, stream has %d", len(f.Subframes), s.channels)}
	}
	bps := int(f.BitsPerSample)
	if bps == 0 {
		bps = s.bps
	}
	if bps < 1 || bps > 32 {
		return nil, &corruptError{FormatFLAC, fmt.Errorf("%d bits per sample", bps)}
	}
	scale := 1 / float32(int64(1)<<(bps-1))
	n := len(f.Subframes[0].Samples)
	out := s.out.size(s.channels, n)
	for c, sf := range f.Subframes {
		if len(sf.Samples) != n {
			return nil, &corruptError{FormatFLAC, errors.New("subframes of unequal length")}
		}
		for i, v := range sf.Samples {
			out[c][i] = float32(v) * scale
		}
	}
	return out, nil
}
