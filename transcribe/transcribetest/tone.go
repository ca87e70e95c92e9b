package transcribetest

import (
	"encoding/binary"
	"math"
)

// ToneWAV is a 16 kHz mono 16-bit WAV of seconds of a 300 Hz tone: audio
// that decodes, for tests and examples whose recognizer is scripted. (The
// header is written here rather than by transcribe/media, whose own tests
// import this package.)
func ToneWAV(seconds float64) []byte {
	const rate = 16000
	n := int(seconds * rate)
	b := make([]byte, 44+2*n)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)     // fmt chunk size
	binary.LittleEndian.PutUint16(b[20:], 1)      // PCM
	binary.LittleEndian.PutUint16(b[22:], 1)      // mono
	binary.LittleEndian.PutUint32(b[24:], rate)   // sample rate
	binary.LittleEndian.PutUint32(b[28:], 2*rate) // byte rate
	binary.LittleEndian.PutUint16(b[32:], 2)      // block align
	binary.LittleEndian.PutUint16(b[34:], 16)     // bits per sample
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(2*n))
	for i := range n {
		v := int16(8000 * math.Sin(2*math.Pi*300*float64(i)/rate))
		binary.LittleEndian.PutUint16(b[44+2*i:], uint16(v))
	}
	return b
}
