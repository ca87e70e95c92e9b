package transcribetest

import (
	"bytes"
	"math"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
)

// ToneWAV is a 16 kHz mono 16-bit WAV of seconds of a 300 Hz tone: audio
// that decodes, for tests and examples whose recognizer is scripted.
func ToneWAV(seconds float64) []byte {
	pcm := &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{make([]int16, int(seconds*16000))}}
	for i := range pcm.Channels[0] {
		pcm.Channels[0][i] = int16(8000 * math.Sin(2*math.Pi*300*float64(i)/16000))
	}
	var b bytes.Buffer
	if err := media.WriteWAV(&b, pcm); err != nil {
		panic(err) // writing to memory does not fail
	}
	return b.Bytes()
}
