package universal

import (
	"context"
	"sync"
	"testing"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
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
