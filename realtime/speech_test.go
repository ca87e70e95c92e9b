package realtime

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

// speechRecognizer returns the recognizer for the real-speech tests, the
// pocketsphinx adapter (shared by the package's tests, its decoders
// pooled), and whether it really recognizes words.
func speechRecognizer(t testing.TB) (transcribe.StreamRecognizer, bool) {
	t.Helper()
	psOnce.Do(func() { psRec, psErr = pocketsphinx.New(pocketsphinx.Config{Decoders: 4}) })
	if psErr != nil {
		t.Fatalf("pocketsphinx: %v (install libpocketsphinx3 and pocketsphinx-en-us: ./scripts/setup.sh)", psErr)
	}
	return psRec, true
}

// benchRecognizer returns a fresh pocketsphinx recognizer with decoders
// decoders already created, so that their start-up is not measured.
func benchRecognizer(t testing.TB, decoders int) (transcribe.StreamRecognizer, bool) {
	t.Helper()
	r, err := pocketsphinx.New(pocketsphinx.Config{Decoders: decoders})
	if err != nil {
		t.Fatalf("pocketsphinx: %v", err)
	}
	if err := r.Warm(context.Background(), decoders); err != nil {
		t.Fatalf("pocketsphinx warm-up: %v", err)
	}
	return r, true
}

// wavPCM returns the sample bytes (16-bit little-endian) of a WAV file.
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
		id := string(b[i : i+4])
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		if id == "data" {
			d := b[i+8:]
			if n < len(d) {
				d = d[:n]
			}
			return d[:len(d)/2*2]
		}
		i += 8 + n + n%2
	}
	t.Fatalf("%s has no data chunk", path)
	return nil
}

// speechClip is flite speech with half a second of silence around it, as
// 16 kHz PCM bytes.
func speechClip(t testing.TB, voice, text string) []byte {
	t.Helper()
	return cat(silence(300, 16000), wavPCM(t, testaudio.Speech(t, voice, text)), silence(900, 16000))
}

// wordOverlap returns the fraction of the words of want found in got,
// ignoring case and punctuation.
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
