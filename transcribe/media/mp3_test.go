package media

import (
	"context"
	"math"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
)

// TestMP3GaplessMatchesFFmpeg checks that the pure-Go MP3 path, with LAME
// gapless trimming, gives the same samples as ffmpeg's decoder.
func TestMP3GaplessMatchesFFmpeg(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	mp3 := testaudio.Convert(t, speech(t), "mp3", "-c:a", "libmp3lame", "-b:a", "64k")
	goPCM := mustDecode(t, pureGo, mp3, 16000, false).Channels[0]
	var ff memSink
	if err := (&Decoder{}).decodeFFmpeg(context.Background(), mp3, FormatMP3, 16000, false, &ff); err != nil {
		t.Fatal(err)
	}
	ffPCM := ff.out[0]
	if len(goPCM) != len(ffPCM) {
		t.Errorf("go-mp3 gives %d samples, ffmpeg %d", len(goPCM), len(ffPCM))
	}
	var num, den float64
	for i := range min(len(goPCM), len(ffPCM)) {
		d := float64(goPCM[i]) - float64(ffPCM[i])
		num += d * d
		den += float64(ffPCM[i]) * float64(ffPCM[i])
	}
	snr := 10 * math.Log10(den/num)
	t.Logf("go-mp3 vs ffmpeg: %d vs %d samples, SNR %.1f dB", len(goPCM), len(ffPCM), snr)
	if snr < 30 {
		t.Errorf("go-mp3 and ffmpeg differ: SNR %.1f dB (misaligned?)", snr)
	}
}

// TestMP3PrefersFFmpeg: with ffmpeg installed an MP3 goes to it (the
// wrapper below notes each call); PureGoMP3 keeps it in go-mp3; an ffmpeg
// that fails leaves the file to go-mp3, with the same audio.
func TestMP3PrefersFFmpeg(t *testing.T) {
	real, err := osexec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("ffmpeg is not installed (scripts/setup.sh installs it)")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	wrapper := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho call >> "+calls+"\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := wrapper("ffmpeg-good", `exec "`+real+`" "$@"`)
	broken := wrapper("ffmpeg-broken", "echo 'simulated failure' >&2; exit 1")
	mp3 := testaudio.Convert(t, speech(t), "mp3", "-c:a", "libmp3lame", "-b:a", "64k")
	want := mustDecode(t, pureGo, mp3, 16000, false)
	count := func() int {
		b, _ := os.ReadFile(calls)
		os.Remove(calls)
		return strings.Count(string(b), "call")
	}
	for _, c := range []struct {
		name  string
		cfg   Config
		calls int
	}{
		{"ffmpeg", Config{FFmpegPath: good}, 1},
		{"PureGoMP3", Config{FFmpegPath: good, PureGoMP3: true}, 0},
		{"ffmpeg fails, go-mp3 decodes", Config{FFmpegPath: broken}, 1},
	} {
		got := mustDecode(t, &Decoder{cfg: c.cfg}, mp3, 16000, false)
		if n := count(); n != c.calls {
			t.Errorf("%s: ffmpeg ran %d times, want %d", c.name, n, c.calls)
		}
		if d := got.Duration() - want.Duration(); d < -5*time.Millisecond || d > 5*time.Millisecond {
			t.Errorf("%s: %v of audio, go-mp3 alone %v", c.name, got.Duration(), want.Duration())
		}
	}
}
