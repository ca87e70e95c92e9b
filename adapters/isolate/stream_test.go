package isolate

import (
	"context"
	"errors"
	"testing"

	"github.com/earshot-dev/earshot/transcribe"
)

// TestStreamCrash: a worker dying under a stream fails the call that saw it
// and every later one with the same crash error; Close is then a no-op and
// the next stream runs on a new worker.
func TestStreamCrash(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	r := newRec(t, Config{Engine: "crashy", Processes: 1, Logger: logTo(&log)})
	ctx := context.Background()
	sentence := speech(t, "the quick brown fox jumps over the lazy dog")
	st, err := r.NewStream(ctx, transcribe.StreamOptions{SampleRate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(sentence); i += 1600 {
		if err := st.Write(sentence[i:min(i+1600, len(sentence))]); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if h, err := st.Partial(); err != nil || len(h.Words) == 0 {
		t.Fatalf("Partial: %v, %v", h, err)
	}
	crashed := st.Write(magicAudio(actSegfault))
	var ce *CrashError
	if !errors.As(crashed, &ce) || !errors.Is(crashed, transcribe.ErrEngineCrashed) || ce.Signal != "SIGSEGV" {
		t.Fatalf("Write that crashed: %v", crashed)
	}
	if _, err := st.Partial(); err != crashed {
		t.Errorf("Partial after the crash: %v, want %v", err, crashed)
	}
	if _, err := st.EndUtterance(); err != crashed {
		t.Errorf("EndUtterance after the crash: %v, want %v", err, crashed)
	}
	if err := st.Write(sentence); err != crashed {
		t.Errorf("Write after the crash: %v, want %v", err, crashed)
	}
	if err := st.Close(); err != nil {
		t.Errorf("Close after the crash: %v", err)
	}
	if err := st.Write(sentence); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	st2, err := r.NewStream(ctx, transcribe.StreamOptions{SampleRate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if err := st2.Write(make([]int16, 8000)); err != nil {
		t.Fatal(err)
	}
	if h, err := st2.EndUtterance(); err != nil || len(h.Words) != 0 {
		t.Fatalf("stream on the new worker: %v, %v", words(h.Words), err)
	}
}

// TestStreamHoldsWorker: a stream keeps its worker until Close, which gives
// it back for the next caller.
func TestStreamHoldsWorker(t *testing.T) {
	t.Parallel()
	r := newRec(t, Config{Engine: "quiet", Processes: 1})
	ctx := context.Background()
	st, err := r.NewStream(ctx, transcribe.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(make([]int16, 3200)); err != nil {
		t.Fatal(err)
	}
	// The quiet engine's hypotheses count the samples they were fed: the
	// audio crossed the pipe intact.
	if h, err := st.Partial(); err != nil || h.LanguageConfidence != 3200 || h.Language != "en" {
		t.Fatalf("Partial: %+v, %v", h, err)
	}
	c, cancel := context.WithTimeout(ctx, 50*1e6)
	defer cancel()
	if _, err := r.Recognize(c, nil, transcribe.RecognizeOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Recognize while the only worker streams: %v, want to wait until the deadline", err)
	}
	pid := r.p.pids()[0]
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Recognize(ctx, nil, transcribe.RecognizeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := r.p.pids(); len(got) != 1 || got[0] != pid {
		t.Errorf("workers %v, want %d reused after the stream closed", got, pid)
	}
}
