package media_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// Decode a file of any supported format to 16 kHz mono PCM for a
// recognizer. Here the file is a 44.1 kHz stereo WAV written by WriteWAV.
func ExampleDecoder_Decode() {
	left := make([]int16, 44100) // one second of a 440 Hz tone
	right := make([]int16, 44100)
	for i := range left {
		left[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/44100))
		right[i] = left[i] / 2
	}
	var buf bytes.Buffer
	if err := media.WriteWAV(&buf, &transcribe.PCM{SampleRate: 44100, Channels: [][]int16{left, right}}); err != nil {
		log.Fatal(err)
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "upload.bin") // the name does not matter
	os.WriteFile(path, buf.Bytes(), 0o600)

	d, err := media.NewDecoder(media.Config{})
	if err != nil {
		log.Fatal(err)
	}
	mono, _ := d.Decode(context.Background(), path, 16000, false)
	both, _ := d.Decode(context.Background(), path, 16000, true)
	fmt.Println(media.Sniff(buf.Bytes()), mono.SampleRate, len(mono.Channels), mono.Duration())
	fmt.Println(len(both.Channels), len(both.Channels[0]))

	os.WriteFile(path, []byte("<html>Not found</html>"), 0o600)
	_, err = d.Decode(context.Background(), path, 16000, false)
	fmt.Println(err)
	// Output:
	// wav 16000 1 1s
	// 2 16000
	// unsupported format: the file is an HTML page, not audio or video
}

func ExampleSniff() {
	fmt.Println(media.Sniff([]byte("fLaC\x00\x00\x00\x22")))
	fmt.Println(media.Sniff([]byte("\x1a\x45\xdf\xa3\x01\x00\x00\x00")))
	fmt.Println(media.Sniff([]byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x13OpusHead")))
	fmt.Println(media.FormatOpus.PureGo(), media.FormatFLAC.PureGo())
	// Output:
	// flac
	// matroska
	// opus
	// false true
}

func ExampleResampler() {
	r, _ := media.NewResampler(48000, 16000)
	in := make([]float32, 4800) // 100 ms
	out := r.Process(nil, in[:1000])
	out = r.Process(out, in[1000:])
	out = r.Flush(out)
	fmt.Println(len(out))
	// Output: 1600
}
