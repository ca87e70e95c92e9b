package isolate

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// TestStreamCPUTime: a stream reports its worker's CPU time, which grows
// by what decoding speech costs (pocketsphinx takes well over 20 ms of CPU
// for a 3-second sentence), and reports nothing once closed.
func TestStreamCPUTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()
	r := newRec(t, Config{Engine: "pocketsphinx", Processes: 1})
	st, err := r.NewStream(context.Background(), transcribe.StreamOptions{SampleRate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*Stream)
	before, ok := s.CPUTime()
	if !ok {
		t.Fatal("no CPU time for an open stream")
	}
	sentence := speech(t, "the quick brown fox jumps over the lazy dog")
	for i := 0; i < len(sentence); i += 1600 {
		if err := st.Write(sentence[i:min(i+1600, len(sentence))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.EndUtterance(); err != nil {
		t.Fatal(err)
	}
	after, ok := s.CPUTime()
	if !ok || after-before < 20*time.Millisecond {
		t.Fatalf("worker CPU %v -> %v (%v) over a decoded sentence", before, after, ok)
	}
	t.Logf("decoding %.1f s of speech took %v of the worker's CPU", float64(len(sentence))/16000, after-before)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.CPUTime(); ok {
		t.Error("a closed stream reports CPU time")
	}
}

func TestProcCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()
	if _, ok := procCPU(1 << 30); ok {
		t.Error("CPU time of a process that does not exist")
	}
}
