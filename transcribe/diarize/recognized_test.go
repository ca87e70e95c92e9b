package diarize

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// Words recognized by pocketsphinx (the pocketsphinx_continuous program of
// Debian's pocketsphinx package, the same engine as adapters/pocketsphinx),
// so word-level speaker accuracy is measured on real recognizer output:
// real word boundaries, insertions and all.

// writeWAV writes 16-bit mono PCM at rate to path.
func writeWAV(path string, x []int16) error {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("RIFF")
	_ = binary.Write(&b, le, uint32(36+2*len(x)))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		_ = binary.Write(&b, le, v)
	}
	b.WriteString("data")
	_ = binary.Write(&b, le, uint32(2*len(x)))
	_ = binary.Write(&b, le, x)
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// recognize runs pocketsphinx_continuous on x and returns its words with
// times in ms. Results are cached in testaudio.Dir by the audio's hash.
func recognize(t testing.TB, x []int16) ([]transcribe.Word, time.Duration) {
	t.Helper()
	testaudio.Need(t, "pocketsphinx_continuous")
	raw := make([]byte, 2*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(v))
	}
	sum := sha256.Sum256(raw)
	base := filepath.Join(testaudio.Dir(), "psx-"+hex.EncodeToString(sum[:12]))
	var took time.Duration
	out, err := os.ReadFile(base + ".txt")
	if err != nil {
		if err := writeWAV(base+".wav", x); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(base + ".wav")
		start := time.Now()
		cmd := exec.Command("pocketsphinx_continuous", "-infile", base+".wav", "-time", "yes", "-logfn", os.DevNull)
		out, err = cmd.Output()
		if err != nil {
			t.Fatalf("pocketsphinx_continuous: %v", err)
		}
		took = time.Since(start)
		if err := os.WriteFile(base+".txt", out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var words []transcribe.Word
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		st, err1 := strconv.ParseFloat(f[1], 64)
		en, err2 := strconv.ParseFloat(f[2], 64)
		cf, err3 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		w := f[0]
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") {
			continue
		}
		if i := strings.IndexByte(w, '('); i > 0 {
			w = w[:i]
		}
		words = append(words, transcribe.Word{Text: w, Start: int64(st * 1000), End: int64(en * 1000), Confidence: cf})
	}
	if len(words) == 0 {
		t.Fatalf("pocketsphinx_continuous recognized no words")
	}
	return words, took
}

// trueSpeakers gives each word the reference speaker it overlaps most (the
// nearest turn's when none).
func trueSpeakers(words []transcribe.Word, ref []Segment) []int {
	out := make([]int, len(words))
	for i, w := range words {
		out[i] = speakerOf(w.Start, w.End, ref)
	}
	return out
}

func TestRecognizedWordSpeakers(t *testing.T) {
	c := conversations(t)["two"]
	words, took := recognize(t, c.audio)
	if took > 0 {
		t.Logf("pocketsphinx_continuous: %.1fs of audio in %v", float64(len(c.audio))/rate, took.Round(time.Millisecond))
	}
	truth := trueSpeakers(words, c.ref)
	job := &transcribe.Job{
		Transcript: &transcribe.Transcript{Words: words},
		Audio:      &transcribe.PCM{SampleRate: rate, Channels: [][]int16{c.audio}},
	}
	yes := true
	job.Transcript.SpeakerLabels = &yes
	for _, st := range Stages() {
		if err := st.Apply(context.Background(), job); err != nil {
			t.Fatal(err)
		}
	}
	acc := wordAccuracy(job.Transcript.Words, truth)
	t.Logf("two speakers, %d recognized words: %.1f%% with the right speaker, %d utterances for %d turns",
		len(words), 100*acc, len(job.Transcript.Utterances), len(c.ref))
	if acc < 0.95 {
		t.Errorf("word speaker accuracy %.1f%% below 95%%", 100*acc)
	}
	if got := len(job.Transcript.Utterances); got < len(c.ref) || got > len(c.ref)+2 {
		t.Errorf("%d utterances for %d turns", got, len(c.ref))
	}
	for _, u := range job.Transcript.Utterances {
		if u.Speaker != "A" && u.Speaker != "B" {
			t.Errorf("utterance speaker %q, want A or B", u.Speaker)
		}
	}
	if first := job.Transcript.Utterances[0].Speaker; first != "A" {
		t.Errorf("first utterance speaker %q, want A", first)
	}
}

// BenchmarkDiarize measures the default diarizer's cost per minute of audio
// on the four-speaker conversation; with -bench=Pocketsphinx beside it, the
// raw recognition baseline on the same audio.
func BenchmarkDiarize(b *testing.B) {
	c := conversations(b)["four"]
	d, _ := NewBIC(BICConfig{})
	minutes := float64(len(c.audio)) / rate / 60
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Diarize(context.Background(), c.audio, rate, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/minutes, "s/audio-min")
}

// BenchmarkPocketsphinx is the recognition baseline: pocketsphinx_continuous
// on the same four-speaker conversation (process start and model load
// included, as a cold recognizer would pay once per job).
func BenchmarkPocketsphinx(b *testing.B) {
	testaudio.Need(b, "pocketsphinx_continuous")
	c := conversations(b)["four"]
	path := filepath.Join(b.TempDir(), "four.wav")
	if err := writeWAV(path, c.audio); err != nil {
		b.Fatal(err)
	}
	minutes := float64(len(c.audio)) / rate / 60
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("pocketsphinx_continuous", "-infile", path, "-time", "yes", "-logfn", os.DevNull)
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(fmt.Errorf("pocketsphinx_continuous: %v", err))
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/minutes, "s/audio-min")
}
