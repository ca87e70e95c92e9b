package isolate

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// syncBuffer is a log sink safe for the workers' stderr readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func logTo(b *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestCrashKinds: each way a worker can die gives a *CrashError wrapping
// transcribe.ErrEngineCrashed with a message in plain words, the child's
// stderr reaches the Logger, and the next call works on a new worker.
func TestCrashKinds(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	r := newRec(t, Config{Engine: "crashy", Processes: 1, Logger: logTo(&log)})
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		action int16
		signal string
		code   int
		msg    string
		logged string
	}{
		{"segfault", actSegfault, "SIGSEGV", 2, "the speech engine crashed (signal SIGSEGV) while processing this audio", "SIGSEGV: segmentation violation"},
		{"abort", actAbort, "SIGABRT", 2, "the speech engine crashed (signal SIGABRT) while processing this audio", "SIGABRT: abort"},
		{"exit", actExit, "", 7, "the speech engine exited unexpectedly (exit status 7) while processing this audio", ""},
		{"panic", actPanic, "", 2, "the speech engine crashed (internal error) while processing this audio", "panic: crashy: deliberate panic"},
		{"sigkill", actSIGKILL, "SIGKILL", -1, "the speech engine was killed (signal SIGKILL, often a sign that the machine ran out of memory) while processing this audio", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := r.p.pids()
			_, err := r.Recognize(ctx, magicAudio(c.action), transcribe.RecognizeOptions{})
			if !errors.Is(err, transcribe.ErrEngineCrashed) {
				t.Fatalf("err = %v, want one wrapping transcribe.ErrEngineCrashed", err)
			}
			var ce *CrashError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %T, want *CrashError", err)
			}
			if ce.Signal != c.signal || ce.ExitCode != c.code || err.Error() != c.msg {
				t.Errorf("got signal %q, exit code %d, %q\nwant signal %q, exit code %d, %q", ce.Signal, ce.ExitCode, err, c.signal, c.code, c.msg)
			}
			if len(before) != 1 || ce.PID != before[0] {
				t.Errorf("crash names pid %d; the worker was %v", ce.PID, before)
			}
			if alive(ce.PID) {
				t.Errorf("crashed worker %d still alive", ce.PID)
			}
			if c.logged != "" && !strings.Contains(log.String(), c.logged) {
				t.Errorf("log lacks the worker's %q:\n%s", c.logged, log.String())
			}
			// The next call works, on another worker.
			rec, err := r.Recognize(ctx, magicAudio(actNothing), transcribe.RecognizeOptions{})
			if err != nil || rec.Model != "crashy" {
				t.Fatalf("after the crash: %v, %v", rec, err)
			}
			if after := r.p.pids(); len(after) != 1 || after[0] == ce.PID {
				t.Errorf("workers after the crash: %v (crashed: %d)", after, ce.PID)
			}
		})
	}
	if s := r.Stats(); s.Crashes != 5 {
		t.Errorf("Stats().Crashes = %d, want 5", s.Crashes)
	}
}

// TestCrashFailsOnlyItsCall: a worker crashing on one request fails that
// request alone; a request on another worker completes with real words,
// and the pool replaces the crashed worker in the background.
func TestCrashFailsOnlyItsCall(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	r := newRec(t, Config{Engine: "crashy", Processes: 2, Logger: logTo(&log)})
	ctx := context.Background()
	if err := r.Warm(ctx, 2); err != nil {
		t.Fatal(err)
	}
	sentence := speech(t, "the quick brown fox jumps over the lazy dog")
	var wg sync.WaitGroup
	var text string
	var errSpeech, errCrash error
	wg.Add(2)
	go func() {
		defer wg.Done()
		rec, err := r.Recognize(ctx, sentence, transcribe.RecognizeOptions{})
		if errSpeech = err; err == nil {
			text = words(rec.Words)
		}
	}()
	go func() {
		defer wg.Done()
		time.Sleep(100 * time.Millisecond) // while the other decodes
		_, errCrash = r.Recognize(ctx, magicAudio(actSegfault), transcribe.RecognizeOptions{})
	}()
	wg.Wait()
	if errSpeech != nil {
		t.Errorf("call on the other worker failed: %v", errSpeech)
	} else if !strings.Contains(text, "brown fox") {
		t.Errorf("call on the other worker recognized %q", text)
	}
	if !errors.Is(errCrash, transcribe.ErrEngineCrashed) {
		t.Errorf("crashing call: %v", errCrash)
	}
	eventually(t, "the crashed worker is replaced", func() bool {
		s := r.Stats()
		return s.Restarts == 1 && s.Processes == 2 && s.Idle == 2
	})
	for range 2 { // the next calls work
		if rec, err := r.Recognize(ctx, magicAudio(actNothing), transcribe.RecognizeOptions{}); err != nil || rec.Model != "crashy" {
			t.Fatalf("after the crash: %v, %v", rec, err)
		}
	}
}

func words(ws []transcribe.Word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Text
	}
	return strings.Join(s, " ")
}
