package media

import (
	"context"
	"errors"
	"math"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
	goaudio "github.com/go-audio/audio"
	"github.com/go-audio/wav"
)

const sentence = "the quick brown fox jumps over the lazy dog while five boxing wizards jump quickly"

// speech returns the reference clip: 16 kHz mono 16-bit WAV.
func speech(t testing.TB) string {
	t.Helper()
	return testaudio.Speech(t, "slt", sentence)
}

var pureGo = &Decoder{cfg: Config{DisableFFmpeg: true}}

func mustDecode(t testing.TB, d *Decoder, path string, rate int, keep bool) *transcribe.PCM {
	t.Helper()
	pcm, err := d.Decode(context.Background(), path, rate, keep)
	if err != nil {
		t.Fatalf("Decode(%s): %v", filepath.Base(path), err)
	}
	return pcm
}

// envelope returns the RMS of each 10 ms frame.
func envelope(x []int16, rate int) []float64 {
	n := rate / 100
	var env []float64
	for i := 0; i+n <= len(x); i += n {
		s := 0.0
		for _, v := range x[i : i+n] {
			s += float64(v) * float64(v)
		}
		env = append(env, math.Sqrt(s/float64(n)))
	}
	return env
}

func pearson(a, b []float64) float64 {
	n := min(len(a), len(b))
	if n == 0 {
		return 0
	}
	var ma, mb float64
	for i := range n {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(n)
	mb /= float64(n)
	var sab, saa, sbb float64
	for i := range n {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	if saa == 0 || sbb == 0 {
		return 0
	}
	return sab / math.Sqrt(saa*sbb)
}

// bestCorrelation returns the highest envelope correlation of b against a
// over lags of up to ±maxLag frames, and that lag (positive: b is late).
func bestCorrelation(a, b []float64, maxLag int) (float64, int) {
	best, lag := -2.0, 0
	for l := -maxLag; l <= maxLag; l++ {
		var c float64
		if l >= 0 {
			if l >= len(b) {
				continue
			}
			c = pearson(a, b[l:])
		} else {
			if -l >= len(a) {
				continue
			}
			c = pearson(a[-l:], b)
		}
		if c > best {
			best, lag = c, l
		}
	}
	return best, lag
}

type variant struct {
	name     string
	make     func(t *testing.T, ref string) string
	channels int           // in the file
	goOnly   bool          // must decode without ffmpeg
	maxLag   int           // allowed envelope lag, 10 ms frames
	durTol   time.Duration // allowed duration difference
}

func soxVariant(ext string, args ...string) func(t *testing.T, ref string) string {
	return func(t *testing.T, ref string) string {
		return testaudio.Sox(t, ext, append([]string{ref}, args...)...)
	}
}

func conv(ext string, args ...string) func(t *testing.T, ref string) string {
	return func(t *testing.T, ref string) string { return testaudio.Convert(t, ref, ext, args...) }
}

// stereo44 is the reference as 44.1 kHz stereo with the right channel at
// half volume.
func stereo44(t *testing.T, ref string) string {
	return testaudio.Convert(t, ref, "wav", "-af", "pan=stereo|c0=c0|c1=0.5*c0", "-ar", "44100")
}

func variants() []variant {
	return []variant{
		{name: "wav16k", make: func(t *testing.T, ref string) string { return ref }, channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav44k-stereo", make: stereo44, channels: 2, goOnly: true, durTol: time.Millisecond},
		{name: "wav8k", make: soxVariant("wav", "-r", "8000"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav48k-24bit", make: soxVariant("wav", "-r", "48000", "-b", "24"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav-float32", make: soxVariant("wav", "-e", "floating-point", "-b", "32"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav-float64", make: soxVariant("wav", "-e", "floating-point", "-b", "64"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav-s32", make: soxVariant("wav", "-e", "signed-integer", "-b", "32"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav-u8", make: soxVariant("wav", "-e", "unsigned-integer", "-b", "8"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav-mulaw8k", make: soxVariant("wav", "-r", "8000", "-e", "u-law"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav-alaw8k", make: soxVariant("wav", "-r", "8000", "-e", "a-law"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "wav-extensible-6ch", make: conv("wav", "-af", "pan=5.1|c0=c0|c1=0.9*c0|c2=0.8*c0|c3=0.7*c0|c4=0.6*c0|c5=0.5*c0", "-c:a", "pcm_s24le"), channels: 6, goOnly: true, durTol: time.Millisecond},
		{name: "wav-ima-adpcm", make: soxVariant("wav", "-e", "ima-adpcm"), channels: 1, durTol: 30 * time.Millisecond},
		{name: "mp3", make: conv("mp3", "-c:a", "libmp3lame", "-b:a", "64k"), channels: 1, goOnly: true, durTol: 5 * time.Millisecond},
		{name: "mp3-44k-stereo", make: func(t *testing.T, ref string) string {
			return testaudio.Convert(t, stereo44(t, ref), "mp3", "-c:a", "libmp3lame", "-b:a", "128k")
		}, channels: 2, goOnly: true, durTol: 5 * time.Millisecond},
		{name: "mp3-8k-mpeg2.5", make: conv("mp3", "-ar", "8000", "-c:a", "libmp3lame", "-b:a", "16k"), channels: 1, durTol: 40 * time.Millisecond, maxLag: 5},
		{name: "mp3-id3", make: conv("mp3", "-c:a", "libmp3lame", "-metadata", "title=Quick fox", "-id3v2_version", "3", "-write_id3v1", "1"), channels: 1, goOnly: true, durTol: 5 * time.Millisecond},
		{name: "flac", make: conv("flac"), channels: 1, goOnly: true, durTol: time.Millisecond},
		{name: "flac-48k-24bit-stereo", make: func(t *testing.T, ref string) string {
			return testaudio.Convert(t, stereo44(t, ref), "flac", "-ar", "48000", "-sample_fmt", "s32")
		}, channels: 2, goOnly: true, durTol: time.Millisecond},
		{name: "ogg-vorbis", make: conv("ogg", "-c:a", "libvorbis"), channels: 1, goOnly: true, durTol: 5 * time.Millisecond},
		{name: "ogg-vorbis-44k-stereo", make: func(t *testing.T, ref string) string {
			return testaudio.Convert(t, stereo44(t, ref), "ogg", "-c:a", "libvorbis")
		}, channels: 2, goOnly: true, durTol: 5 * time.Millisecond},
		{name: "m4a-aac", make: conv("m4a", "-c:a", "aac"), channels: 1, durTol: 70 * time.Millisecond, maxLag: 3},
		{name: "mp4-aac-stereo", make: func(t *testing.T, ref string) string {
			return testaudio.Convert(t, stereo44(t, ref), "mp4", "-c:a", "aac")
		}, channels: 2, durTol: 70 * time.Millisecond, maxLag: 3},
		{name: "mov", make: conv("mov", "-c:a", "aac"), channels: 1, durTol: 70 * time.Millisecond, maxLag: 3},
		{name: "webm-opus", make: conv("webm", "-c:a", "libopus"), channels: 1, durTol: 70 * time.Millisecond, maxLag: 3},
		{name: "ogg-opus", make: conv("opus", "-c:a", "libopus"), channels: 1, durTol: 70 * time.Millisecond, maxLag: 3},
		{name: "mkv-vorbis", make: conv("mkv", "-c:a", "libvorbis"), channels: 1, durTol: 70 * time.Millisecond, maxLag: 3},
		{name: "aac-adts", make: conv("aac", "-c:a", "aac"), channels: 1, durTol: 150 * time.Millisecond, maxLag: 7},
		{name: "aiff", make: conv("aiff"), channels: 1, durTol: time.Millisecond},
		{name: "mp4-video", make: func(t *testing.T, ref string) string {
			return testaudio.Convert(t, ref, "mp4", "-f", "lavfi", "-i", "color=c=blue:s=64x64:r=10", "-shortest", "-map", "1:v", "-map", "0:a", "-c:v", "mpeg4", "-c:a", "aac")
		}, channels: 1, durTol: 120 * time.Millisecond, maxLag: 3},
	}
}

// TestFormats decodes real speech in every supported format and variant
// and checks its duration and that its energy envelope matches the
// original's.
func TestFormats(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	refPCM := mustDecode(t, pureGo, ref, 16000, false)
	refEnv := envelope(refPCM.Channels[0], 16000)
	full := &Decoder{}
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			path := v.make(t, ref)
			d := full
			if v.goOnly {
				d = pureGo
			}
			keeps := []bool{false, true}
			if !v.goOnly && v.channels == 1 {
				keeps = keeps[1:] // one ffmpeg run is enough for mono
			}
			for _, keep := range keeps {
				pcm := mustDecode(t, d, path, 16000, keep)
				wantCh := 1
				if keep {
					wantCh = v.channels
				}
				if len(pcm.Channels) != wantCh || pcm.SampleRate != 16000 {
					t.Fatalf("keep=%v: %d channels at %d Hz, want %d at 16000", keep, len(pcm.Channels), pcm.SampleRate, wantCh)
				}
				if diff := pcm.Duration() - refPCM.Duration(); diff < -v.durTol || diff > v.durTol {
					t.Errorf("keep=%v: duration %v, reference %v (tolerance %v)", keep, pcm.Duration(), refPCM.Duration(), v.durTol)
				}
				for c, ch := range pcm.Channels {
					r, lag := bestCorrelation(refEnv, envelope(ch, 16000), 10)
					if r < 0.9 || lag < -v.maxLag || lag > v.maxLag {
						t.Errorf("keep=%v channel %d: envelope correlation %.3f at lag %d0 ms (want > 0.9 within ±%d0 ms)", keep, c, r, lag, v.maxLag)
					}
					if keep && c == 0 {
						t.Logf("envelope correlation %.4f, lag %d0 ms, duration %v", r, lag, pcm.Duration())
					}
				}
			}
		})
	}
}

// TestSampleExact checks that lossless formats decode to the very samples
// of the original at its own rate.
func TestSampleExact(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	want := mustDecode(t, pureGo, ref, 16000, false).Channels[0]
	for _, path := range []string{
		testaudio.Convert(t, ref, "flac"),
		testaudio.Sox(t, "wav", ref, "-b", "24"),
		testaudio.Sox(t, "wav", ref, "-e", "floating-point", "-b", "32"),
		goaudioWAV(t, want, 16000),
	} {
		got := mustDecode(t, pureGo, path, 16000, false).Channels[0]
		if len(got) != len(want) {
			t.Fatalf("%s: %d samples, want %d", path, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: sample %d = %d, want %d", path, i, got[i], want[i])
			}
		}
	}
}

// goaudioWAV writes samples with github.com/go-audio/wav, an independent
// WAV writer.
func goaudioWAV(t *testing.T, samples []int16, rate int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "goaudio.wav")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := wav.NewEncoder(f, rate, 16, 1, 1)
	data := make([]int, len(samples))
	for i, s := range samples {
		data[i] = int(s)
	}
	buf := &goaudio.IntBuffer{Format: &goaudio.Format{NumChannels: 1, SampleRate: rate}, Data: data, SourceBitDepth: 16}
	if err := enc.Write(buf); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func prefix(t *testing.T, path string, n int) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b[:min(n, len(b))]
}

func wantMediaError(t *testing.T, err error, contains string) {
	t.Helper()
	var me *transcribe.MediaError
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T) is not a *transcribe.MediaError", err, err)
	}
	ok := false
	for _, c := range strings.Split(contains, "|") {
		ok = ok || strings.Contains(me.Reason, c)
	}
	if !ok {
		t.Fatalf("reason %q does not mention %q", me.Reason, contains)
	}
}

func TestBadMedia(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	mp3 := testaudio.Convert(t, ref, "mp3", "-c:a", "libmp3lame")
	flac := testaudio.Convert(t, ref, "flac")
	ogg := testaudio.Convert(t, ref, "ogg", "-c:a", "libvorbis")
	m4a := testaudio.Convert(t, ref, "m4a", "-c:a", "aac")
	garbage := make([]byte, 20000)
	for i := range garbage {
		garbage[i] = byte(i*7919 + i*i*31)
	}
	emptyWAV := prefix(t, ref, 44)
	cases := []struct {
		name, reason string
		data         []byte
	}{
		{"empty", "empty", nil},
		{"garbage", "not audio or video|not WAV, MP3, FLAC or Ogg Vorbis", garbage},
		{"html", "HTML page", []byte("<!DOCTYPE html><html><body>Not found</body></html>")},
		{"json", "JSON", []byte(`{"error": "nope"}`)},
		{"text", "text", []byte("hello, this is not audio\n")},
		{"png", "PNG image", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
		{"hls-playlist", "playlists and other files that point to other files are not accepted", []byte("#EXTM3U\n#EXTINF:1,\nhttp://169.254.169.254/latest\n")},
		{"wav-header-cut", "truncated", prefix(t, ref, 30)},
		{"wav-no-data", "no audio samples", emptyWAV},
		{"mp3-cut", "", prefix(t, mp3, 200)},
		{"flac-cut", "truncated", prefix(t, flac, 20)},
		{"ogg-cut", "", prefix(t, ogg, 100)},
		{"m4a-cut", "", prefix(t, m4a, 300)},
		{"id3-only", "ID3 tag", []byte("ID3\x03\x00\x00\x00\x00\x00\x05hello")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, "media", c.data)
			for _, d := range []*Decoder{{}, pureGo} {
				_, err := d.Decode(context.Background(), p, 16000, false)
				if c.name == "m4a-cut" && d == pureGo {
					wantMediaError(t, err, "disabled")
					if !errors.Is(err, transcribe.ErrUnavailable) {
						t.Fatalf("pure Go m4a: %v", err)
					}
					continue
				}
				wantMediaError(t, err, c.reason)
				t.Logf("with ffmpeg=%v: %v", d != pureGo, err)
			}
		})
	}
}

func TestTruncatedKeepsAudio(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	full := mustDecode(t, pureGo, ref, 16000, false).Duration()
	for _, path := range []string{ref, testaudio.Convert(t, ref, "mp3", "-c:a", "libmp3lame"), testaudio.Convert(t, ref, "flac"), testaudio.Convert(t, ref, "ogg", "-c:a", "libvorbis")} {
		b, _ := os.ReadFile(path)
		half := writeFile(t, "half", b[:len(b)/2])
		pcm := mustDecode(t, pureGo, half, 16000, false)
		if d := pcm.Duration(); d < full/4 || d > full*3/4 {
			t.Errorf("%s cut in half decodes to %v of %v", filepath.Ext(path), d, full)
		}
	}
}

func TestNoFFmpeg(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	missing := &Decoder{cfg: Config{FFmpegPath: "/nonexistent/ffmpeg"}}
	for _, path := range []string{
		testaudio.Convert(t, ref, "m4a", "-c:a", "aac"),
		testaudio.Convert(t, ref, "webm", "-c:a", "libopus"),
		testaudio.Sox(t, "wav", ref, "-e", "ima-adpcm"),
		testaudio.Convert(t, ref, "mp3", "-ar", "8000", "-c:a", "libmp3lame"),
	} {
		_, err := missing.Decode(context.Background(), path, 16000, false)
		wantMediaError(t, err, "install ffmpeg")
		if !errors.Is(err, transcribe.ErrUnavailable) {
			t.Errorf("%v does not wrap ErrUnavailable", err)
		}
		t.Log(err)
	}
	// The pure-Go formats do not need it.
	mustDecode(t, missing, testaudio.Convert(t, ref, "flac"), 16000, false)
}

func TestNoAudioTrack(t *testing.T) {
	testaudio.Need(t, "ffmpeg")
	p := filepath.Join(t.TempDir(), "video.mp4")
	if b, err := runCmd("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=red:s=32x32:r=5:d=1", "-c:v", "mpeg4", p); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	_, err := (&Decoder{}).Decode(context.Background(), p, 16000, false)
	wantMediaError(t, err, "no audio track")
}

func TestLimitsAndArguments(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	short := &Decoder{cfg: Config{MaxDuration: time.Second}}
	for _, p := range []string{ref, testaudio.Convert(t, ref, "m4a", "-c:a", "aac")} {
		_, err := short.Decode(context.Background(), p, 16000, false)
		wantMediaError(t, err, "longer than the 1s limit")
	}
	few := &Decoder{cfg: Config{MaxChannels: 2}}
	six := testaudio.Convert(t, ref, "wav", "-ac", "6")
	_, err := few.Decode(context.Background(), six, 16000, true)
	wantMediaError(t, err, "6 channels")
	mustDecode(t, few, six, 16000, false)

	var me *transcribe.MediaError
	for _, rate := range []int{0, -1, 999, 1_000_000} {
		if _, err := (&Decoder{}).Decode(context.Background(), ref, rate, false); err == nil || errors.As(err, &me) {
			t.Errorf("rate %d: %v", rate, err)
		}
	}
	if _, err := (&Decoder{}).Decode(context.Background(), "/nonexistent/file.wav", 16000, false); err == nil || errors.As(err, &me) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := NewDecoder(Config{MaxDuration: -1}); err == nil || !strings.Contains(err.Error(), "MaxDuration") {
		t.Errorf("NewDecoder(MaxDuration -1) = %v", err)
	}
	if _, err := NewDecoder(Config{MaxChannels: -1}); err == nil || !strings.Contains(err.Error(), "MaxChannels") {
		t.Errorf("NewDecoder(MaxChannels -1) = %v", err)
	}
}

func TestCancel(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []string{ref, testaudio.Convert(t, ref, "m4a", "-c:a", "aac")} {
		if _, err := (&Decoder{}).Decode(ctx, p, 16000, false); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v", filepath.Ext(p), err)
		}
	}
	// Cancelling while ffmpeg runs: a long input keeps it busy.
	long := testaudio.Sox(t, "wav", ref, ref, ref, ref, ref, ref, ref, ref, ref, ref)
	longM4A := testaudio.Convert(t, long, "m4a", "-c:a", "aac")
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := (&Decoder{}).Decode(ctx, longM4A, 16000, false)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled ffmpeg decode: %v", err)
	}
	t.Logf("cancelled after %v: %v", time.Since(start), err)
}

func TestSniff(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	for _, c := range []struct {
		path   string
		want   Format
		decode bool // not already decoded by TestFormats
	}{
		{ref, FormatWAV, false},
		{testaudio.Convert(t, ref, "mp3", "-c:a", "libmp3lame"), FormatMP3, false},
		{testaudio.Convert(t, ref, "mp3", "-c:a", "libmp3lame", "-metadata", "title=x", "-id3v2_version", "4"), FormatMP3, false},
		{testaudio.Convert(t, ref, "flac"), FormatFLAC, false},
		{testaudio.Convert(t, ref, "ogg", "-c:a", "libvorbis"), FormatVorbis, false},
		{testaudio.Convert(t, ref, "opus", "-c:a", "libopus"), FormatOpus, false},
		{testaudio.Convert(t, ref, "ogg", "-c:a", "flac"), FormatOgg, true},
		{testaudio.Convert(t, ref, "m4a", "-c:a", "aac"), FormatMP4, false},
		{testaudio.Convert(t, ref, "mov", "-c:a", "aac"), FormatMP4, false},
		{testaudio.Convert(t, ref, "webm", "-c:a", "libopus"), FormatMatroska, false},
		{testaudio.Convert(t, ref, "mkv", "-c:a", "libvorbis"), FormatMatroska, false},
		{testaudio.Convert(t, ref, "aac", "-c:a", "aac"), FormatAAC, false},
		{testaudio.Convert(t, ref, "aiff"), FormatAIFF, false},
		{testaudio.Convert(t, ref, "au"), FormatAU, true},
		{testaudio.Convert(t, ref, "ts", "-c:a", "aac"), FormatMPEGTS, true},
		{testaudio.Convert(t, ref, "flv", "-c:a", "aac"), FormatFLV, true},
		{testaudio.Convert(t, ref, "wma", "-c:a", "wmav2"), FormatASF, true},
		{testaudio.Convert(t, ref, "caf"), FormatCAF, true},
		{testaudio.Convert(t, ref, "ac3", "-c:a", "ac3"), FormatAC3, true},
		{testaudio.Convert(t, ref, "mp2", "-c:a", "mp2"), FormatMP3, true},
	} {
		if got := Sniff(prefix(t, c.path, sniffLen)); got != c.want {
			t.Errorf("Sniff(%s) = %q, want %q", filepath.Ext(c.path), got, c.want)
		}
		if !c.decode {
			continue
		}
		pcm, err := (&Decoder{}).Decode(context.Background(), c.path, 16000, false)
		if err != nil {
			t.Errorf("Decode(%s): %v", filepath.Ext(c.path), err)
		} else if d := pcm.Duration() - 3*time.Second; d < -3*time.Second || d > 5*time.Second {
			t.Errorf("Decode(%s): %v long", filepath.Ext(c.path), pcm.Duration())
		}
	}
	for _, s := range []string{"", "x", "hello world", "\xff\xfb", "RIFF\x00\x00\x00\x00WAVX"} {
		if got := Sniff([]byte(s)); got != FormatUnknown {
			t.Errorf("Sniff(%q) = %q", s, got)
		}
	}
	seen := map[Format]bool{}
	for _, f := range Formats() {
		if f == FormatUnknown || seen[f] {
			t.Errorf("Formats() has %q twice or empty", f)
		}
		seen[f] = true
	}
}

func TestWriteWAVRoundTrip(t *testing.T) {
	pcm := &transcribe.PCM{SampleRate: 22050, Channels: [][]int16{make([]int16, 5000), make([]int16, 5000)}}
	for i := range 5000 {
		pcm.Channels[0][i] = int16(i*13 - 32768)
		pcm.Channels[1][i] = int16(-i * 7)
	}
	var sb strings.Builder
	if err := WriteWAV(&sb, pcm); err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, "rt.wav", []byte(sb.String()))
	got := mustDecode(t, pureGo, p, 22050, true)
	for c := range pcm.Channels {
		for i := range pcm.Channels[c] {
			if got.Channels[c][i] != pcm.Channels[c][i] {
				t.Fatalf("channel %d sample %d = %d, want %d", c, i, got.Channels[c][i], pcm.Channels[c][i])
			}
		}
	}
	// go-audio/wav reads it too.
	f, _ := os.Open(p)
	defer f.Close()
	dec := wav.NewDecoder(f)
	buf, err := dec.FullPCMBuffer()
	if err != nil || dec.NumChans != 2 || dec.SampleRate != 22050 || len(buf.Data) != 10000 || buf.Data[2] != int(pcm.Channels[0][1]) {
		t.Fatalf("go-audio/wav reads %d ch %d Hz %d samples, err %v", dec.NumChans, dec.SampleRate, len(buf.Data), err)
	}
	for _, bad := range []*transcribe.PCM{nil, {SampleRate: 16000}, {SampleRate: 0, Channels: [][]int16{{1}}}, {SampleRate: 16000, Channels: [][]int16{{1}, {1, 2}}}} {
		if err := WriteWAV(&sb, bad); err == nil {
			t.Errorf("WriteWAV(%+v) succeeded", bad)
		}
	}
}

func TestEncodeMP3(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	pcm := mustDecode(t, pureGo, ref, 16000, false)
	var sb strings.Builder
	if err := encodeMP3(context.Background(), pcm, &sb); err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, "enc.mp3", []byte(sb.String()))
	if f := Sniff([]byte(sb.String())); f != FormatMP3 {
		t.Fatalf("encoded file sniffs as %q", f)
	}
	got := mustDecode(t, pureGo, p, 16000, false)
	if d := got.Duration() - pcm.Duration(); d < -5*time.Millisecond || d > 5*time.Millisecond {
		t.Errorf("MP3 round trip: %v, original %v", got.Duration(), pcm.Duration())
	}
	r, lag := bestCorrelation(envelope(pcm.Channels[0], 16000), envelope(got.Channels[0], 16000), 5)
	if r < 0.95 || lag != 0 {
		t.Errorf("MP3 round trip envelope correlation %.3f at lag %d", r, lag)
	}
	t.Logf("MP3 64 kbit/s: %d bytes for %v, correlation %.4f", sb.Len(), pcm.Duration(), r)

	err := (&MP3Encoder{FFmpegPath: "/nonexistent/ffmpeg"}).Encode(context.Background(), pcm, &sb)
	if !errors.Is(err, transcribe.ErrUnavailable) || !strings.Contains(err.Error(), "ffmpeg") {
		t.Errorf("missing ffmpeg: %v", err)
	}
	bad := []*transcribe.PCM{nil, {SampleRate: 16000}, {SampleRate: 17000, Channels: [][]int16{{1}}}, {SampleRate: 16000, Channels: [][]int16{{1}, {1}, {1}}}}
	for _, b := range bad {
		if err := encodeMP3(context.Background(), b, &sb); err == nil {
			t.Errorf("encodeMP3(%v) succeeded", b)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := encodeMP3(ctx, pcm, &sb); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled encodeMP3: %v", err)
	}
}

func runCmd(name string, args ...string) ([]byte, error) {
	return osexec.Command(name, args...).CombinedOutput()
}
