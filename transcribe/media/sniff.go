package media

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// Format names a media container or codec recognised by its first bytes.
type Format string

// Formats recognised by Sniff. WAV, MP3, FLAC and Vorbis are decoded in pure
// Go; the others need the ffmpeg program.
const (
	FormatUnknown  Format = ""
	FormatWAV      Format = "wav"      // RIFF/RF64 WAVE
	FormatMP3      Format = "mp3"      // MPEG-1/2/2.5 audio layer I-III
	FormatFLAC     Format = "flac"     // native FLAC
	FormatVorbis   Format = "vorbis"   // Ogg Vorbis
	FormatOpus     Format = "opus"     // Ogg Opus
	FormatOgg      Format = "ogg"      // other Ogg streams (FLAC, Speex, Theora, ...)
	FormatMP4      Format = "mp4"      // ISO base media: mp4, m4a, mov, 3gp
	FormatMatroska Format = "matroska" // mkv, webm
	FormatAAC      Format = "aac"      // ADTS AAC
	FormatAIFF     Format = "aiff"     // AIFF, AIFF-C
	FormatCAF      Format = "caf"      // Core Audio Format
	FormatAMR      Format = "amr"      // AMR-NB / AMR-WB
	FormatASF      Format = "asf"      // wma, wmv
	FormatFLV      Format = "flv"      // Flash video
	FormatAVI      Format = "avi"      // RIFF AVI
	FormatMPEGTS   Format = "mpegts"   // MPEG transport stream
	FormatMPEGPS   Format = "mpegps"   // MPEG program stream
	FormatAC3      Format = "ac3"      // Dolby AC-3
	FormatAU       Format = "au"       // Sun/NeXT .au
)

// Formats lists every known Format (not FormatUnknown).
func Formats() []Format {
	return []Format{FormatWAV, FormatMP3, FormatFLAC, FormatVorbis, FormatOpus, FormatOgg,
		FormatMP4, FormatMatroska, FormatAAC, FormatAIFF, FormatCAF, FormatAMR, FormatASF,
		FormatFLV, FormatAVI, FormatMPEGTS, FormatMPEGPS, FormatAC3, FormatAU}
}

// PureGo reports whether the Decoder decodes f without ffmpeg.
func (f Format) PureGo() bool {
	switch f {
	case FormatWAV, FormatMP3, FormatFLAC, FormatVorbis:
		return true
	}
	return false
}

// sniffLen is how many leading bytes Sniff looks at.
const sniffLen = 4096

// Sniff returns the format of media that starts with head (the first bytes
// of the file; 4 KiB is plenty). It returns FormatUnknown when nothing
// matches. An ID3v2 tag is skipped when it fits in head; a larger one is
// assumed to precede MP3.
func Sniff(head []byte) Format {
	if n, ok := id3Len(head); ok {
		if n >= len(head) {
			return FormatMP3
		}
		head = skipZeros(head[n:])
	}
	has := func(off int, s string) bool {
		return len(head) >= off+len(s) && string(head[off:off+len(s)]) == s
	}
	switch {
	case (has(0, "RIFF") || has(0, "RF64") || has(0, "BW64")) && has(8, "WAVE"):
		return FormatWAV
	case has(0, "RIFF") && has(8, "AVI "):
		return FormatAVI
	case has(0, "fLaC"):
		return FormatFLAC
	case has(0, "OggS"):
		return sniffOgg(head)
	case has(4, "ftyp"), has(4, "moov"), has(4, "mdat") && len(head) > 8, has(4, "wide"), has(4, "free") && has(12, "mdat"), has(4, "skip") && has(12, "moov"):
		return FormatMP4
	case has(0, "\x1a\x45\xdf\xa3"):
		return FormatMatroska
	case has(0, "FORM") && (has(8, "AIFF") || has(8, "AIFC")):
		return FormatAIFF
	case has(0, "caff"):
		return FormatCAF
	case has(0, "#!AMR"):
		return FormatAMR
	case has(0, "\x30\x26\xb2\x75\x8e\x66\xcf\x11"):
		return FormatASF
	case has(0, "FLV\x01"):
		return FormatFLV
	case has(0, ".snd"):
		return FormatAU
	case has(0, "\x00\x00\x01\xba"):
		return FormatMPEGPS
	case isTS(head):
		return FormatMPEGTS
	case has(0, "\x0b\x77"):
		return FormatAC3
	}
	if len(head) >= 2 && head[0] == 0xff && head[1]&0xf6 == 0xf0 {
		return FormatAAC // ADTS: 12-bit sync, layer 00
	}
	if h, ok := parseMPEGHeader(head); ok {
		// Require a second frame right after the first when head holds it,
		// so that random bytes starting with 0xFF are not taken for MP3.
		if n := h.frameLen(); n > 0 && len(head) >= n+4 {
			if _, ok := parseMPEGHeader(head[n:]); !ok {
				return FormatUnknown
			}
		}
		return FormatMP3
	}
	return FormatUnknown
}

// skipZeros drops the zero padding some taggers leave after an ID3 tag.
func skipZeros(b []byte) []byte {
	i := 0
	for i < len(b) && i < 4096 && b[i] == 0 {
		i++
	}
	return b[i:]
}

func sniffOgg(head []byte) Format {
	if len(head) < 27 {
		return FormatOgg
	}
	start := 27 + int(head[26])
	pkt := head[min(start, len(head)):]
	switch {
	case bytes.HasPrefix(pkt, []byte("\x01vorbis")):
		return FormatVorbis
	case bytes.HasPrefix(pkt, []byte("OpusHead")):
		return FormatOpus
	}
	return FormatOgg
}

func isTS(b []byte) bool {
	for _, pkt := range []int{188, 192} {
		off := 0
		if pkt == 192 {
			off = 4
		}
		if len(b) >= off+2*pkt+1 && b[off] == 0x47 && b[off+pkt] == 0x47 && b[off+2*pkt] == 0x47 {
			return true
		}
	}
	return false
}

// id3Len returns the length of the ID3v2 tag at the start of b, if any.
func id3Len(b []byte) (int, bool) {
	if len(b) < 10 || string(b[:3]) != "ID3" || b[3] == 0xff || b[4] == 0xff ||
		b[6]|b[7]|b[8]|b[9] >= 0x80 {
		return 0, false
	}
	n := 10 + (int(b[6])<<21 | int(b[7])<<14 | int(b[8])<<7 | int(b[9]))
	if b[5]&0x10 != 0 { // footer present
		n += 10
	}
	return n, true
}

// mpegHeader is a decoded MPEG audio frame header.
type mpegHeader struct {
	version    int // 1, 2, or 25 (MPEG 2.5)
	layer      int // 1, 2, 3
	bitrate    int // bits per second; 0 = free format
	sampleRate int
	padding    bool
	crc        bool
	mono       bool
}

var mpegBitrates = [2][3][16]int{
	{ // MPEG 1: layer I, II, III
		{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, -1},
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, -1},
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, -1},
	},
	{ // MPEG 2 and 2.5
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256, -1},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, -1},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, -1},
	},
}

var mpegRates = [3]int{44100, 48000, 32000}

func parseMPEGHeader(b []byte) (mpegHeader, bool) {
	if len(b) < 4 || b[0] != 0xff || b[1]&0xe0 != 0xe0 {
		return mpegHeader{}, false
	}
	v := binary.BigEndian.Uint32(b)
	var h mpegHeader
	switch (v >> 19) & 3 {
	case 0:
		h.version = 25
	case 2:
		h.version = 2
	case 3:
		h.version = 1
	default:
		return h, false
	}
	layerBits := (v >> 17) & 3
	if layerBits == 0 {
		return h, false
	}
	h.layer = 4 - int(layerBits)
	h.crc = (v>>16)&1 == 0
	bi := (v >> 12) & 15
	si := (v >> 10) & 3
	if bi == 15 || si == 3 {
		return h, false
	}
	vi := 0
	if h.version != 1 {
		vi = 1
	}
	h.bitrate = mpegBitrates[vi][h.layer-1][bi] * 1000
	h.sampleRate = mpegRates[si]
	switch h.version {
	case 2:
		h.sampleRate /= 2
	case 25:
		h.sampleRate /= 4
	}
	h.padding = (v>>9)&1 == 1
	h.mono = (v>>6)&3 == 3
	return h, true
}

// samplesPerFrame returns the samples per channel in one frame.
func (h mpegHeader) samplesPerFrame() int {
	switch {
	case h.layer == 1:
		return 384
	case h.layer == 3 && h.version != 1:
		return 576
	}
	return 1152
}

// frameLen returns the frame length in bytes, 0 for free format.
func (h mpegHeader) frameLen() int {
	if h.bitrate == 0 {
		return 0
	}
	pad := 0
	if h.padding {
		pad = 1
	}
	if h.layer == 1 {
		return (12*h.bitrate/h.sampleRate + pad) * 4
	}
	return h.samplesPerFrame()/8*h.bitrate/h.sampleRate + pad
}

// sideInfoLen is the layer III side information size.
func (h mpegHeader) sideInfoLen() int {
	switch {
	case h.version == 1 && h.mono:
		return 17
	case h.version == 1:
		return 32
	case h.mono:
		return 9
	}
	return 17
}

// describeNonMedia names common non-media content so that the error for a
// web page or a picture submitted as audio says what it is; "" otherwise.
func describeNonMedia(head []byte) string {
	has := func(s string) bool { return bytes.HasPrefix(head, []byte(s)) }
	switch {
	case has("%PDF"):
		return "a PDF document"
	case has("\x89PNG"):
		return "a PNG image"
	case has("\xff\xd8\xff"):
		return "a JPEG image"
	case has("GIF87a"), has("GIF89a"):
		return "a GIF image"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "a WebP image"
	case has("PK\x03\x04"):
		return "a ZIP archive (or office document)"
	case has("\x1f\x8b"):
		return "a gzip archive"
	case has("\x7fELF"):
		return "an executable"
	}
	if len(head) == 0 || bytes.IndexByte(head, 0) >= 0 {
		return ""
	}
	text := head
	if len(text) == sniffLen { // may end inside a multi-byte rune
		text = text[:len(text)-utf8.UTFMax]
	}
	if !utf8.Valid(text) {
		return ""
	}
	for _, c := range text {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' {
			return ""
		}
	}
	t := bytes.ToLower(bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))))
	switch {
	case bytes.HasPrefix(t, []byte("<!doctype html")), bytes.HasPrefix(t, []byte("<html")), bytes.Contains(t, []byte("<body")):
		return "an HTML page"
	case bytes.HasPrefix(t, []byte("<?xml")), bytes.HasPrefix(t, []byte("<")):
		return "an XML document"
	case bytes.HasPrefix(t, []byte("{")), bytes.HasPrefix(t, []byte("[")):
		return "JSON or other text"
	}
	return "text"
}
