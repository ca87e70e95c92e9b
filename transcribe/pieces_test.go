package transcribe_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// onsetRecognizer returns a word at every onset of sound (a non-zero
// sample after silence), timed to the millisecond within the audio it is
// given, and records the length of each call and how many ran at once.
type onsetRecognizer struct {
	mu            sync.Mutex
	lengths       []int
	inFlight, max int
}

func (r *onsetRecognizer) Recognize(ctx context.Context, audio []int16, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	r.mu.Lock()
	r.lengths = append(r.lengths, len(audio))
	r.inFlight++
	r.max = max(r.max, r.inFlight)
	r.mu.Unlock()
	defer func() { r.mu.Lock(); r.inFlight--; r.mu.Unlock() }()
	time.Sleep(50 * time.Millisecond) // long enough for pieces to overlap
	var ws []transcribe.Word
	prev := int16(0)
	for i, v := range audio {
		if v != 0 && prev == 0 {
			ms := int64(i) * 1000 / 16000
			ws = append(ws, transcribe.Word{Text: "tick", Start: ms, End: ms + 300, Confidence: 0.9})
		}
		prev = v
	}
	return &transcribe.Recognition{Words: ws, Model: "onset"}, nil
}

func (r *onsetRecognizer) Features() transcribe.RecognizerFeatures {
	return transcribe.RecognizerFeatures{SampleRate: 16000, WordTimestamps: true, Languages: []string{"en"}}
}
func (r *onsetRecognizer) Close() error { return nil }

// ticks builds rawDecoder media of seconds: each second starts with
// 0.4 s of a square wave followed by 0.6 s of silence.
func ticks(seconds int) []byte {
	var buf bytes.Buffer
	buf.WriteByte(1)
	for s := 0; s < seconds; s++ {
		for i := 0; i < 16000; i++ {
			v := int16(0)
			if i < 6400 {
				v = 6000
				if (i/40)%2 == 0 {
					v = -6000
				}
			}
			binary.Write(&buf, binary.LittleEndian, v)
		}
	}
	return buf.Bytes()
}

// Audio over 90 s is cut at pauses into pieces of at most 60 s, recognized
// several at once, and the words come back in order at their place in the
// whole media; audio under 90 s is recognized in one call.
func TestLongAudioInPieces(t *testing.T) {
	t.Parallel()
	rec := &onsetRecognizer{}
	e := newEnv(t, func(c *transcribe.Config) { c.Recognizer = rec; c.PieceParallelism = 2 })
	const seconds = 200
	tr, err := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", ticks(seconds))})
	if err != nil {
		t.Fatal(err)
	}
	tr = e.wait(t, "p", tr.ID)
	if tr.Status != transcribe.StatusCompleted {
		t.Fatalf("status %s: %v", tr.Status, tr.Error)
	}
	if len(tr.Words) != seconds {
		t.Fatalf("%d words, want %d (one per second)", len(tr.Words), seconds)
	}
	for i, w := range tr.Words {
		if want := int64(i) * 1000; w.Start != want {
			t.Fatalf("word %d starts at %d ms, want %d (pieces stitched at the wrong offset)", i, w.Start, want)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.lengths) < 4 {
		t.Fatalf("%d recognitions of %d s of audio, want at least 4 pieces of at most 60 s", len(rec.lengths), seconds)
	}
	total := 0
	for _, n := range rec.lengths {
		if n > 60*16000 {
			t.Errorf("a piece of %.1f s, longer than 60 s", float64(n)/16000)
		}
		total += n
	}
	if total != seconds*16000 {
		t.Errorf("pieces cover %d samples, want %d (no gap, no overlap)", total, seconds*16000)
	}
	if rec.max != 2 {
		t.Errorf("%d pieces at once, want PieceParallelism 2", rec.max)
	}

	// 80 s: one call.
	rec.lengths = nil
	rec.mu.Unlock()
	tr, err = e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", ticks(80))})
	if err != nil {
		t.Fatal(err)
	}
	tr = e.wait(t, "p", tr.ID)
	rec.mu.Lock()
	if len(rec.lengths) != 1 || len(tr.Words) != 80 {
		t.Errorf("80 s of audio: %d recognitions and %d words, want 1 and 80", len(rec.lengths), len(tr.Words))
	}
}

// fileRefuser is an engine that takes files but refuses this one.
type fileRefuser struct {
	onsetRecognizer
	files int
}

func (f *fileRefuser) AcceptsFile(string) bool { return true }
func (f *fileRefuser) RecognizeFile(ctx context.Context, path string, o transcribe.RecognizeOptions) (*transcribe.Recognition, error) {
	f.mu.Lock()
	f.files++
	f.mu.Unlock()
	return nil, fmt.Errorf("too large for one request: %w", transcribe.ErrFileNotTaken)
}

// A file the engine does not take as it is (ErrFileNotTaken) is decoded
// and recognized in pieces instead; any other RecognizeFile error fails
// the job.
func TestFileNotTakenFallsBackToPieces(t *testing.T) {
	t.Parallel()
	rec := &fileRefuser{}
	e := newEnv(t, func(c *transcribe.Config) { c.Recognizer = rec })
	tr, err := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", ticks(100))})
	if err != nil {
		t.Fatal(err)
	}
	tr = e.wait(t, "p", tr.ID)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if tr.Status != transcribe.StatusCompleted || len(tr.Words) != 100 || rec.files != 1 || len(rec.lengths) < 2 {
		t.Fatalf("status %s, %d words, %d file calls, %d pieces; want completed, 100, 1, at least 2", tr.Status, len(tr.Words), rec.files, len(rec.lengths))
	}
}

// pooledRecognizer is an engine that reports its capacity, as a pool of
// engine servers does (openai.Recognizer.Capacity).
type pooledRecognizer struct {
	onsetRecognizer
	capacity int
}

func (r *pooledRecognizer) Capacity() int { return r.capacity }

// An engine that reports its capacity gets that many pieces at once, not
// PieceParallelism: four servers of one request each are all kept busy.
func TestPiecesAtEngineCapacity(t *testing.T) {
	t.Parallel()
	rec := &pooledRecognizer{capacity: 4}
	e := newEnv(t, func(c *transcribe.Config) { c.Recognizer = rec; c.PieceParallelism = 1 })
	tr, err := e.submit(context.Background(), "p", transcribe.TranscriptParams{AudioURL: e.upload(t, "p", ticks(300))})
	if err != nil {
		t.Fatal(err)
	}
	tr = e.wait(t, "p", tr.ID)
	if tr.Status != transcribe.StatusCompleted || len(tr.Words) != 300 {
		t.Fatalf("status %s, %d words: %v", tr.Status, len(tr.Words), tr.Error)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.max != 4 {
		t.Errorf("%d pieces at once, want the engine's capacity 4", rec.max)
	}
	// 300 s need 6 pieces of at most 54 s (0.9 of 60 s); for 4 servers
	// that is 8 of about 37.5 s, so the last round is not two pieces on
	// two servers.
	if len(rec.lengths) != 8 {
		t.Fatalf("%d pieces, want 8 (6 rounded up to a multiple of 4)", len(rec.lengths))
	}
	for _, n := range rec.lengths {
		if s := float64(n) / 16000; s < 33 || s > 42 {
			t.Errorf("a piece of %.1f s, want about 37.5 s", s)
		}
	}
}
