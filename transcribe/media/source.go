package media

import (
	"errors"
	"fmt"
)

// source is one decoder's view of a stream: blocks of planar samples in
// [-1, 1] at its native rate and channel count.
type source interface {
	// format returns the native sample rate and channel count.
	format() (rate, channels int)
	// next returns the next block, one slice per channel, valid until the
	// following call. It returns io.EOF at the end of the audio, an error
	// wrapping errTruncated when the data stops early, or another error for
	// corrupt data.
	next() ([][]float32, error)
}

// errTruncated marks data that ends in the middle of a frame or chunk. The
// audio decoded before it is kept, as players do.
var errTruncated = errors.New("file is truncated")

// errDecoderFailure marks a panic recovered inside a decoder.
var errDecoderFailure = errors.New("decoder failure")

// needFFmpegError says a file in a pure-Go format uses a codec or feature
// that only ffmpeg decodes.
type needFFmpegError struct{ what string }

func (e *needFFmpegError) Error() string { return e.what + " needs ffmpeg" }

// corruptError is bad data found by a pure-Go decoder.
type corruptError struct {
	format Format
	err    error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("corrupt %s data: %v", formatName(e.format), e.err)
}

func (e *corruptError) Unwrap() error { return e.err }

func formatName(f Format) string {
	switch f {
	case FormatVorbis:
		return "Ogg Vorbis"
	case FormatUnknown:
		return "media"
	}
	if f == FormatMatroska {
		return "Matroska/WebM"
	}
	return string(upper(f))
}

func upper(f Format) string {
	b := []byte(f)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// planar is a reusable set of per-channel buffers.
type planar [][]float32

func (p *planar) size(channels, n int) [][]float32 {
	if len(*p) != channels {
		*p = make([][]float32, channels)
	}
	for c := range *p {
		if cap((*p)[c]) < n {
			(*p)[c] = make([]float32, n)
		}
		(*p)[c] = (*p)[c][:n]
	}
	return *p
}
