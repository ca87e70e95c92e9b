package pii

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
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
	// Silence replaces the spans with silence instead of the tone
	// (redact_pii_audio_options.override_audio_redaction_method "silence").
	Silence bool
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

// beepRanges returns a copy of pcm in which the given time ranges
// (milliseconds of the original media; pcm starts at offsetMS) are
// replaced, in every channel, by a sine tone. Samples outside the padded
// ranges are copied unchanged; ranges outside pcm are clipped or ignored.
// Every channel is redacted because a voice recorded on one channel is
// usually audible on the others too.
func beepRanges(pcm *transcribe.PCM, offsetMS int64, ranges []transcribe.Timestamp, cfg ToneConfig) (*transcribe.PCM, error) {
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
	if cfg.Silence {
		amp = 0
	}
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

// DefaultEncoder is NewEncoder(""): temporary files in os.TempDir().
var DefaultEncoder = NewEncoder("")

// NewEncoder returns the encoder that writes WAV with media.WriteWAV and
// MP3 with a media.MP3Encoder (ffmpeg's libmp3lame, 64 kbit/s, its
// temporary file in tempDir; MP3 holds one or two channels, so more are
// mixed to mono). It returns an error wrapping transcribe.ErrUnavailable
// when MP3 is asked for and ffmpeg is not installed.
func NewEncoder(tempDir string) Encoder {
	mp3 := &media.MP3Encoder{TempDir: tempDir}
	return func(ctx context.Context, pcm *transcribe.PCM, format string, w io.Writer) error {
		switch format {
		case "wav":
			return media.WriteWAV(w, pcm)
		case "mp3":
			if len(pcm.Channels) > 2 {
				pcm = &transcribe.PCM{SampleRate: pcm.SampleRate, Channels: [][]int16{pcm.Mono()}}
			}
			return mp3.Encode(ctx, pcm, w)
		}
		return fmt.Errorf("pii: unknown audio format %q (want mp3 or wav)", format)
	}
}

func sortRanges(rs []transcribe.Timestamp) {
	sort.Slice(rs, func(a, b int) bool { return rs[a].Start < rs[b].Start })
}
