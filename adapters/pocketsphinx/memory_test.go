package pocketsphinx

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testaudio"
	"github.com/earshot-dev/earshot/transcribe"
)

// rssBytes returns this process's resident set (VmRSS), or 0.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestIdleTimeout: decoders idle for IdleTimeout are freed and their
// memory goes back to the system; the pool makes new ones on demand.
func TestIdleTimeout(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	r, err := New(Config{Decoders: 2, IdleTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before := rssBytes()
	if err := r.Warm(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if live, idle := r.Decoders(); live != 2 || idle != 2 {
		t.Fatalf("after Warm: %d live, %d idle", live, idle)
	}
	warm := rssBytes()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if live, _ := r.Decoders(); live == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("idle decoders not freed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	after := rssBytes()
	t.Logf("RSS: %d MB before, %d MB with two idle decoders, %d MB once they were freed", before>>20, warm>>20, after>>20)
	// glibc keeps a little of what was freed (malloc_trim returns whole
	// free pages); the decoders' bulk must go back.
	if warm-before < 100<<20 || after-before > (warm-before)/5 {
		t.Errorf("RSS %d MB before, %d MB with two decoders, %d MB after the idle timeout", before>>20, warm>>20, after>>20)
	}
	// A stream in use is not freed, whatever its age; the pool makes a
	// new decoder for it.
	st, err := r.NewStream(context.Background(), transcribe.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	if live, idle := r.Decoders(); live != 1 || idle != 0 {
		t.Errorf("with a stream open: %d live, %d idle", live, idle)
	}
	audio := wavSamples(t, testaudio.Speech(t, "slt", "we need more money"))
	if err := st.Write(audio); err != nil {
		t.Fatal(err)
	}
	h, err := st.EndUtterance()
	if err != nil || len(h.Words) < 3 {
		t.Fatalf("%+v, %v", h, err)
	}
	st.Close()
	if live, idle := r.Decoders(); live != 1 || idle != 1 {
		t.Errorf("after the stream: %d live, %d idle", live, idle)
	}
}

func wavSamples(t *testing.T, path string) []int16 {
	t.Helper()
	return wav(t, path)
}
