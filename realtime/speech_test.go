package realtime

import (
	"context"
	"sync"
	"testing"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/realtime/realtimetest/streamtest"
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

// speechClip is flite speech with silence around it (300 ms before, 900
// ms after), as 16 kHz PCM bytes.
func speechClip(t testing.TB, voice, text string) []byte {
	t.Helper()
	return streamtest.SpeechClip(t, voice, text, 300, 900)
}
