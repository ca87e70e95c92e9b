package diarize

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// Words recognized by pocketsphinx (adapters/pocketsphinx, the embedded
// recognizer), so word-level speaker accuracy is measured on real
// recognizer output: real word boundaries, insertions and all.

var (
	psOnce sync.Once
	ps     *pocketsphinx.Recognizer
	psErr  error
)

func recognizer(t testing.TB) *pocketsphinx.Recognizer {
	t.Helper()
	psOnce.Do(func() { ps, psErr = pocketsphinx.New(pocketsphinx.Config{Decoders: 1}) })
	if psErr != nil {
		t.Fatalf("pocketsphinx recognizer: %v (run ./scripts/setup.sh)", psErr)
	}
	return ps
}

// recognize returns the words pocketsphinx recognizes in x. Results are
// cached in testaudio.Dir by the audio's hash, so only the first run pays
// for recognition.
func recognize(t testing.TB, x []int16) ([]transcribe.Word, time.Duration) {
	t.Helper()
	raw := make([]byte, 2*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(v))
	}
	sum := sha256.Sum256(raw)
	cache := filepath.Join(testaudio.Dir(), "ps-words-"+hex.EncodeToString(sum[:12])+".json")
	var words []transcribe.Word
	if b, err := os.ReadFile(cache); err == nil && json.Unmarshal(b, &words) == nil && len(words) > 0 {
		return words, 0
	}
	start := time.Now()
	rec, err := recognizer(t).Recognize(context.Background(), x, transcribe.RecognizeOptions{})
	if err != nil {
		t.Fatalf("recognizing: %v", err)
	}
	took := time.Since(start)
	if len(rec.Words) == 0 {
		t.Fatalf("pocketsphinx recognized no words")
	}
	if b, err := json.Marshal(rec.Words); err == nil {
		_ = os.WriteFile(cache, b, 0o644)
	}
	return rec.Words, took
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
	// the conversation whose turns follow each other without pauses, over
	// noise: word boundaries at turn changes are the hard part
	c := conversations(t)["tight"]
	words, took := recognize(t, c.audio)
	if took > 0 {
		t.Logf("pocketsphinx: %.1fs of audio in %v", float64(len(c.audio))/rate, took.Round(time.Millisecond))
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
	runs := 1
	for i := 1; i < len(c.ref); i++ {
		if c.ref[i].Speaker != c.ref[i-1].Speaker {
			runs++
		}
	}
	t.Logf("two speakers, %d recognized words: %.1f%% with the right speaker, %d utterances for %d speaker turns",
		len(words), 100*acc, len(job.Transcript.Utterances), runs)
	if acc < 0.95 {
		t.Errorf("word speaker accuracy %.1f%% below 95%%", 100*acc)
	}
	if got := len(job.Transcript.Utterances); got < runs || got > runs+2 {
		t.Errorf("%d utterances for %d speaker turns", got, runs)
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

// BenchmarkDiarizeLong is BenchmarkDiarize on 17 minutes of audio (the
// four-speaker conversation 16 times over), to show how the cost grows.
func BenchmarkDiarizeLong(b *testing.B) {
	c := repeated(b, conversations(b), "four*16")
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

// BenchmarkPocketsphinx is the recognition baseline: adapters/pocketsphinx
// on the same four-speaker conversation with a warm decoder.
func BenchmarkPocketsphinx(b *testing.B) {
	c := conversations(b)["four"]
	r := recognizer(b)
	if err := r.Warm(context.Background(), 1); err != nil {
		b.Fatal(err)
	}
	minutes := float64(len(c.audio)) / rate / 60
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Recognize(context.Background(), c.audio, transcribe.RecognizeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/minutes, "s/audio-min")
}
