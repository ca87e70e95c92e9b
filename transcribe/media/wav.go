package media

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/earshot-dev/earshot/transcribe"
)

// WAVE format tags.
const (
	wavPCM        = 0x0001
	wavFloat      = 0x0003
	wavALaw       = 0x0006
	wavMuLaw      = 0x0007
	wavExtensible = 0xfffe
)

// wavSource streams a RIFF/RF64 WAVE file: integer PCM of 8, 16, 24 or 32
// bits (any valid-bit count in those containers), IEEE float of 32 or 64
// bits, A-law and mu-law. Other codecs (ADPCM, GSM, MP3-in-WAV) report
// needFFmpegError.
type wavSource struct {
	r        *bufio.Reader
	rate     int
	channels int
	tag      int
	width    int   // bytes per sample
	left     int64 // data bytes left; -1 = until EOF
	size     int64 // the data chunk's declared size; -1 = unknown
	raw      []byte
	out      planar
}

const wavBlock = 4096 // frames per block

// declared returns the frames the data chunk's header claims (0 when it
// does not say). A truncated file holds fewer.
func (s *wavSource) declared() int64 {
	if s.size <= 0 || s.channels == 0 || s.width == 0 {
		return 0
	}
	return s.size / int64(s.channels*s.width)
}

// maxWAVChannels bounds the channel count a header may claim.
const maxWAVChannels = 1024

func newWAVSource(r io.Reader) (*wavSource, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	s := &wavSource{r: br}
	var hdr [12]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, fmt.Errorf("WAV header: %w", errTruncated)
	}
	rf64 := string(hdr[:4]) == "RF64" || string(hdr[:4]) == "BW64"
	if (string(hdr[:4]) != "RIFF" && !rf64) || string(hdr[8:12]) != "WAVE" {
		return nil, errors.New("not a RIFF WAVE file")
	}
	var ds64Data int64 = -1
	haveFmt := false
	for {
		var ch [8]byte
		if _, err := io.ReadFull(br, ch[:]); err != nil {
			if haveFmt {
				return nil, errors.New("WAV file has no data chunk")
			}
			return nil, fmt.Errorf("WAV header: %w", errTruncated)
		}
		id := string(ch[:4])
		size := int64(binary.LittleEndian.Uint32(ch[4:]))
		switch id {
		case "fmt ":
			if size < 16 {
				return nil, fmt.Errorf("WAV fmt chunk is %d bytes; want at least 16", size)
			}
			b := make([]byte, min(size, 40))
			if _, err := io.ReadFull(br, b); err != nil {
				return nil, fmt.Errorf("WAV fmt chunk: %w", errTruncated)
			}
			if err := discard(br, size-int64(len(b))+size%2); err != nil {
				return nil, fmt.Errorf("WAV fmt chunk: %w", errTruncated)
			}
			if err := s.parseFmt(b); err != nil {
				return nil, err
			}
			haveFmt = true
		case "ds64":
			b := make([]byte, min(size, 28))
			if _, err := io.ReadFull(br, b); err != nil || len(b) < 16 {
				return nil, fmt.Errorf("WAV ds64 chunk: %w", errTruncated)
			}
			ds64Data = int64(binary.LittleEndian.Uint64(b[8:16]))
			if err := discard(br, size-int64(len(b))+size%2); err != nil {
				return nil, fmt.Errorf("WAV ds64 chunk: %w", errTruncated)
			}
		case "data":
			if !haveFmt {
				return nil, errors.New("WAV data chunk comes before the fmt chunk")
			}
			s.left = size
			switch {
			case rf64 && size == 0xffffffff && ds64Data >= 0:
				s.left = ds64Data
			case size == 0xffffffff, size == 0:
				// Written by a streaming producer that could not seek
				// back to fill in the size: read to the end.
				s.left = -1
			}
			s.size = s.left
			return s, nil
		default:
			if err := discard(br, size+size%2); err != nil {
				return nil, fmt.Errorf("WAV %q chunk: %w", id, errTruncated)
			}
		}
	}
}

func (s *wavSource) parseFmt(b []byte) error {
	tag := int(binary.LittleEndian.Uint16(b[0:]))
	channels := int(binary.LittleEndian.Uint16(b[2:]))
	rate := int(binary.LittleEndian.Uint32(b[4:]))
	align := int(binary.LittleEndian.Uint16(b[12:]))
	bits := int(binary.LittleEndian.Uint16(b[14:]))
	if tag == wavExtensible {
		if len(b) < 26 {
			return errors.New("WAV extensible fmt chunk is too short")
		}
		tag = int(binary.LittleEndian.Uint16(b[24:]))
	}
	if channels < 1 || channels > maxWAVChannels {
		return fmt.Errorf("WAV header claims %d channels", channels)
	}
	if rate < 1 {
		return errors.New("WAV header claims a sample rate of 0")
	}
	width := (bits + 7) / 8
	if align > 0 && align%channels == 0 && align/channels >= width {
		width = align / channels
	}
	switch tag {
	case wavPCM:
		if bits < 1 || width > 4 {
			return fmt.Errorf("WAV integer PCM with %d-bit samples is not supported", bits)
		}
	case wavFloat:
		if width != 4 && width != 8 {
			return fmt.Errorf("WAV float PCM with %d-bit samples is not supported", bits)
		}
	case wavALaw, wavMuLaw:
		if width != 1 {
			return fmt.Errorf("WAV G.711 with %d-bit samples is not supported", bits)
		}
	default:
		return &needFFmpegError{what: fmt.Sprintf("WAV audio with codec tag 0x%04x (%s)", tag, wavCodecName(tag))}
	}
	s.tag, s.channels, s.rate, s.width = tag, channels, rate, width
	return nil
}

func wavCodecName(tag int) string {
	switch tag {
	case 0x0002:
		return "MS ADPCM"
	case 0x0011:
		return "IMA ADPCM"
	case 0x0031:
		return "GSM 6.10"
	case 0x0055:
		return "MP3"
	case 0x0050:
		return "MPEG"
	case 0x00ff, 0x1610:
		return "AAC"
	case 0x0160, 0x0161:
		return "WMA"
	}
	return "unknown codec"
}

func (s *wavSource) format() (int, int) { return s.rate, s.channels }

func (s *wavSource) next() ([][]float32, error) {
	frame := s.width * s.channels
	want := int64(max(1, min(wavBlock, (256<<10)/frame)) * frame)
	if s.left >= 0 && s.left < want {
		want = s.left - s.left%int64(frame)
	}
	if want == 0 {
		return nil, io.EOF
	}
	if cap(s.raw) < int(want) {
		s.raw = make([]byte, want)
	}
	raw := s.raw[:want]
	n, err := io.ReadFull(s.r, raw)
	truncated := false
	switch {
	case err == io.EOF:
		if s.left > 0 {
			return nil, fmt.Errorf("WAV data ends %d bytes early: %w", s.left, errTruncated)
		}
		return nil, io.EOF
	case err == io.ErrUnexpectedEOF:
		truncated = s.left > 0
		if s.left < 0 {
			s.left = 0 // read to EOF: done after this block
		}
	case err != nil:
		return nil, err
	}
	if s.left > 0 {
		s.left -= int64(n)
	}
	frames := n / frame
	out := s.out.size(s.channels, frames)
	raw = raw[:frames*frame]
	w := s.width
	for i := 0; i < frames; i++ {
		fb := raw[i*frame:]
		for c := 0; c < s.channels; c++ {
			out[c][i] = s.sample(fb[c*w : c*w+w])
		}
	}
	if frames == 0 {
		if truncated {
			return nil, fmt.Errorf("WAV data: %w", errTruncated)
		}
		return nil, io.EOF
	}
	if truncated {
		s.left = 0 // keep what the cut-short data chunk held; EOF next
	}
	return out, nil
}

func (s *wavSource) sample(b []byte) float32 {
	switch s.tag {
	case wavPCM:
		switch len(b) {
		case 1:
			return float32(int(b[0])-128) / 128
		case 2:
			return float32(int16(binary.LittleEndian.Uint16(b))) / 32768
		case 3:
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			return float32(v) / (1 << 23)
		default:
			return float32(float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31))
		}
	case wavFloat:
		var v float64
		if len(b) == 4 {
			v = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		} else {
			v = math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
		if v != v { // NaN
			return 0
		}
		return float32(max(-1, min(1, v)))
	case wavALaw:
		return float32(alaw[b[0]]) / 32768
	default:
		return float32(mulaw[b[0]]) / 32768
	}
}

var alaw, mulaw [256]int16

// MulawDecode expands a G.711 mu-law byte to a 16-bit sample.
func MulawDecode(b byte) int16 { return mulaw[b] }

// MulawEncode encodes 16-bit PCM as G.711 mu-law bytes, the inverse of
// MulawDecode (up to mu-law's quantization).
func MulawEncode(samples []int16) []byte {
	out := make([]byte, len(samples))
	for i, s := range samples {
		out[i] = mulawByte(s)
	}
	return out
}

// mulawByte is G.711 mu-law compression of one sample.
func mulawByte(s int16) byte {
	const bias, clip = 0x84, 32635
	x := int(s)
	sign := 0
	if x < 0 {
		x = -x
		sign = 0x80
	}
	if x > clip {
		x = clip
	}
	x += bias
	exp := 7
	for mask := 0x4000; x&mask == 0 && exp > 0; mask >>= 1 {
		exp--
	}
	mant := (x >> (exp + 3)) & 0x0f
	return ^byte(sign | exp<<4 | mant)
}

func init() {
	for i := range 256 {
		// ITU-T G.711 expansion.
		a := byte(i) ^ 0x55
		t := int(a&0x0f)<<4 + 8
		seg := int(a&0x70) >> 4
		if seg >= 1 {
			t = (t + 0x100) << (seg - 1)
		}
		if a&0x80 == 0 {
			t = -t
		}
		alaw[i] = int16(t)

		u := ^byte(i)
		m := (int(u&0x0f)<<3 + 0x84) << (int(u&0x70) >> 4)
		if u&0x80 != 0 {
			mulaw[i] = int16(0x84 - m)
		} else {
			mulaw[i] = int16(m - 0x84)
		}
	}
}

func discard(r *bufio.Reader, n int64) error {
	for n > 0 {
		k := int(min(n, 1<<30))
		m, err := r.Discard(k)
		n -= int64(m)
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteWAV writes pcm to w as a 16-bit PCM WAV file (RIFF, WAVE_FORMAT_PCM,
// channels interleaved). It fails for a nil or malformed PCM (no channels,
// unequal channel lengths, bad sample rate) and for audio too long for the
// 4 GiB RIFF size fields.
func WriteWAV(w io.Writer, pcm *transcribe.PCM) error {
	if err := checkPCM(pcm); err != nil {
		return err
	}
	nc := len(pcm.Channels)
	frames := len(pcm.Channels[0])
	data := int64(frames) * int64(nc) * 2
	if data+36 > math.MaxUint32 || nc > 65535 || int64(pcm.SampleRate)*int64(nc)*2 > math.MaxUint32 {
		return fmt.Errorf("media: WriteWAV: %d bytes of audio do not fit a WAV file", data)
	}
	var h [44]byte
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+data))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], wavPCM)
	binary.LittleEndian.PutUint16(h[22:], uint16(nc))
	binary.LittleEndian.PutUint32(h[24:], uint32(pcm.SampleRate))
	binary.LittleEndian.PutUint32(h[28:], uint32(pcm.SampleRate*nc*2))
	binary.LittleEndian.PutUint16(h[32:], uint16(nc*2))
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(data))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	return writeInterleaved(w, pcm)
}

// writeInterleaved writes the samples of pcm as interleaved s16le.
func writeInterleaved(w io.Writer, pcm *transcribe.PCM) error {
	nc := len(pcm.Channels)
	frames := len(pcm.Channels[0])
	buf := make([]byte, 0, 32<<10)
	for i := 0; i < frames; i++ {
		for c := 0; c < nc; c++ {
			buf = binary.LittleEndian.AppendUint16(buf, uint16(pcm.Channels[c][i]))
		}
		if len(buf) >= cap(buf)-2*nc {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

func checkPCM(pcm *transcribe.PCM) error {
	switch {
	case pcm == nil:
		return errors.New("media: nil PCM")
	case len(pcm.Channels) == 0:
		return errors.New("media: PCM has no channels")
	case pcm.SampleRate <= 0 || pcm.SampleRate > 10_000_000:
		return fmt.Errorf("media: PCM sample rate %d is invalid", pcm.SampleRate)
	}
	for i, c := range pcm.Channels {
		if len(c) != len(pcm.Channels[0]) {
			return fmt.Errorf("media: PCM channel %d has %d samples, channel 0 has %d", i, len(c), len(pcm.Channels[0]))
		}
	}
	return nil
}
