package pii

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strconv"

	"github.com/earshot-dev/earshot/transcribe"
)

// ToneConfig says how redacted audio spans are replaced. The zero value
// means the defaults.
type ToneConfig struct {
	// FrequencyHz of the replacement tone. Default 1000.
	FrequencyHz float64
	// LevelDBFS is the tone's peak level in dB relative to full scale; it
	// must be negative. Default -12.
	LevelDBFS float64
	// Pad widens every span on both sides, to cover the edges of words
	// that recognizer timings cut short. Default 40 ms; negative: none.
	PadMS int64
	// FadeMS ramps the tone in and out inside the span to avoid clicks.
	// Default 5 ms; negative: none.
	FadeMS int64
}

func (c ToneConfig) withDefaults() ToneConfig {
	if c.FrequencyHz == 0 {
		c.FrequencyHz = 1000
	}
	if c.LevelDBFS == 0 {
		c.LevelDBFS = -12
	}
	if c.PadMS == 0 {
		c.PadMS = 40
	}
	if c.FadeMS == 0 {
		c.FadeMS = 5
	}
	return c
}

// Validate names the first field that cannot work.
func (c ToneConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case c.FrequencyHz < 0 || math.IsNaN(c.FrequencyHz) || math.IsInf(c.FrequencyHz, 0):
		return fmt.Errorf("pii: ToneConfig.FrequencyHz must be positive, got %v", c.FrequencyHz)
	case c.LevelDBFS > 0 || math.IsNaN(c.LevelDBFS):
		return fmt.Errorf("pii: ToneConfig.LevelDBFS must be at most 0, got %v", c.LevelDBFS)
	}
	return nil
}

// BeepRanges returns a copy of pcm in which the given time ranges
// (milliseconds of the original media; pcm starts at offsetMS) are
// replaced, in every channel, by a sine tone. Samples outside the padded
// ranges are copied unchanged; ranges outside pcm are clipped or ignored.
// Every channel is redacted because a voice recorded on one channel is
// usually audible on the others too.
func BeepRanges(pcm *transcribe.PCM, offsetMS int64, ranges []transcribe.Timestamp, cfg ToneConfig) (*transcribe.PCM, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if pcm == nil || len(pcm.Channels) == 0 || pcm.SampleRate <= 0 {
		return nil, errors.New("pii: no audio to redact")
	}
	n := len(pcm.Channels[0])
	out := &transcribe.PCM{SampleRate: pcm.SampleRate, Channels: make([][]int16, len(pcm.Channels))}
	for c, ch := range pcm.Channels {
		if len(ch) != n {
			return nil, fmt.Errorf("pii: channel %d has %d samples, channel 1 has %d", c+1, len(ch), n)
		}
		out.Channels[c] = append([]int16(nil), ch...)
	}
	rate := int64(pcm.SampleRate)
	pad := max(cfg.PadMS, 0)
	fade := int(max(cfg.FadeMS, 0) * rate / 1000)
	amp := 32767 * math.Pow(10, cfg.LevelDBFS/20)
	for _, rg := range ranges {
		lo := (rg.Start - pad - offsetMS) * rate / 1000
		hi := (rg.End + pad - offsetMS) * rate / 1000
		lo, hi = max(lo, 0), min(hi, int64(n))
		if lo >= hi {
			continue
		}
		length := int(hi - lo)
		f := min(fade, length/2)
		for k := 0; k < length; k++ {
			g := 1.0
			if k < f {
				g = float64(k) / float64(f)
			} else if k >= length-f {
				g = float64(length-1-k) / float64(f)
			}
			v := int16(math.Round(amp * g * math.Sin(2*math.Pi*cfg.FrequencyHz*float64(k)/float64(rate))))
			for c := range out.Channels {
				out.Channels[c][int(lo)+k] = v
			}
		}
	}
	return out, nil
}

// Encoder writes PCM in a format ("mp3" or "wav") to w.
type Encoder func(ctx context.Context, pcm *transcribe.PCM, format string, w io.Writer) error

// DefaultEncoder writes WAV itself and MP3 with ffmpeg (libmp3lame, 64
// kbit/s, mono or stereo: more channels are mixed to mono). It returns an
// error wrapping transcribe.ErrUnavailable when MP3 is asked for and
// ffmpeg is not installed.
func DefaultEncoder(ctx context.Context, pcm *transcribe.PCM, format string, w io.Writer) error {
	switch format {
	case "wav":
		return writeWAV(w, pcm)
	case "mp3":
		return encodeMP3(ctx, pcm, w)
	}
	return fmt.Errorf("pii: unknown audio format %q (want mp3 or wav)", format)
}

func writeWAV(w io.Writer, pcm *transcribe.PCM) error {
	nc := len(pcm.Channels)
	if nc == 0 || nc > 65535 {
		return fmt.Errorf("pii: cannot write %d channels as WAV", nc)
	}
	frames := len(pcm.Channels[0])
	data := int64(frames) * int64(nc) * 2
	if data+36 > math.MaxUint32 {
		return fmt.Errorf("pii: %d bytes of audio do not fit a WAV file", data)
	}
	var h [44]byte
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+data))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], uint16(nc))
	binary.LittleEndian.PutUint32(h[24:], uint32(pcm.SampleRate))
	binary.LittleEndian.PutUint32(h[28:], uint32(pcm.SampleRate*nc*2))
	binary.LittleEndian.PutUint16(h[32:], uint16(nc*2))
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(data))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	buf := make([]byte, 0, 64*1024)
	for i := 0; i < frames; i++ {
		for _, ch := range pcm.Channels {
			buf = binary.LittleEndian.AppendUint16(buf, uint16(ch[i]))
		}
		if len(buf) >= 60*1024 || i == frames-1 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}

func encodeMP3(ctx context.Context, pcm *transcribe.PCM, w io.Writer) error {
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return fmt.Errorf("pii: encoding MP3 needs ffmpeg, which is not installed (apt-get install ffmpeg): %w", transcribe.ErrUnavailable)
	}
	if len(pcm.Channels) > 2 {
		pcm = &transcribe.PCM{SampleRate: pcm.SampleRate, Channels: [][]int16{pcm.Mono()}}
	}
	var raw bytes.Buffer
	raw.Grow(len(pcm.Channels[0]) * len(pcm.Channels) * 2)
	for i := range pcm.Channels[0] {
		for _, ch := range pcm.Channels {
			raw.Write(binary.LittleEndian.AppendUint16(nil, uint16(ch[i])))
		}
	}
	// ffmpeg writes the Xing header (length, gapless playback) only to a
	// seekable file.
	tmp, err := os.CreateTemp("", "earshot-redacted-*.mp3")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.CommandContext(ctx, bin, "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "s16le", "-ar", strconv.Itoa(pcm.SampleRate), "-ac", strconv.Itoa(len(pcm.Channels)), "-i", "pipe:0",
		"-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3", tmp.Name())
	cmd.Stdin = &raw
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pii: ffmpeg mp3 encoding failed: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	f, err := os.Open(tmp.Name())
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

func sortRanges(rs []transcribe.Timestamp) {
	sort.Slice(rs, func(a, b int) bool { return rs[a].Start < rs[b].Start })
}
