// Package testaudio synthesizes real speech for tests with Debian's flite
// voices (slt, rms, awb, kal), which pocketsphinx recognizes almost word for
// word, and finds the librivox clips of Debian's pocketsphinx-testdata.
//
// Files are cached under $TMPDIR/earshot-testaudio by content hash, so
// repeated test runs do not re-synthesize. Missing tools fail the test with
// the package to install (the repo's set-up script installs them all).
package testaudio

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Voices are flite's distinct voices: two female-sounding (slt) and three
// male-sounding (rms, awb, kal).
var Voices = []string{"slt", "rms", "awb", "kal"}

var mu sync.Mutex

// Dir returns the cache directory.
func Dir() string {
	d := filepath.Join(os.TempDir(), "earshot-testaudio")
	_ = os.MkdirAll(d, 0o755)
	return d
}

// Need fails t unless every named program is on PATH.
func Need(t testing.TB, programs ...string) {
	t.Helper()
	pkg := map[string]string{"flite": "flite", "sox": "sox", "ffmpeg": "ffmpeg", "pocketsphinx_continuous": "pocketsphinx"}
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed (Debian package %q); run ./scripts/setup.sh", p, pkg[p])
		}
	}
}

var tmpSeq atomic.Int64

func cached(name string, make func(path string) error) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	sum := sha256.Sum256([]byte(name))
	path := filepath.Join(Dir(), hex.EncodeToString(sum[:12])+filepath.Ext(name))
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return path, nil
	}
	// Test binaries of several packages run at once and share the cache:
	// each makes its own temporary file and renames it into place, so a
	// reader never sees a half-written file and writers never collide.
	tmp := fmt.Sprintf("%s.tmp%d-%d%s", path, os.Getpid(), tmpSeq.Add(1), filepath.Ext(name))
	if err := make(tmp); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// Speech returns a 16 kHz mono 16-bit WAV of text spoken by voice.
func Speech(t testing.TB, voice, text string) string {
	t.Helper()
	Need(t, "flite", "sox")
	p, err := cached("speech|"+voice+"|"+text+".wav", func(out string) error {
		raw := out + ".flite.wav"
		defer os.Remove(raw)
		if b, err := exec.Command("flite", "-voice", voice, "-t", text, "-o", raw).CombinedOutput(); err != nil {
			return fmt.Errorf("flite: %v: %s", err, b)
		}
		return run("sox", raw, "-r", "16000", "-c", "1", "-b", "16", out)
	})
	if err != nil {
		t.Fatalf("synthesizing %q: %v", text, err)
	}
	return p
}

// Sox runs sox with args producing out (the last argument), cached by the
// whole command line. Input files are named in args.
func Sox(t testing.TB, ext string, args ...string) string {
	t.Helper()
	Need(t, "sox")
	key := "sox|" + strings.Join(args, "|")
	for _, a := range args {
		if st, err := os.Stat(a); err == nil {
			key += fmt.Sprintf("|%d|%d", st.Size(), st.ModTime().UnixNano())
		}
	}
	p, err := cached(key+"."+ext, func(out string) error { return run("sox", append(args, out)...) })
	if err != nil {
		t.Fatalf("sox %v: %v", args, err)
	}
	return p
}

// SoxEffects runs `sox [inputs...] OUT [effects...]` (for example
// inputs {"-n", "-r", "16000", "-c", "1"} with effects {"trim", "0", "0.5"}
// for half a second of silence), cached like Sox.
func SoxEffects(t testing.TB, ext string, inputs []string, effects ...string) string {
	t.Helper()
	Need(t, "sox")
	key := "soxfx|" + strings.Join(inputs, "|") + "||" + strings.Join(effects, "|")
	for _, a := range inputs {
		if st, err := os.Stat(a); err == nil {
			key += fmt.Sprintf("|%d|%d", st.Size(), st.ModTime().UnixNano())
		}
	}
	p, err := cached(key+"."+ext, func(out string) error {
		args := append(append(append([]string{}, inputs...), out), effects...)
		return run("sox", args...)
	})
	if err != nil {
		t.Fatalf("sox %v %v: %v", inputs, effects, err)
	}
	return p
}

// Convert transcodes in to the container/codec implied by ext (mp3, flac,
// ogg, m4a, webm, ...) with ffmpeg, cached.
func Convert(t testing.TB, in, ext string, ffmpegArgs ...string) string {
	t.Helper()
	Need(t, "ffmpeg")
	st, _ := os.Stat(in)
	key := fmt.Sprintf("conv|%s|%v|%d|%s", in, ffmpegArgs, st.Size(), ext)
	p, err := cached(key+"."+ext, func(out string) error {
		args := append([]string{"-nostdin", "-loglevel", "error", "-y", "-i", in}, ffmpegArgs...)
		return run("ffmpeg", append(args, out)...)
	})
	if err != nil {
		t.Fatalf("ffmpeg %s -> %s: %v", in, ext, err)
	}
	return p
}

func run(name string, args ...string) error {
	b, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, b)
	}
	return nil
}

// LibrivoxDir is where Debian's pocketsphinx-testdata keeps read speech.
const LibrivoxDir = "/usr/share/pocketsphinx/test/data/librivox"

// Librivox returns the paths of the librivox WAV clips, failing t when the
// package is not installed.
func Librivox(t testing.TB) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(LibrivoxDir, "*.wav"))
	if len(m) == 0 {
		t.Fatalf("no clips in %s: install Debian package pocketsphinx-testdata (./scripts/setup.sh)", LibrivoxDir)
	}
	return m
}
