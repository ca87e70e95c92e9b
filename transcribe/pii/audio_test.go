package pii

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
)

func noise(n int, seed int64) []int16 {
	r := rand.New(rand.NewSource(seed))
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(r.Intn(20000) - 10000)
	}
	return out
}

// inRanges reports whether sample i (at rate, audio starting at offsetMS)
// lies in one of the ranges widened by pad ms.
func inRanges(i, rate int, offsetMS int64, rs []transcribe.Timestamp, pad int64) bool {
	for _, r := range rs {
		lo := (r.Start - pad - offsetMS) * int64(rate) / 1000
		hi := (r.End + pad - offsetMS) * int64(rate) / 1000
		if int64(i) >= lo && int64(i) < hi {
			return true
		}
	}
	return false
}

func TestBeepRanges(t *testing.T) {
	const rate = 16000
	pcm := &transcribe.PCM{SampleRate: rate, Channels: [][]int16{noise(3*rate, 1), noise(3*rate, 2)}}
	orig := [][]int16{append([]int16(nil), pcm.Channels[0]...), append([]int16(nil), pcm.Channels[1]...)}
	// Audio starts at 10 s of the media; the second range runs past the end.
	ranges := []transcribe.Timestamp{{Start: 10500, End: 11000}, {Start: 12800, End: 14000}, {Start: 20000, End: 21000}}
	out, err := beepRanges(pcm, 10000, ranges, ToneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for c := range orig {
		if !equal(pcm.Channels[c], orig[c]) {
			t.Fatal("beepRanges modified its input")
		}
	}
	amp := 32767 * math.Pow(10, -12.0/20)
	for c, ch := range out.Channels {
		if len(ch) != len(orig[c]) {
			t.Fatalf("length changed: %d -> %d", len(orig[c]), len(ch))
		}
		peak := 0.0
		crossings := 0
		for i, v := range ch {
			if inRanges(i, rate, 10000, ranges, 40) {
				peak = math.Max(peak, math.Abs(float64(v)))
				if i > 0 && inRanges(i-1, rate, 10000, ranges, 40) && (ch[i-1] < 0) != (v < 0) {
					crossings++
				}
				if v != out.Channels[0][i] {
					t.Fatalf("channel %d differs from channel 1 inside a range at %d", c+1, i)
				}
				continue
			}
			if v != orig[c][i] {
				t.Fatalf("channel %d sample %d outside the ranges changed", c+1, i)
			}
		}
		if math.Abs(peak-amp) > amp*0.01 {
			t.Errorf("tone peak %.0f, want %.0f (-12 dBFS)", peak, amp)
		}
		// 0.58 s + 0.24 s of 1 kHz tone: about 2 crossings per ms.
		if secs := 0.58 + 0.24; math.Abs(float64(crossings)-2000*secs) > 20 {
			t.Errorf("%d zero crossings, want about %.0f for 1 kHz", crossings, 2000*secs)
		}
	}
}

func equal(a, b []int16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBeepRangesErrors(t *testing.T) {
	if _, err := beepRanges(nil, 0, nil, ToneConfig{}); err == nil {
		t.Error("nil PCM accepted")
	}
	bad := &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{make([]int16, 10), make([]int16, 9)}}
	if _, err := beepRanges(bad, 0, nil, ToneConfig{}); err == nil {
		t.Error("unequal channels accepted")
	}
	ok := &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{make([]int16, 10)}}
	if _, err := beepRanges(ok, 0, nil, ToneConfig{LevelDBFS: 3}); err == nil || !strings.Contains(err.Error(), "LevelDBFS") {
		t.Errorf("positive level: %v", err)
	}
	if _, err := beepRanges(ok, 0, nil, ToneConfig{FrequencyHz: -1}); err == nil || !strings.Contains(err.Error(), "FrequencyHz") {
		t.Errorf("negative frequency: %v", err)
	}
	var buf bytes.Buffer
	if err := DefaultEncoder(context.Background(), ok, "ogg", &buf); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestRedactAudioStageNeedsAudio(t *testing.T) {
	j := job("Sarah called.", transcribe.TranscriptParams{RedactPII: yes(), RedactPIIAudio: yes(), RedactPIIPolicies: []string{"person_name"}})
	if err := (RedactAudioStage{}).Apply(context.Background(), j); err == nil {
		t.Error("no audio and no blob store: want an error")
	}
}

// failingBlobs fails every Put.
type failingBlobs struct{ driver.BlobStore }

func (failingBlobs) Put(context.Context, string, io.Reader) (int64, error) {
	return 0, errors.New("disk full")
}

func TestRedactAudioStageStoreError(t *testing.T) {
	j := job("Sarah called.", transcribe.TranscriptParams{RedactPII: yes(), RedactPIIAudio: yes(), RedactPIIPolicies: []string{"person_name"}, RedactPIIAudioQuality: transcribe.Ptr(transcribe.AudioWAV)})
	j.Audio = &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{noise(16000, 3)}}
	j.Blobs = failingBlobs{}
	if err := (RedactAudioStage{}).Apply(context.Background(), j); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("store error: %v", err)
	}
	if len(j.Artifacts) != 0 {
		t.Errorf("artifact recorded although storing failed: %+v", j.Artifacts)
	}
}

func strp(s string) *string { return &s }

// TestRedactAudioStageChannels redacts every channel of dual-channel audio
// (WAV keeps both channels) and writes MP3 for more channels than MP3
// holds (mixed to mono).
func TestRedactAudioStageChannels(t *testing.T) {
	for _, c := range []struct {
		quality  string
		channels int
	}{{"wav", 2}, {"mp3", 2}, {"mp3", 3}} {
		j := job("Sarah called.", transcribe.TranscriptParams{RedactPII: yes(), RedactPIIAudio: yes(), RedactPIIPolicies: []string{"person_name"},
			RedactPIIAudioQuality: transcribe.Ptr(transcribe.AudioQuality(c.quality)), Multichannel: yes()})
		a, b := "1", "2"
		j.Transcript.Words[0].Channel, j.Transcript.Words[1].Channel = &a, &b
		j.Audio = &transcribe.PCM{SampleRate: 16000}
		for k := 0; k < c.channels; k++ {
			j.Audio.Channels = append(j.Audio.Channels, noise(16000, int64(10+k)))
		}
		blobs := memory.NewBlobStore()
		j.Blobs = blobs
		if err := (RedactAudioStage{}).Apply(context.Background(), j); err != nil {
			t.Fatalf("%s with %d channels: %v", c.quality, c.channels, err)
		}
		art, ok := j.Artifact(transcribe.ArtifactRedactedAudio)
		if !ok || art.Format != c.quality {
			t.Fatalf("artifacts %+v", j.Artifacts)
		}
		rc, err := blobs.Open(context.Background(), art.Key)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if c.quality == "wav" {
			if data[22] != byte(c.channels) {
				t.Errorf("WAV has %d channels, want %d", data[22], c.channels)
			}
			// Channel 2 (interleaved) is a tone where channel 1's word was.
			frame := 1000
			l := int16(uint16(data[44+4*frame]) | uint16(data[45+4*frame])<<8)
			r := int16(uint16(data[46+4*frame]) | uint16(data[47+4*frame])<<8)
			if l != r {
				t.Errorf("channels differ inside the span: %d %d", l, r)
			}
		} else if len(data) < 500 {
			t.Errorf("MP3 of %d bytes", len(data))
		}
	}
}

func TestRedactAudioStageSilence(t *testing.T) {
	for _, c := range []struct {
		opts   string
		silent bool
	}{{`{"override_audio_redaction_method":"silence"}`, true}, {``, false}, {`{"return_redacted_no_speech_audio":true}`, false}, {`"junk"`, false}} {
		j := job("Sarah called.", transcribe.TranscriptParams{RedactPII: yes(), RedactPIIAudio: yes(), RedactPIIPolicies: []string{"person_name"},
			RedactPIIAudioQuality: transcribe.Ptr(transcribe.AudioWAV), RedactPIIAudioOptions: []byte(c.opts)})
		j.Audio = &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{noise(16000, 4)}}
		blobs := memory.NewBlobStore()
		j.Blobs = blobs
		if err := (RedactAudioStage{}).Apply(context.Background(), j); err != nil {
			t.Fatal(err)
		}
		a, _ := j.Artifact(transcribe.ArtifactRedactedAudio)
		rc, err := blobs.Open(context.Background(), a.Key)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		pcm, err := parseWAV(b)
		if err != nil {
			t.Fatal(err)
		}
		// "Sarah" is 0-250 ms: with 40 ms padding, samples 0..4640 are redacted.
		zero := true
		for _, v := range pcm[100:4500] {
			zero = zero && v == 0
		}
		if zero != c.silent {
			t.Errorf("options %s: silent %v, want %v", c.opts, zero, c.silent)
		}
		if pcm[6000] != j.Audio.Channels[0][6000] {
			t.Errorf("options %s: audio outside the span changed", c.opts)
		}
	}
}

// TestRedactedSpeech is the done-when example: a flite recording
// of a name and a phone number, recognized by pocketsphinx and formatted
// by textfmt, comes back with both hashed in the text, and the redacted
// audio has a tone where they were: the recognizer finds none of their
// words in it, and every sample outside the spans is unchanged.
func TestRedactedSpeech(t *testing.T) {
	const say = "hi my name is sarah johnson and my number is five five five one two three four"
	clip := readWAV(t, testaudio.Speech(t, "slt", say))
	ws := formatted(recognize(t, clip))
	if got := transcribe.JoinWords(ws); !strings.Contains(got, "Sarah Johnson") || !strings.Contains(got, "555-1234") {
		t.Fatalf("recognition changed; formatted text %q", got)
	}
	for _, quality := range []string{"wav", "mp3"} {
		t.Run(quality, func(t *testing.T) {
			p := transcribe.TranscriptParams{RedactPII: yes(), RedactPIIAudio: yes(), EntityDetection: yes(),
				RedactPIIPolicies: []string{"person_name", "phone_number"}, RedactPIIAudioQuality: transcribe.Ptr(transcribe.AudioQuality(quality))}
			p.Normalize()
			blobs := memory.NewBlobStore()
			tr := &transcribe.Transcript{ID: "tx1", TranscriptParams: p, Words: append([]transcribe.Word(nil), ws...)}
			// The media's first 2 s were cut by audio_start_from: word
			// times are in media time, the audio starts at 2000 ms.
			const offset = 2000
			for i := range tr.Words {
				tr.Words[i].Start += offset
				tr.Words[i].End += offset
			}
			j := &transcribe.Job{Transcript: tr, Audio: &transcribe.PCM{SampleRate: 16000, Channels: [][]int16{clip}}, OffsetMS: offset, Blobs: blobs}
			spans := Detector{}.Spans(tr.Words)
			ranges := ranges(tr.Words, spans, p.RedactPIIPolicies)
			for _, s := range Stages(Options{}) {
				if s.Enabled(&tr.TranscriptParams) {
					if err := s.Apply(context.Background(), j); err != nil {
						t.Fatalf("%s: %v", s.Name(), err)
					}
				}
			}
			text := transcribe.JoinWords(tr.Words)
			if !strings.HasSuffix(text, " my name is ##### ####### and my number is ########.") {
				t.Errorf("redacted text %q", text)
			}
			if show(tr.Entities) != "person_name:##### ####### | phone_number:########" {
				t.Errorf("entities %s", show(tr.Entities))
			}
			a, ok := j.Artifact(transcribe.ArtifactRedactedAudio)
			if !ok || a.Format != quality || !strings.Contains(a.Key, "tx1") {
				t.Fatalf("artifacts %+v", j.Artifacts)
			}
			rc, err := blobs.Open(context.Background(), a.Key)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(rc)
			rc.Close()
			var red []int16
			if quality == "wav" {
				if red, err = parseWAV(data); err != nil {
					t.Fatal(err)
				}
				if len(red) != len(clip) {
					t.Fatalf("redacted audio has %d samples, original %d", len(red), len(clip))
				}
				for i := range clip {
					if !inRanges(i, 16000, offset, ranges, 40) && red[i] != clip[i] {
						t.Fatalf("sample %d outside the redacted spans changed", i)
					}
				}
			} else {
				red = decodeMP3(t, data)
				if d := len(red) - len(clip); d < -1600 || d > 1600 {
					t.Errorf("MP3 is %d samples, original %d", len(red), len(clip))
				}
			}
			heard := recognize(t, red)
			got := strings.Fields(transcribe.JoinWords(heard))
			t.Logf("recognized in the redacted %s: %q", quality, strings.Join(got, " "))
			for _, w := range got {
				switch w {
				case "sarah", "johnson", "five", "one", "two", "three", "four":
					t.Errorf("redacted word %q still recognized in the redacted audio", w)
				}
			}
			if !strings.Contains(strings.Join(got, " "), "my name") {
				t.Errorf("unredacted words lost: %q", got)
			}
		})
	}
}

func decodeMP3(t *testing.T, data []byte) []int16 {
	t.Helper()
	testaudio.Need(t, "ffmpeg")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.mp3"), filepath.Join(dir, "out.wav")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-i", in, "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", out).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg could not decode the redacted MP3: %v: %s", err, b)
	}
	return readWAV(t, out)
}
