package streamtest

import (
	"encoding/binary"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// Clock is an injectable clock that moves only when told.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at start.
func NewClock(start time.Time) *Clock { return &Clock{t: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Tone returns ms of a 440 Hz tone at rate as little-endian PCM, loud
// enough (amplitude 8000) to be a FakeRecognizer word.
func Tone(ms, rate int) []byte { return ToneAt(ms, rate, 8000) }

// ToneAt returns ms of a 440 Hz tone of amplitude amp.
func ToneAt(ms, rate int, amp float64) []byte {
	n := ms * rate / 1000
	b := make([]byte, 2*n)
	for i := range n {
		v := int16(amp * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// Silence returns ms of zero samples at rate as PCM.
func Silence(ms, rate int) []byte { return make([]byte, 2*(ms*rate/1000)) }

// Chunks splits PCM into pieces of ms milliseconds at rate.
func Chunks(b []byte, ms, rate int) [][]byte {
	size := 2 * ms * rate / 1000
	var out [][]byte
	for len(b) > 0 {
		n := min(size, len(b))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

// Cat joins byte slices.
func Cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// WAVPCM returns the sample bytes (16-bit little-endian) of a WAV file.
func WAVPCM(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		t.Fatalf("%s is not a WAV file", path)
	}
	for i := 12; i+8 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		if string(b[i:i+4]) == "data" {
			d := b[i+8:]
			d = d[:min(n, len(d))]
			return d[:len(d)/2*2]
		}
		i += 8 + n + n%2
	}
	t.Fatalf("%s has no data chunk", path)
	return nil
}

// SpeechClip is flite speech (16 kHz PCM, internal/testaudio) with lead
// ms of silence before and trail ms after.
func SpeechClip(t testing.TB, voice, text string, lead, trail int) []byte {
	t.Helper()
	return Cat(Silence(lead, 16000), WAVPCM(t, testaudio.Speech(t, voice, text)), Silence(trail, 16000))
}

// WordOverlap returns the fraction of the words of want found in got,
// ignoring case and punctuation.
func WordOverlap(want, got string) float64 {
	norm := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'')
		})
	}
	have := map[string]int{}
	for _, w := range norm(got) {
		have[w]++
	}
	ws := norm(want)
	hit := 0
	for _, w := range ws {
		if have[w] > 0 {
			have[w]--
			hit++
		}
	}
	if len(ws) == 0 {
		return 1
	}
	return float64(hit) / float64(len(ws))
}
