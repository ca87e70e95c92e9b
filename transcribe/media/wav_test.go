package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// riff builds a WAVE file from chunks made by chunk.
func riff(magic string, chunks ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString(magic)
	binary.Write(&b, binary.LittleEndian, uint32(0xffffffff))
	b.WriteString("WAVE")
	for _, c := range chunks {
		b.Write(c)
	}
	return b.Bytes()
}

// chunk is id, the given size and body, padded to even length.
func chunk(id string, body []byte, size uint32) []byte {
	var b bytes.Buffer
	b.WriteString(id)
	binary.Write(&b, binary.LittleEndian, size)
	b.Write(body)
	if len(body)%2 == 1 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

func fmtBody(tag, channels, rate, bits int) []byte {
	var b bytes.Buffer
	align := channels * ((bits + 7) / 8)
	for _, v := range []any{uint16(tag), uint16(channels), uint32(rate), uint32(rate * align), uint16(align), uint16(bits)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

func s16(v ...int16) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

func decodeBytes(t *testing.T, b []byte, keep bool) (*transcribe.PCM, error) {
	t.Helper()
	return pureGo.Decode(context.Background(), writeFile(t, "x.wav", b), 8000, keep)
}

func TestWAVChunks(t *testing.T) {
	f := fmtBody(wavPCM, 2, 8000, 16)
	data := s16(1000, -1000, 2000, -2000, 3000, -3000)
	cases := []struct {
		name string
		file []byte
	}{
		{"plain", riff("RIFF", chunk("fmt ", f, 16), chunk("data", data, uint32(len(data))))},
		{"odd chunk before fmt", riff("RIFF", chunk("bext", []byte("abc"), 3), chunk("fmt ", f, 16), chunk("data", data, uint32(len(data))))},
		{"LIST between", riff("RIFF", chunk("fmt ", f, 16), chunk("LIST", []byte("INFOISFT\x01\x00\x00\x00x\x00"), 14), chunk("data", data, uint32(len(data))))},
		{"streamed size", riff("RIFF", chunk("fmt ", f, 16), chunk("data", data, 0xffffffff))},
		{"data then LIST", riff("RIFF", chunk("fmt ", f, 16), chunk("data", data, uint32(len(data))), chunk("LIST", []byte("INFO"), 4))},
		{"long fmt", riff("RIFF", chunk("fmt ", append(append([]byte{}, f...), 0, 0), 18), chunk("data", data, uint32(len(data))))},
		{"RF64", riff("RF64", chunk("ds64", append(make([]byte, 8), append(binary.LittleEndian.AppendUint64(nil, uint64(len(data))), make([]byte, 12)...)...), 28), chunk("fmt ", f, 16), chunk("data", data, 0xffffffff))},
		{"declared longer (truncated)", riff("RIFF", chunk("fmt ", f, 16), chunk("data", data, 1000))},
		{"trailing half frame", riff("RIFF", chunk("fmt ", f, 16), chunk("data", append(append([]byte{}, data...), 1, 2), uint32(len(data)+2)))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pcm, err := decodeBytes(t, c.file, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(pcm.Channels) != 2 || len(pcm.Channels[0]) != 3 {
				t.Fatalf("got %d channels of %d samples", len(pcm.Channels), len(pcm.Channels[0]))
			}
			if pcm.Channels[0][2] != 3000 || pcm.Channels[1][2] != -3000 {
				t.Fatalf("samples %v", pcm.Channels)
			}
			mono, _ := decodeBytes(t, c.file, false)
			if len(mono.Channels) != 1 || mono.Channels[0][1] != 0 {
				t.Fatalf("mixdown %v", mono.Channels)
			}
		})
	}
	bad := []struct {
		name, reason string
		file         []byte
	}{
		{"no fmt", "before the fmt", riff("RIFF", chunk("data", data, uint32(len(data))))},
		{"no data", "no data chunk", riff("RIFF", chunk("fmt ", f, 16))},
		{"short fmt", "at least 16", riff("RIFF", chunk("fmt ", f[:14], 14), chunk("data", data, 6))},
		{"zero channels", "0 channels", riff("RIFF", chunk("fmt ", fmtBody(wavPCM, 0, 8000, 16), 16), chunk("data", data, 6))},
		{"zero rate", "sample rate", riff("RIFF", chunk("fmt ", fmtBody(wavPCM, 1, 0, 16), 16), chunk("data", data, 6))},
		{"40-bit", "40-bit", riff("RIFF", chunk("fmt ", fmtBody(wavPCM, 1, 8000, 40), 16), chunk("data", data, 6))},
		{"float16", "float", riff("RIFF", chunk("fmt ", fmtBody(wavFloat, 1, 8000, 16), 16), chunk("data", data, 6))},
		{"huge chunk", "truncated", riff("RIFF", chunk("junk", nil, 0xfffffff0))},
		{"empty data", "no audio samples", riff("RIFF", chunk("fmt ", f, 16), chunk("data", nil, 0))},
		{"adpcm without ffmpeg", "ffmpeg, which is disabled", riff("RIFF", chunk("fmt ", fmtBody(0x11, 1, 8000, 4), 16), chunk("data", data, 6))},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeBytes(t, c.file, false)
			wantMediaError(t, err, c.reason)
		})
	}
}

// TestFallbackOnCorruptData: a FLAC file damaged in the middle fails the Go
// decoder's CRC check; ffmpeg, which skips the bad frame, gets a second try
// unless DisableFallback.
func TestFallbackOnCorruptData(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	b, err := os.ReadFile(testaudio.Convert(t, ref, "flac"))
	if err != nil {
		t.Fatal(err)
	}
	mid := len(b) / 2
	for i := mid; i < mid+64; i++ {
		b[i] ^= 0x5a
	}
	p := writeFile(t, "damaged.flac", b)
	_, err = pureGo.Decode(context.Background(), p, 16000, false)
	// The decoder library's message ("frame.Frame.Parse: CRC-16 checksum
	// mismatch ...") is logged, not shown.
	wantMediaError(t, err, "could not be decoded as FLAC: it is damaged")
	if strings.Contains(err.Error(), "CRC") || strings.Contains(err.Error(), "Parse") {
		t.Errorf("the reason holds the library's message: %v", err)
	}
	if errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("corrupt data reported as a missing program: %v", err)
	}
	_, err = (&Decoder{cfg: Config{DisableFallback: true}}).Decode(context.Background(), p, 16000, false)
	wantMediaError(t, err, "could not be decoded as FLAC")
	pcm, err := (&Decoder{}).Decode(context.Background(), p, 16000, false)
	if err != nil {
		t.Fatalf("with ffmpeg fallback: %v", err)
	}
	full := mustDecode(t, pureGo, ref, 16000, false).Duration()
	if d := pcm.Duration(); d < full*8/10 || d > full*11/10 {
		t.Errorf("fallback decoded %v of %v", d, full)
	}
	t.Logf("Go decoder: %v; ffmpeg fallback: %v", err, pcm.Duration())
}
