package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// secretAudio is media on the server's disk that no upload may reach: a
// real MP3, an MPEG-TS segment and a WAV of speech, outside the upload's
// directory.
func secretAudio(t *testing.T) (mp3, ts, wav string) {
	t.Helper()
	testaudio.Need(t, "ffmpeg", "flite")
	wav = testaudio.Speech(t, "slt", "the secret words of another project")
	dir := t.TempDir()
	copyTo := func(src, name string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		return writeFileIn(t, dir, name, b)
	}
	return copyTo(testaudio.Convert(t, wav, "mp3", "-c:a", "libmp3lame"), "secret.mp3"),
		copyTo(testaudio.Convert(t, wav, "ts", "-c:a", "aac"), "secret.ts"),
		copyTo(wav, "secret.wav")
}

func writeFileIn(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// id3 returns an ID3v2.4 tag of n bytes (header included) holding padding.
func id3(n int) []byte {
	size := n - 10
	return append([]byte{'I', 'D', '3', 4, 0, 0,
		byte(size >> 21 & 0x7f), byte(size >> 14 & 0x7f), byte(size >> 7 & 0x7f), byte(size & 0x7f)},
		make([]byte, size)...)
}

// referenceFiles are uploads that name other files: playlists, manifests,
// scripts, with and without a leading ID3 tag.
func referenceFiles(mp3, ts, wav string) map[string][]byte {
	hls := fmt.Sprintf("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:3.0,\n%s\n#EXT-X-ENDLIST\n", mp3)
	m := map[string][]byte{
		"hls-mp3":             []byte(hls),
		"hls-ts":              []byte(fmt.Sprintf("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:3.0,\n%s\n#EXTINF:3.0,\nfile:%s\n#EXT-X-ENDLIST\n", ts, ts)),
		"hls-bom-crlf":        []byte("\xef\xbb\xbf" + strings.ReplaceAll(hls, "\n", "\r\n")),
		"id3-hls":             append(id3(64), hls...),
		"big-id3-hls":         append(id3(9000), hls...), // larger than what Sniff looks at
		"id3-padding-hls":     append(append(id3(64), make([]byte, 100)...), hls...),
		"m3u-no-header":       []byte(mp3 + "\n" + wav + "\n"),
		"m3u-extinf":          []byte("#EXTINF:3,secret\n" + mp3 + "\n"),
		"ffconcat":            []byte(fmt.Sprintf("ffconcat version 1.0\nfile '%s'\nfile '%s'\n", wav, mp3)),
		"pls":                 []byte(fmt.Sprintf("[playlist]\nFile1=%s\nNumberOfEntries=1\n", mp3)),
		"dash":                []byte(fmt.Sprintf(`<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period><AdaptationSet><Representation><BaseURL>file://%s</BaseURL></Representation></AdaptationSet></Period></MPD>`, mp3)),
		"xspf":                []byte(fmt.Sprintf(`<?xml version="1.0"?><playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList><track><location>file://%s</location></track></trackList></playlist>`, mp3)),
		"asx":                 []byte(fmt.Sprintf(`<asx version="3.0"><entry><ref href="%s"/></entry></asx>`, mp3)),
		"smil":                []byte(fmt.Sprintf(`<smil><body><audio src="%s"/></body></smil>`, mp3)),
		"sdp":                 []byte("v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=x\r\nc=IN IP4 127.0.0.1\r\nm=audio 5004 RTP/AVP 0\r\n"),
		"concat-protocol-m3u": []byte("concat:" + wav + "|" + wav + "\n"),
	}
	return m
}

// TestRefusesReferences: an upload that points to other files is refused
// with a clear reason, before any decoder runs, whatever follows an ID3
// tag; the files it names are never decoded.
func TestRefusesReferences(t *testing.T) {
	t.Parallel()
	mp3, ts, wav := secretAudio(t)
	dir := t.TempDir()
	for name, data := range referenceFiles(mp3, ts, wav) {
		t.Run(name, func(t *testing.T) {
			p := writeFileIn(t, dir, name, data)
			for _, d := range []*Decoder{{}, pureGo} {
				pcm, err := d.Decode(context.Background(), p, 16000, false)
				if err == nil {
					t.Fatalf("ffmpeg=%v: decoded %v of audio from a file that names %s", d != pureGo, pcm.Duration(), mp3)
				}
				wantMediaError(t, err, "playlists and other files that point to other files are not accepted")
				if strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), "/tmp") {
					t.Errorf("the reason holds a path: %v", err)
				}
			}
		})
	}
}

// TestFFmpegNeverFollowsReferences runs ffmpeg itself on playlists, as it
// would be run for the format Sniff could have found (MP3 behind a large
// ID3 tag, MPEG-TS, or nothing): the forced demuxer and the demuxer
// whitelist keep it from opening the files they name, so it fails with a
// fixed reason and no audio.
func TestFFmpegNeverFollowsReferences(t *testing.T) {
	t.Parallel()
	mp3, ts, wav := secretAudio(t)
	dir := t.TempDir()
	refs := referenceFiles(mp3, ts, wav)
	for _, name := range []string{"hls-mp3", "hls-ts", "id3-hls", "big-id3-hls", "ffconcat"} {
		p := writeFileIn(t, dir, name, refs[name])
		for _, f := range []Format{FormatUnknown, FormatMP3, FormatMPEGTS} {
			var m memSink
			err := (&Decoder{}).decodeFFmpeg(context.Background(), p, f, 16000, false, &m)
			if err == nil {
				t.Errorf("%s as %q: ffmpeg decoded %d samples from the files it names", name, f, len(m.out[0]))
				continue
			}
			var me *transcribe.MediaError
			if !errors.As(err, &me) || strings.Contains(me.Reason, dir) || strings.Contains(me.Reason, "file:") {
				t.Errorf("%s as %q: %v", name, f, err)
			}
		}
	}
}

// TestDecodeErrorsHoldNoPath: what a client sees of a failed decode is a
// fixed sentence; ffmpeg's message (which names the file's path) and the
// decoder library's go to the log, with the caller's context.
func TestDecodeErrorsHoldNoPath(t *testing.T) {
	t.Parallel()
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	m4a, err := os.ReadFile(testaudio.Convert(t, ref, "m4a", "-c:a", "aac"))
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 20000)
	for i := range garbage {
		garbage[i] = byte(i*7919 + i*i*31)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, reason, logged string
		data                 []byte
	}{
		{"m4a-cut", "could not be decoded as MP4: it is damaged or not a media file", "moov atom not found", m4a[:300]},
		{"m4a-header-only", "could not be decoded as MP4", "", m4a[:40]},
		{"garbage", "unsupported format", "Invalid data", garbage},
		{"ts-garbage", "could not be decoded as MPEGTS|no audio track", "", bytes.Repeat(append([]byte{0x47}, make([]byte, 187)...), 30)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeFileIn(t, dir, c.name, c.data)
			var logs bytes.Buffer
			d := &Decoder{cfg: Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))}}
			_, err := d.Decode(context.Background(), p, 16000, false)
			wantMediaError(t, err, c.reason)
			for _, leak := range []string{dir, "file:", "Invalid", "@ 0x", "moov"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("reason %q holds %q", err, leak)
				}
			}
			if !strings.Contains(logs.String(), p) || !strings.Contains(logs.String(), c.logged) {
				t.Errorf("the log does not hold the path and %q:\n%s", c.logged, logs.String())
			}
		})
	}
}

// countingSink counts the frames a decoder hands over.
type countingSink struct{ frames int64 }

func (c *countingSink) Start(channels, rate int, declared int64) error { c.frames = 0; return nil }
func (c *countingSink) Write(ch int, x []int16) error {
	if ch == 0 {
		c.frames += int64(len(x))
	}
	return nil
}

// TestDurationBoundWhileDecoding: media longer than MaxDuration stops
// decoding as soon as the bound is passed (one block later at most),
// whether its header says how long it is or not, and ffmpeg is stopped.
func TestDurationBoundWhileDecoding(t *testing.T) {
	t.Parallel()
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	long := testaudio.Sox(t, "wav", ref, ref, ref, ref, ref, ref, ref, ref)
	d := &Decoder{cfg: Config{MaxDuration: time.Second}}
	for _, p := range []string{
		testaudio.Convert(t, long, "m4a", "-c:a", "aac"),
		testaudio.Convert(t, long, "ts", "-c:a", "aac"),
		testaudio.Convert(t, long, "mp3", "-c:a", "libmp3lame"),
		testaudio.Convert(t, long, "ogg", "-c:a", "libvorbis"),
	} {
		var c countingSink
		_, err := d.DecodeTo(context.Background(), p, 16000, false, &c)
		wantMediaError(t, err, "longer than the 1s limit")
		if c.frames > 16000+16000/2 {
			t.Errorf("%s: %d frames (%.2f s) decoded before stopping at a 1 s bound", filepath.Ext(p), c.frames, float64(c.frames)/16000)
		}
	}
}

// TestAcceptedFormatsStillDecode covers the containers and codecs the
// other tests do not, each now read with its demuxer forced (AVI, MPEG-PS,
// E-AC-3 sniffed as AC-3, Matroska audio) or probed among the safe
// demuxers (Wave64, WavPack, an MP3 behind junk bytes).
func TestAcceptedFormatsStillDecode(t *testing.T) {
	t.Parallel()
	testaudio.Need(t, "ffmpeg", "sox")
	ref := speech(t)
	want := mustDecode(t, pureGo, ref, 16000, false).Duration()
	mp3, err := os.ReadFile(testaudio.Convert(t, ref, "mp3", "-c:a", "libmp3lame"))
	if err != nil {
		t.Fatal(err)
	}
	junkMP3 := writeFile(t, "junk.mp3", append(bytes.Repeat([]byte{0x55}, 700), mp3...))
	for _, p := range []string{
		testaudio.Convert(t, ref, "avi", "-c:a", "pcm_s16le"),
		testaudio.Convert(t, ref, "mpg", "-c:a", "mp2"),
		testaudio.Convert(t, ref, "eac3", "-c:a", "eac3"),
		testaudio.Convert(t, ref, "mka", "-c:a", "aac"),
		testaudio.Convert(t, ref, "w64"),
		testaudio.Convert(t, ref, "wv"),
		junkMP3,
	} {
		pcm := mustDecode(t, &Decoder{}, p, 16000, false)
		if diff := pcm.Duration() - want; diff < -150*time.Millisecond || diff > 150*time.Millisecond {
			t.Errorf("%s: %v, want %v", filepath.Ext(p), pcm.Duration(), want)
		}
	}
}

// TestFFmpegEnvironment: ffmpeg parses untrusted media, so it runs with a
// minimal environment: none of the server's secrets.
func TestFFmpegEnvironment(t *testing.T) {
	testaudio.Need(t, "ffmpeg", "sox")
	real, err := osexec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dump := filepath.Join(dir, "env")
	wrapper := writeFileIn(t, dir, "ffmpeg", []byte(fmt.Sprintf("#!/bin/sh\nenv >> '%s'\nexec '%s' \"$@\"\n", dump, real)))
	if err := os.Chmod(wrapper, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EARSHOT_API_KEYS", "leaked-key-0123456789:p")
	t.Setenv("EARSHOT_ENCRYPTION_KEY", "leaked-encryption-key")
	ref := speech(t)
	mustDecode(t, &Decoder{cfg: Config{FFmpegPath: wrapper}}, testaudio.Convert(t, ref, "m4a", "-c:a", "aac"), 16000, false)
	pcm := mustDecode(t, pureGo, ref, 16000, false)
	if err := (&MP3Encoder{FFmpegPath: wrapper}).Encode(context.Background(), pcm, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(env, []byte("leaked")) || bytes.Contains(env, []byte("EARSHOT_")) {
		t.Errorf("ffmpeg's environment holds the server's secrets:\n%s", env)
	}
	if n := bytes.Count(env, []byte("LC_ALL=C\n")); n != 2 {
		t.Errorf("LC_ALL=C in %d of 2 runs:\n%s", n, env)
	}
}

// TestDescribeReference: what is taken for a file pointing elsewhere, and
// what is not (ordinary text, media).
func TestDescribeReference(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"#EXTM3U\n":                            "M3U/HLS",
		"\n\n  #extm3u\r\n":                    "M3U/HLS",
		"# my list\n#EXT-X-TARGETDURATION:3\n": "M3U/HLS",
		"/srv/a.mp3\r\n/srv/b.mp3\r\n":         "a playlist",
		"C:\\music\\a.mp3\n":                   "a playlist",
		"https://example.com/a.mp3\n":          "a playlist",
		"subfile,,start,0,end,0,,:/x.wav\n":    "a playlist",
		"ffconcat version 1.0\n":               "concat",
		"[Playlist]\nFile1=x\n":                "PLS",
		"<?xml version='1.0'?>\n<MPD>":         "DASH",
		"<SmoothStreamingMedia>":               "Smooth",
		"hello world\n":                        "",
		"notes: see /etc/x for details\n":      "",
		"/just one line with spaces\n":         "",
		"# comment only\n":                     "",
		"<!DOCTYPE html><html><body>":          "",
		"RIFF\x00\x00\x00\x00WAVE":             "",
		"/a.mp3\x00":                           "",
	} {
		got := describeReference([]byte(in))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("describeReference(%q) = %q, want %q", in, got, want)
		}
	}
}
