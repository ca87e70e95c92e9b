package media

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	mp3 "github.com/hajimehoshi/go-mp3"
)

// decoderDelay is the MDCT/polyphase delay of an MPEG layer III decoder,
// which LAME's gapless information counts on.
const decoderDelay = 529

// mp3Source streams MPEG-1 and MPEG-2 layer III audio through go-mp3. It
// honours the Xing/Info + LAME tag that encoders write in the first frame:
// that frame is not audio, and the encoder delay and padding it records are
// trimmed, as ffmpeg does, so that times match the original recording.
// MPEG 2.5, layers I and II and free-format streams report
// needFFmpegError.
type mp3Source struct {
	dec      *mp3.Decoder
	rate     int
	mono     bool
	skip     int64 // samples to drop at the start
	limit    int64 // samples to keep in total; -1 = all
	done     int64
	raw      []byte
	out      planar
	channels int
}

const mp3Block = 1152 * 4 // frames per block

func newMP3Source(r *bufio.Reader) (*mp3Source, error) {
	if err := skipID3(r); err != nil {
		return nil, err
	}
	// Find the first frame header (players tolerate a little junk first).
	var h mpegHeader
	found := false
	for i := 0; i < 64<<10; i++ {
		b, err := r.Peek(4)
		if err != nil {
			return nil, fmt.Errorf("no MPEG audio frame found: %w", errTruncated)
		}
		if hh, ok := parseMPEGHeader(b); ok {
			h, found = hh, true
			break
		}
		r.Discard(1)
	}
	if !found {
		return nil, errors.New("no MPEG audio frame found")
	}
	switch {
	case h.layer != 3:
		return nil, &needFFmpegError{what: fmt.Sprintf("MPEG audio layer %d", h.layer)}
	case h.version == 25:
		return nil, &needFFmpegError{what: "MPEG 2.5 audio"}
	case h.bitrate == 0:
		return nil, &needFFmpegError{what: "free-format MP3"}
	}
	s := &mp3Source{rate: h.sampleRate, mono: h.mono, limit: -1, channels: 2}
	if h.mono {
		s.channels = 1
	}
	// Gapless information in a Xing/Info first frame.
	n := h.frameLen()
	if b, err := r.Peek(n); err == nil {
		if xing, ok := parseXing(b, h); ok {
			r.Discard(n)
			if xing.lame {
				s.skip = int64(xing.delay) + decoderDelay
				if xing.frames > 0 {
					s.limit = int64(xing.frames)*int64(h.samplesPerFrame()) - int64(xing.delay) - int64(xing.padding)
				}
			}
		}
	}
	// go-mp3 reads through a seekable source to measure it first; hide
	// Seek so that it streams.
	dec, err := mp3.NewDecoder(struct{ io.Reader }{r})
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("MP3 stream: %w", errTruncated)
		}
		return nil, &corruptError{FormatMP3, err}
	}
	if dec.SampleRate() != s.rate {
		s.rate = dec.SampleRate()
	}
	s.dec = dec
	return s, nil
}

func (s *mp3Source) format() (int, int) { return s.rate, s.channels }

func (s *mp3Source) next() ([][]float32, error) {
	for {
		if s.limit >= 0 && s.done >= s.limit {
			return nil, io.EOF
		}
		if cap(s.raw) < mp3Block*4 {
			s.raw = make([]byte, mp3Block*4)
		}
		raw := s.raw[:mp3Block*4]
		n, err := io.ReadFull(s.dec, raw)
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil && err != io.ErrUnexpectedEOF {
			return nil, &corruptError{FormatMP3, err}
		}
		frames := n / 4
		raw = raw[:frames*4]
		if s.skip > 0 {
			k := min(s.skip, int64(frames))
			s.skip -= k
			raw = raw[k*4:]
			frames -= int(k)
		}
		if s.limit >= 0 && s.done+int64(frames) > s.limit {
			frames = int(s.limit - s.done)
			raw = raw[:frames*4]
		}
		s.done += int64(frames)
		if frames == 0 {
			if err != nil {
				return nil, io.EOF
			}
			continue
		}
		out := s.out.size(s.channels, frames)
		for i := 0; i < frames; i++ {
			out[0][i] = float32(int16(binary.LittleEndian.Uint16(raw[i*4:]))) / 32768
			if !s.mono {
				out[1][i] = float32(int16(binary.LittleEndian.Uint16(raw[i*4+2:]))) / 32768
			}
		}
		return out, nil
	}
}

// xingInfo is the gapless information of a Xing/Info frame.
type xingInfo struct {
	frames         int
	lame           bool
	delay, padding int
}

func parseXing(frame []byte, h mpegHeader) (xingInfo, bool) {
	off := 4 + h.sideInfoLen()
	if h.crc {
		off += 2
	}
	var x xingInfo
	if len(frame) < off+8 {
		return x, false
	}
	tag := frame[off : off+4]
	if !bytes.Equal(tag, []byte("Xing")) && !bytes.Equal(tag, []byte("Info")) {
		return x, false
	}
	flags := binary.BigEndian.Uint32(frame[off+4:])
	p := off + 8
	if flags&1 != 0 {
		if len(frame) < p+4 {
			return x, true
		}
		x.frames = int(binary.BigEndian.Uint32(frame[p:]))
		p += 4
	}
	if flags&2 != 0 {
		p += 4
	}
	if flags&4 != 0 {
		p += 100
	}
	if flags&8 != 0 {
		p += 4
	}
	// LAME extension: 9-byte encoder string, 12 more bytes, then 12 bits of
	// delay and 12 bits of padding.
	if len(frame) >= p+24 {
		enc := frame[p : p+4]
		if bytes.Equal(enc, []byte("LAME")) || bytes.Equal(enc, []byte("Lavc")) || bytes.Equal(enc, []byte("Lavf")) || bytes.Equal(enc, []byte("L3.9")) {
			v := int(frame[p+21])<<16 | int(frame[p+22])<<8 | int(frame[p+23])
			x.delay, x.padding = v>>12, v&0xfff
			x.lame = true
		}
	}
	return x, true
}

// skipID3 discards any ID3v2 tags at the start of r.
func skipID3(r *bufio.Reader) error {
	for {
		b, _ := r.Peek(10)
		n, ok := id3Len(b)
		if !ok {
			return nil
		}
		if err := discard(r, int64(n)); err != nil {
			return fmt.Errorf("ID3 tag: %w", errTruncated)
		}
	}
}
