package media

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/earshot-dev/earshot/internal/childenv"
	"github.com/earshot-dev/earshot/transcribe"
)

// unavailableError is a *transcribe.MediaError that also wraps
// transcribe.ErrUnavailable: the media needs a program that is missing.
// errors.As finds the MediaError (the transcript fails with its reason) and
// errors.Is(err, transcribe.ErrUnavailable) tells operators what to fix.
type unavailableError struct{ *transcribe.MediaError }

func (e *unavailableError) Unwrap() []error {
	return []error{e.MediaError, transcribe.ErrUnavailable}
}

func (d *Decoder) ffmpegMissing(what string) error {
	if d.cfg.DisableFFmpeg {
		return &unavailableError{&transcribe.MediaError{Reason: what +
			" can only be decoded with ffmpeg, which is disabled on this server: submit WAV, MP3, FLAC or Ogg Vorbis"}}
	}
	return &unavailableError{&transcribe.MediaError{Reason: what +
		" can only be decoded with ffmpeg, which is not installed on this server: install ffmpeg (Debian/Ubuntu: apt-get install ffmpeg), or submit WAV, MP3, FLAC or Ogg Vorbis"}}
}

// ffmpegPath resolves the configured ffmpeg program.
func (d *Decoder) ffmpegPath() (string, error) {
	if d.cfg.DisableFFmpeg {
		return "", exec.ErrNotFound
	}
	name := d.cfg.FFmpegPath
	if name == "" {
		name = "ffmpeg"
	}
	return exec.LookPath(name)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// demuxers maps each sniffed Format to the ffmpeg demuxer forced for it
// with -f, so that ffmpeg never probes the file again: a probe would skip
// an ID3 tag and find whatever lies behind it, an HLS playlist included.
var demuxers = map[Format]string{
	FormatWAV: "wav", FormatMP3: "mp3", FormatFLAC: "flac",
	FormatVorbis: "ogg", FormatOpus: "ogg", FormatOgg: "ogg",
	FormatMP4: "mov", FormatMatroska: "matroska", FormatAAC: "aac",
	FormatAIFF: "aiff", FormatCAF: "caf", FormatAMR: "amr", FormatASF: "asf",
	FormatFLV: "flv", FormatAVI: "avi", FormatMPEGTS: "mpegts",
	FormatMPEGPS: "mpeg", FormatAC3: "ac3", FormatAU: "au",
}

// probeDemuxers is ffmpeg's -format_whitelist for media Sniff does not
// recognise (an MP3 with junk before its first frame, WavPack, ...): ffmpeg
// may probe, but only among demuxers that read the one file they are given
// and never open another. hls, concat, dash, image2, the playlist and
// subtitle demuxers, mov (whose external references are only kept off by
// the -enable_drefs 0 given when it is forced) and everything else are
// not on it.
const probeDemuxers = "wav,w64,mp3,flac,ogg,matroska,aac,aiff,caf,amr,asf,flv,avi,mpegts,mpeg,ac3,eac3,dts,au,wv,ape"

// ffmpegArgs returns ffmpeg's arguments to decode the file at path, sniffed
// as format, to 16-bit WAV at rate on stdout.
func ffmpegArgs(path string, format Format, rate int, mono bool) []string {
	// "file:" stops ffmpeg reading the path as a URL or protocol spec and
	// the protocol whitelist keeps every open to plain files; the forced
	// demuxer and the demuxer whitelist keep those opens to the upload
	// itself (no playlist, concat script or reference movie is ever
	// parsed).
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error",
		"-protocol_whitelist", "file"}
	if dm, ok := demuxers[format]; ok {
		args = append(args, "-format_whitelist", dm, "-f", dm)
		if dm == "mov" {
			args = append(args, "-enable_drefs", "0")
		}
	} else {
		args = append(args, "-format_whitelist", probeDemuxers)
	}
	args = append(args, "-i", "file:"+path,
		"-map", "0:a:0", "-vn", "-sn", "-dn",
		"-ar", strconv.Itoa(rate))
	if mono {
		args = append(args, "-ac", "1")
	}
	return append(args, "-c:a", "pcm_s16le", "-f", "wav", "pipe:1")
}

// ffmpegSource runs ffmpeg to decode any format it knows into 16-bit WAV at
// the target rate on a pipe, parsed by wavSource.
type ffmpegSource struct {
	*wavSource
	d       *Decoder
	path    string
	sniffed Format
	cmd     *exec.Cmd
	stdout  io.ReadCloser
	stderr  *tailBuffer
	ctx     context.Context
	waited  bool
	err     error
}

func (d *Decoder) startFFmpeg(ctx context.Context, path string, format Format, rate int, mono bool) (*ffmpegSource, error) {
	bin, err := d.ffmpegPath()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, ffmpegArgs(path, format, rate, mono)...)
	cmd.Env = childenv.Minimal()
	s := &ffmpegSource{d: d, path: path, sniffed: format, cmd: cmd, stderr: &tailBuffer{max: 4096}, ctx: ctx}
	cmd.Stderr = s.stderr
	s.stdout, err = cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("media: starting ffmpeg: %w", err)
	}
	s.wavSource, err = newWAVSource(bufio.NewReaderSize(s.stdout, 64<<10))
	if err != nil {
		return nil, s.fail(err)
	}
	return s, nil
}

func (s *ffmpegSource) next() ([][]float32, error) {
	b, err := s.wavSource.next()
	if err == nil {
		return b, nil
	}
	if err == io.EOF || errors.Is(err, errTruncated) {
		if werr := s.wait(); werr != nil {
			return nil, werr
		}
		return nil, io.EOF
	}
	return nil, s.fail(err)
}

// fail stops ffmpeg and returns its error if it has one, else err.
func (s *ffmpegSource) fail(err error) error {
	if werr := s.wait(); werr != nil {
		return werr
	}
	return err
}

// wait reaps ffmpeg and turns a failure into a MediaError with a fixed
// reason; ffmpeg's own message, which names the file's path, is logged.
func (s *ffmpegSource) wait() error {
	if s.waited {
		return s.err
	}
	s.waited = true
	io.Copy(io.Discard, s.stdout)
	err := s.cmd.Wait()
	if err == nil {
		return nil
	}
	if cerr := s.ctx.Err(); cerr != nil {
		s.err = cerr
		return cerr
	}
	stderr := strings.TrimSpace(s.stderr.String())
	s.err = &transcribe.MediaError{Reason: ffmpegReason(s.sniffed, stderr)}
	s.d.logger().WarnContext(s.ctx, "media: ffmpeg could not decode a file",
		"file", s.path, "format", string(s.sniffed), "exit", err.Error(), "ffmpeg", stderr, "reason", s.err.Error())
	return s.err
}

// close kills ffmpeg if it is still running.
func (s *ffmpegSource) close() {
	if !s.waited {
		s.cmd.Process.Kill()
		s.stdout.Close()
		s.cmd.Wait()
		s.waited = true
	}
}

// ffmpegReason turns ffmpeg's error output for media sniffed as format
// into a transcript error reason. The reason is one of a few fixed
// sentences: ffmpeg's messages name the file's path (which would tell a
// client where the server keeps its data) and its internals.
func ffmpegReason(format Format, stderr string) string {
	switch {
	case strings.Contains(stderr, "matches no streams"), strings.Contains(stderr, "does not contain any stream"):
		return "the media has no audio track"
	case format == FormatUnknown:
		return unsupportedReason
	}
	return "the file could not be decoded as " + formatName(format) + ": it is damaged or not a media file"
}

// unsupportedReason is the reason for media in no format the server
// decodes.
const unsupportedReason = "unsupported format: the file is not audio or video in a format this server decodes " +
	"(WAV, MP3, FLAC, Ogg, Opus, MP4/M4A/MOV, WebM/Matroska, AAC, AIFF, CAF, AMR, WMA, FLV, AVI, MPEG-TS/PS, AC-3, AU), " +
	"or it is damaged"

// MP3Encoder encodes PCM to MP3 with ffmpeg's libmp3lame. The zero value
// is ready to use. Safe for concurrent use.
type MP3Encoder struct {
	// FFmpegPath is the ffmpeg program. Default: "ffmpeg" on $PATH.
	FFmpegPath string
	// Bitrate in kbit/s. Default: 64 (transparent enough for speech).
	Bitrate int
	// TempDir holds the intermediate file (ffmpeg writes the Xing/LAME
	// header with the length and gapless information only to a seekable
	// file). Default: os.TempDir().
	TempDir string
}

// encodeMP3 encodes pcm as MP3 to w with the default MP3Encoder.
func encodeMP3(ctx context.Context, pcm *transcribe.PCM, w io.Writer) error {
	return (&MP3Encoder{}).Encode(ctx, pcm, w)
}

// Encode writes pcm to w as MP3. It returns an error wrapping
// transcribe.ErrUnavailable when ffmpeg is not installed, the error from
// checkPCM for malformed PCM, and ctx.Err() when cancelled.
func (e *MP3Encoder) Encode(ctx context.Context, pcm *transcribe.PCM, w io.Writer) error {
	if err := checkPCM(pcm); err != nil {
		return err
	}
	if len(pcm.Channels) > 2 {
		return fmt.Errorf("media: MP3 holds at most 2 channels; PCM has %d", len(pcm.Channels))
	}
	switch pcm.SampleRate {
	case 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000:
	default:
		return fmt.Errorf("media: MP3 cannot hold %d Hz audio (use 8, 11.025, 12, 16, 22.05, 24, 32, 44.1 or 48 kHz)", pcm.SampleRate)
	}
	if e.Bitrate < 0 || e.Bitrate > 320 {
		return fmt.Errorf("media: MP3Encoder.Bitrate %d is outside 8..320 kbit/s", e.Bitrate)
	}
	name := e.FFmpegPath
	if name == "" {
		name = "ffmpeg"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("media: encoding MP3 needs ffmpeg, which is not installed (apt-get install ffmpeg): %w", transcribe.ErrUnavailable)
	}
	bitrate := e.Bitrate
	if bitrate == 0 {
		bitrate = 64
	}
	tmp, err := os.CreateTemp(e.TempDir, "earshot-*.mp3")
	if err != nil {
		return fmt.Errorf("media: encodeMP3: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.CommandContext(ctx, bin, "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		"-protocol_whitelist", "pipe",
		"-f", "s16le", "-ar", strconv.Itoa(pcm.SampleRate), "-ac", strconv.Itoa(len(pcm.Channels)), "-i", "pipe:0",
		"-c:a", "libmp3lame", "-b:a", strconv.Itoa(bitrate)+"k", "-f", "mp3", tmp.Name())
	cmd.Env = childenv.Minimal()
	stderr := &tailBuffer{max: 4096}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("media: starting ffmpeg: %w", err)
	}
	werr := writeInterleaved(stdin, pcm)
	stdin.Close()
	err = cmd.Wait()
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("media: ffmpeg MP3 encoding failed: %v: %s", err, bytes.TrimSpace([]byte(stderr.String())))
	}
	if werr != nil {
		return fmt.Errorf("media: feeding ffmpeg: %w", werr)
	}
	f, err := os.Open(tmp.Name())
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
