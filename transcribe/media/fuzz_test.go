package media

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// FuzzDecode feeds arbitrary bytes to the pure-Go decoders: every outcome
// must be valid PCM or a *transcribe.MediaError, never a panic or another
// error.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/tone*")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("RIFF\xff\xff\xff\xffWAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00data\xff\xff\xff\xff\x01\x02\x03\x04"))
	f.Add([]byte("ID3\x04\x00\x00\x00\x00\x00\x05hello\xff\xfb\x90\x00"))
	f.Add([]byte("OggS\x00\x02"))
	f.Add([]byte("fLaC\x00\x00\x00\x22"))
	f.Add([]byte("ID3\x04\x00\x00\x00\x00\x00\x00#EXTM3U\n#EXTINF:1,\n/etc/passwd\n"))
	f.Add([]byte("\xef\xbb\xbf  ffconcat version 1.0\nfile 'a.wav'\n"))
	f.Add([]byte("v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\nm=audio 5004 RTP/AVP 0\r\n"))
	f.Add([]byte("file:/x.mp3\nhttp://example.com/a.mp3\n"))
	dir := f.TempDir()
	d := &Decoder{cfg: Config{DisableFFmpeg: true, MaxDuration: 30 * time.Second}}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, keep := range []bool{false, true} {
			var pcm *transcribe.PCM
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				pcm, err = d.Decode(context.Background(), p, 16000, keep)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("Decode of %d bytes hangs", len(data))
			}
			if err != nil {
				var me *transcribe.MediaError
				if !errors.As(err, &me) || me.Reason == "" {
					t.Fatalf("error %v (%T) is not a MediaError", err, err)
				}
				continue
			}
			if pcm.SampleRate != 16000 || len(pcm.Channels) == 0 || len(pcm.Channels[0]) == 0 {
				t.Fatalf("bad PCM: %d Hz, %d channels", pcm.SampleRate, len(pcm.Channels))
			}
			if !keep && len(pcm.Channels) != 1 {
				t.Fatalf("%d channels without keepChannels", len(pcm.Channels))
			}
			for _, c := range pcm.Channels {
				if len(c) != len(pcm.Channels[0]) {
					t.Fatal("channels of unequal length")
				}
			}
		}
	})
}

// TestSeedsDecode checks the committed seed files decode to the 0.1 s,
// 440 Hz tone they hold, without external tools.
func TestSeedsDecode(t *testing.T) {
	seeds, _ := filepath.Glob("testdata/tone*")
	if len(seeds) < 5 {
		t.Fatalf("seed files missing: %v", seeds)
	}
	for _, p := range seeds {
		pcm := mustDecode(t, pureGo, p, 16000, true)
		if d := pcm.Duration() - 100*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("%s: %v", p, pcm.Duration())
		}
		x := make([]float32, len(pcm.Channels[0]))
		for i, v := range pcm.Mono() {
			x[i] = float32(v) / 32768
		}
		mid := x[len(x)/4 : len(x)*3/4]
		if a := amplitudeAt(mid, 16000, 440); a < 0.05 { // sine at 1/8 (1/8√2 in stereo)
			t.Errorf("%s: 440 Hz amplitude %.3f", p, a)
		}
	}
}

// TestConcurrentDecode decodes the seeds from several goroutines at once
// with one shared Decoder (run with -race).
func TestConcurrentDecode(t *testing.T) {
	seeds, _ := filepath.Glob("testdata/tone*")
	d := &Decoder{}
	want := map[string]int{}
	for _, p := range seeds {
		want[p] = len(mustDecode(t, d, p, 8000, true).Channels[0])
	}
	errs := make(chan error, 4*len(seeds))
	for g := range 4 {
		go func() {
			for i := range seeds {
				p := seeds[(i+g)%len(seeds)]
				pcm, err := d.Decode(context.Background(), p, 8000, g%2 == 0)
				if err == nil && len(pcm.Channels[0]) != want[p] {
					err = errors.New(p + ": length differs between runs")
				}
				errs <- err
			}
		}()
	}
	for range 4 * len(seeds) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
