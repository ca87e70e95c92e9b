package console

import (
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestAudioStoreForgotten: the console keeps an uploaded file in
// IndexedDB for playback, and it goes when the key does: "Forget key", a
// sign-in in another tab (refused or not), the server refusing the key in
// use, and 24 hours after the upload (pruned at start-up). Headless
// Chromium on the fixture API (run.cjs audio-store).
func TestAudioStoreForgotten(t *testing.T) {
	t.Parallel()
	dir := browserDir(t, true)
	const key = "fixture-key"
	fixture := fixtureServer(t, key)
	wav := testaudio.Speech(t, "slt", "keep this only for a day")
	var r struct {
		AudioStore map[string]any `json:"audioStore"`
	}
	runNode(t, dir, "audio-store", 3*time.Minute, []string{
		"EARSHOT_FIXTURE_URL=" + fixture.URL, "EARSHOT_FIXTURE_KEY=" + key, "EARSHOT_WAV=" + wav, "EARSHOT_SHOTS=" + t.TempDir(),
	}, &r)
	want := map[string]any{
		"afterUpload": 1.0, "afterForgetKey": 0.0,
		"beforeOtherTab": 1.0, "otherTabHasKey": false, "afterRefusedSignIn": 0.0,
		"beforeNewSignIn": 1.0, "afterNewSignIn": 0.0,
		"beforeRevoked": 1.0, "afterRevoked": 0.0,
		"beforeExpiry": 1.0, "keyAfterExpiry": true, "afterExpiry": 0.0,
	}
	for k, v := range want {
		if got, ok := r.AudioStore[k]; !ok || got != v {
			t.Errorf("%s: %v, want %v (IndexedDB entries of uploaded audio)", k, got, v)
		}
	}
}
