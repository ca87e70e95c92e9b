package universal

import (
	"context"
	"encoding/binary"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

var (
	psOnce sync.Once
	psRec  *pocketsphinx.Recognizer
	psErr  error
)

// speechRecognizer is pocketsphinx, shared by the package's tests.
func speechRecognizer(t testing.TB) transcribe.StreamRecognizer {
	t.Helper()
	psOnce.Do(func() {
		psRec, psErr = pocketsphinx.New(pocketsphinx.Config{Decoders: 4})
		if psErr == nil {
			// Decoders made now, not while a client waits for Begin (the
			// JS SDK gives up after 1 s).
			psErr = psRec.Warm(context.Background(), 2)
		}
	})
	if psErr != nil {
		t.Fatalf("pocketsphinx: %v (install libpocketsphinx3 and pocketsphinx-en-us: ./scripts/setup.sh)", psErr)
	}
	return psRec
}

// wavPCM returns the samples (16-bit little-endian bytes) of a WAV file.
func wavPCM(t testing.TB, path string) []byte {
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

// speechClip is flite speech (16 kHz PCM) with lead ms of silence before
// and trail ms after.
func speechClip(t testing.TB, voice, text string, lead, trail int) []byte {
	t.Helper()
	return cat(silence(lead, 16000), wavPCM(t, testaudio.Speech(t, voice, text)), silence(trail, 16000))
}

// wordOverlap is the fraction of want's words found in got (case and
// punctuation ignored).
func wordOverlap(want, got string) float64 {
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
