package media

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// Defaults for Config.
const (
	DefaultMaxDuration = 12 * time.Hour
	DefaultMaxChannels = 32
)

// Rates Decode accepts and that sources may have.
const (
	MinSampleRate = 1000
	MaxSampleRate = 768000
)

// Config configures a Decoder. The zero value is ready to use.
type Config struct {
	// FFmpegPath is the ffmpeg program used for formats other than WAV,
	// MP3, FLAC and Ogg Vorbis. Default: "ffmpeg" looked up on $PATH when
	// needed (so installing ffmpeg later needs no restart).
	FFmpegPath string
	// DisableFFmpeg never runs ffmpeg: only the pure-Go formats decode.
	// Default false.
	DisableFFmpeg bool
	// PureGoMP3 decodes MP3 with go-mp3 even when ffmpeg is installed.
	// Default false: MP3 goes to ffmpeg when it is there (go-mp3 costs
	// about twice ffmpeg's CPU on a 44.1 kHz stereo file, BenchmarkDecode),
	// and to go-mp3 when it is not or when ffmpeg fails on the file.
	PureGoMP3 bool
	// DisableFallback stops retrying with ffmpeg when a pure-Go decoder
	// rejects a file (an MPEG 2.5 MP3, an ADPCM WAV, corrupt frames that
	// ffmpeg skips). Default false: fall back.
	DisableFallback bool
	// MaxDuration stops decoding media longer than this with a MediaError,
	// bounding memory (the PCM is held in memory: 16 kHz mono is 115 MB an
	// hour). Default DefaultMaxDuration (12 h).
	MaxDuration time.Duration
	// MaxChannels rejects media with more channels when keepChannels is
	// true. Default DefaultMaxChannels (32).
	MaxChannels int
	// Logger receives, at level Warn, the details of media that failed to
	// decode (ffmpeg's message, the decoder library's error, the file's
	// path), which the MediaError's reason leaves out. It is called with
	// the Decode call's context, so a handler can add the request's id.
	// Default slog.Default().
	Logger *slog.Logger
}

func (c *Config) validate() error {
	switch {
	case c.MaxDuration < 0:
		return fmt.Errorf("media: Config.MaxDuration %v is negative", c.MaxDuration)
	case c.MaxChannels < 0:
		return fmt.Errorf("media: Config.MaxChannels %d is negative", c.MaxChannels)
	}
	return nil
}

// Decoder is the default transcribe.Decoder. The zero value decodes with
// default settings. Safe for concurrent use.
type Decoder struct {
	cfg Config
}

var _ transcribe.Decoder = (*Decoder)(nil)

// NewDecoder returns a Decoder with the given configuration, or an error
// naming an invalid field.
func NewDecoder(cfg Config) (*Decoder, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Decoder{cfg: cfg}, nil
}

func (d *Decoder) maxDuration() time.Duration {
	if d.cfg.MaxDuration > 0 {
		return d.cfg.MaxDuration
	}
	return DefaultMaxDuration
}

func (d *Decoder) logger() *slog.Logger {
	if d.cfg.Logger != nil {
		return d.cfg.Logger
	}
	return slog.Default()
}

func (d *Decoder) maxChannels() int {
	if d.cfg.MaxChannels > 0 {
		return d.cfg.MaxChannels
	}
	return DefaultMaxChannels
}

func mediaErr(format string, args ...any) error {
	return &transcribe.MediaError{Reason: fmt.Sprintf(format, args...)}
}

// Decode reads the media file at path and returns its audio as 16-bit PCM
// at sampleRate, mixed down to one channel unless keepChannels.
//
// The format is found from the file's content, never its name. WAV, MP3,
// FLAC and Ogg Vorbis are decoded in Go; other formats (mp4/m4a/mov,
// webm/mkv, AAC, Opus, AIFF, AMR, WMA, ...) through ffmpeg. Bad media gives
// a *transcribe.MediaError whose Reason says what is wrong: the file is
// empty, truncated, corrupt, not media, in a format that needs a missing
// ffmpeg (that error also wraps transcribe.ErrUnavailable), longer than
// MaxDuration, or holds no audio samples. A file cut short after its
// header yields the audio it holds, as media players do. Decode returns
// ctx.Err() when ctx ends, and other errors for problems that are not the
// media's fault (a missing path, a bad sampleRate).
func (d *Decoder) Decode(ctx context.Context, path string, sampleRate int, keepChannels bool) (*transcribe.PCM, error) {
	var m memSink
	format, err := d.DecodeTo(ctx, path, sampleRate, keepChannels, &m)
	if err != nil {
		return nil, err
	}
	return &transcribe.PCM{SampleRate: sampleRate, Channels: m.out, Format: format}, nil
}

// memSink collects decoded audio in memory (Decode).
type memSink struct{ out [][]int16 }

func (m *memSink) Start(channels, rate int, declared int64) error {
	m.out = make([][]int16, channels)
	return nil
}

func (m *memSink) Write(c int, x []int16) error {
	m.out[c] = append(growInt16(m.out[c], len(x)), x...)
	return nil
}

var _ transcribe.StreamDecoder = (*Decoder)(nil)

// DecodeTo decodes like Decode but hands the audio to sink block by block
// as it goes (transcribe.StreamDecoder), so memory does not grow with the
// media's length; it returns the format found. Before the first sample the
// sink learns the channel count, the rate and the length the container
// declares (WAV and FLAC headers; 0 otherwise), so a sink can refuse media
// that is too long before any decoding work.
func (d *Decoder) DecodeTo(ctx context.Context, path string, sampleRate int, keepChannels bool, sink transcribe.Sink) (string, error) {
	var format Format
	err := d.decodeTo(ctx, path, sampleRate, keepChannels, sink, &format)
	if err != nil {
		return "", err
	}
	if format == FormatUnknown {
		return "", nil
	}
	return string(format), nil
}

func (d *Decoder) decodeTo(ctx context.Context, path string, sampleRate int, keepChannels bool, sink transcribe.Sink, sniffed *Format) error {
	if sampleRate < MinSampleRate || sampleRate > MaxSampleRate {
		return fmt.Errorf("media: Decode: sample rate %d is outside %d..%d", sampleRate, MinSampleRate, MaxSampleRate)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("media: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("media: %w", err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("media: %s is not a regular file", path)
	}
	if st.Size() == 0 {
		return mediaErr("the media file is empty")
	}
	tr := &eofTracker{r: f}
	br := bufio.NewReaderSize(tr, 64<<10)
	// Skip ID3v2 tags (often large, with cover art) before sniffing.
	var tagged int64
	for {
		b, _ := br.Peek(10)
		n, ok := id3Len(b)
		if !ok {
			break
		}
		if err := discard(br, int64(n)); err != nil {
			return mediaErr("the file holds only an ID3 tag and no audio")
		}
		tagged += int64(n)
	}
	if tagged > 0 { // zero padding after the tag
		for i := 0; i < 4096; i++ {
			if b, err := br.Peek(1); err != nil || b[0] != 0 {
				break
			}
			br.Discard(1)
		}
	}
	head, _ := br.Peek(sniffLen)
	if len(head) == 0 {
		return mediaErr("the file holds only an ID3 tag and no audio")
	}
	format := Sniff(head)
	*sniffed = format
	if format == FormatUnknown {
		if what := describeReference(head); what != "" {
			return mediaErr("unsupported format: the file is %s; playlists and other files that point to other files are not accepted: submit the media file itself", what)
		}
		if what := describeNonMedia(head); what != "" && tagged == 0 {
			return mediaErr("unsupported format: the file is %s, not audio or video", what)
		}
	}
	if format == FormatMP3 && !d.cfg.PureGoMP3 {
		if _, err := d.ffmpegPath(); err == nil {
			ferr := d.decodeFFmpeg(ctx, path, format, sampleRate, keepChannels, sink)
			if ferr == nil || ctx.Err() != nil {
				return ferr
			}
			// go-mp3 tries next; its Start tells the sink to drop what
			// ffmpeg gave it, and its reason is the one reported.
		}
	}
	if format.PureGo() {
		perr := d.decodeGo(ctx, br, tr, format, sampleRate, keepChannels, sink)
		if perr == nil {
			return nil
		}
		var need *needFFmpegError
		var corrupt *corruptError
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// ffmpeg starts over: its Start tells the sink to drop what the
		// pure-Go decoder gave it.
		retry := errors.As(perr, &need) || (errors.As(perr, &corrupt) && !d.cfg.DisableFallback)
		if !retry {
			return d.toMediaError(ctx, path, format, perr)
		}
		if _, err := d.ffmpegPath(); err != nil {
			if need != nil {
				return d.ffmpegMissing(need.what)
			}
			return d.toMediaError(ctx, path, format, perr)
		}
		ferr := d.decodeFFmpeg(ctx, path, format, sampleRate, keepChannels, sink)
		if ferr == nil {
			return nil
		}
		var me *transcribe.MediaError
		if need != nil || !errors.As(ferr, &me) {
			return ferr
		}
		return d.toMediaError(ctx, path, format, perr) // the pure-Go reason is more specific
	}
	if _, err := d.ffmpegPath(); err != nil {
		if format == FormatUnknown {
			return d.ffmpegMissing("this file is not WAV, MP3, FLAC or Ogg Vorbis; other formats")
		}
		return d.ffmpegMissing(formatName(format) + " media")
	}
	return d.decodeFFmpeg(ctx, path, format, sampleRate, keepChannels, sink)
}

// toMediaError makes a pure-Go decoder's error a *transcribe.MediaError.
// Corrupt data found by a third-party decoder (MP3, FLAC, Vorbis) or a
// decoder's panic gets a fixed reason; the library's message is logged,
// not shown. The WAV parser's own messages are shown.
func (d *Decoder) toMediaError(ctx context.Context, path string, format Format, err error) error {
	var me *transcribe.MediaError
	if errors.As(err, &me) {
		return err
	}
	var corrupt *corruptError
	if errors.As(err, &corrupt) && corrupt.format == FormatWAV && !errors.Is(err, errDecoderFailure) {
		// Earshot's own WAV parser: its messages name what is wrong.
		return &transcribe.MediaError{Reason: err.Error()}
	}
	if errors.As(err, &corrupt) {
		me = &transcribe.MediaError{Reason: "the file could not be decoded as " + formatName(corrupt.format) + ": it is damaged or not a media file"}
		d.logger().WarnContext(ctx, "media: could not decode a file", "file", path, "format", string(format), "err", err.Error(), "reason", me.Reason)
		return me
	}
	return &transcribe.MediaError{Reason: err.Error()}
}

// decodeGo decodes a pure-Go format from r.
func (d *Decoder) decodeGo(ctx context.Context, r *bufio.Reader, tr *eofTracker, format Format, rate int, keep bool, sink transcribe.Sink) (err error) {
	var src source
	err = protect(format, func() error {
		var e error
		switch format {
		case FormatWAV:
			src, e = newWAVSource(r)
		case FormatMP3:
			src, e = newMP3Source(r)
		case FormatFLAC:
			src, e = newFLACSource(r)
		case FormatVorbis:
			src, e = newVorbisSource(r)
		}
		return e
	})
	if err != nil {
		var need *needFFmpegError
		var corrupt *corruptError
		switch {
		case errors.As(err, &need), errors.As(err, &corrupt):
			return err
		case errors.Is(err, errTruncated):
			return mediaErr("the %s file is truncated: %v", formatName(format), err)
		}
		return &corruptError{format, err}
	}
	return d.pump(ctx, format, src, tr, rate, keep, sink)
}

// eofTracker records whether its reader has reached the end of the file, so
// that a decoder failing there is known to face a truncated file rather than
// corrupt data.
type eofTracker struct {
	r   io.Reader
	eof bool
}

func (t *eofTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err == io.EOF {
		t.eof = true
	}
	return n, err
}

// protect runs f, turning a panic inside a third-party decoder into a
// corruptError.
func protect(format Format, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &corruptError{format, fmt.Errorf("%w: %v", errDecoderFailure, p)}
		}
	}()
	return f()
}

func (d *Decoder) decodeFFmpeg(ctx context.Context, path string, format Format, rate int, keep bool, sink transcribe.Sink) error {
	src, err := d.startFFmpeg(ctx, path, format, rate, !keep)
	if err != nil {
		return err
	}
	defer src.close()
	err = d.pump(ctx, format, src, nil, rate, keep, sink)
	var corrupt *corruptError
	if errors.As(err, &corrupt) { // ffmpeg's output made no sense
		return d.toMediaError(ctx, path, format, err)
	}
	return err
}

// declarer is implemented by sources whose container declares their
// length (in frames at their native rate).
type declarer interface{ declared() int64 }

// pump reads src to the end, mixing down and resampling, and writes the
// result to sink block by block.
func (d *Decoder) pump(ctx context.Context, format Format, src source, tr *eofTracker, rate int, keep bool, sink transcribe.Sink) error {
	inRate, nc := src.format()
	if inRate < MinSampleRate || inRate > MaxSampleRate {
		return mediaErr("the %s file has an unsupported sample rate of %d Hz", formatName(format), inRate)
	}
	if nc < 1 {
		return mediaErr("the %s file has no channels", formatName(format))
	}
	if keep && nc > d.maxChannels() {
		return mediaErr("the media has %d channels; at most %d are supported", nc, d.maxChannels())
	}
	outCh := nc
	if !keep {
		outCh = 1
	}
	maxFrames := int64(d.maxDuration().Seconds() * float64(rate))
	var declared int64
	if dl, ok := src.(declarer); ok {
		if n := dl.declared(); n > 0 {
			declared = int64(float64(n) * float64(rate) / float64(inRate))
		}
	}
	if declared > maxFrames {
		return mediaErr("the media is longer than the %s limit (its header says %s)", d.maxDuration(), (time.Duration(declared) * time.Second / time.Duration(rate)).Round(time.Second))
	}
	if err := sink.Start(outCh, rate, declared); err != nil {
		return err
	}
	var rs []*Resampler // made at the first block: no cost for empty media
	var frames int64
	var mix, tmp []float32
	var conv []int16
	emit := func(c int, x []float32) error {
		conv = appendInt16(conv[:0], x)
		if c == 0 {
			frames += int64(len(conv))
		}
		return sink.Write(c, conv)
	}
	for blocks := 0; ; blocks++ {
		if blocks%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var blk [][]float32
		err := protect(format, func() error {
			var e error
			blk, e = src.next()
			return e
		})
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, errTruncated) || (tr != nil && tr.eof) {
				break // a truncated file: keep what was decoded
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if len(blk) != nc {
			return &corruptError{format, fmt.Errorf("decoder returned %d channels, want %d", len(blk), nc)}
		}
		chans := blk
		if !keep && nc > 1 {
			n := len(blk[0])
			if cap(mix) < n {
				mix = make([]float32, n)
			}
			mix = mix[:n]
			inv := 1 / float32(nc)
			for i := range mix {
				var s float32
				for c := range blk {
					s += blk[c][i]
				}
				mix[i] = s * inv
			}
			chans = [][]float32{mix}
		}
		if rs == nil && inRate != rate {
			rs = make([]*Resampler, outCh)
			for c := range rs {
				r, err := NewResampler(inRate, rate)
				if err != nil {
					return err
				}
				rs[c] = r
			}
		}
		for c, x := range chans {
			if rs != nil {
				tmp = rs[c].Process(tmp[:0], x)
				x = tmp
			}
			if err := emit(c, x); err != nil {
				return err
			}
		}
		if frames > maxFrames {
			return mediaErr("the media is longer than the %s limit", d.maxDuration())
		}
	}
	for c := range rs {
		tmp = rs[c].Flush(tmp[:0])
		if err := emit(c, tmp); err != nil {
			return err
		}
	}
	if frames > maxFrames {
		return mediaErr("the media is longer than the %s limit", d.maxDuration())
	}
	if frames == 0 {
		return mediaErr("the media contains no audio samples")
	}
	return nil
}

// appendInt16 converts samples in [-1, 1] to 16 bits with rounding and
// clipping.
func appendInt16(dst []int16, x []float32) []int16 {
	dst = growInt16(dst, len(x))
	for _, v := range x {
		s := math.Round(float64(v) * 32768)
		if s > 32767 {
			s = 32767
		} else if s < -32768 {
			s = -32768
		} else if s != s {
			s = 0
		}
		dst = append(dst, int16(s))
	}
	return dst
}

func growInt16(s []int16, n int) []int16 {
	if cap(s)-len(s) >= n {
		return s
	}
	nc := max(2*cap(s), len(s)+n, 16384)
	t := make([]int16, len(s), nc)
	copy(t, s)
	return t
}
