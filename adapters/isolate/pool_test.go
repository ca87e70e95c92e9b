package isolate

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/transcribe"
)

// TestCancel: a cancelled call returns ctx.Err() at once. A worker whose
// engine honours the cancellation is reused; one that does not is killed
// after StopGrace and replaced.
func TestCancel(t *testing.T) {
	t.Parallel()
	r := newRec(t, Config{Engine: "crashy", Processes: 1, StopGrace: 300 * time.Millisecond})
	ctx := context.Background()

	t.Run("EngineStops", func(t *testing.T) {
		pid := r.p.pids()[0]
		c, cancel := context.WithCancel(ctx)
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := r.Recognize(c, magicAudio(actWaitCancel), transcribe.RecognizeOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		rec, err := r.Recognize(ctx, magicAudio(actNothing), transcribe.RecognizeOptions{})
		if err != nil || rec.Model != "crashy" {
			t.Fatalf("next call: %v, %v", rec, err)
		}
		if got := r.p.pids(); !slices.Equal(got, []int{pid}) {
			t.Errorf("workers %v, want the same worker %d reused", got, pid)
		}
	})

	t.Run("EngineIgnoresIt", func(t *testing.T) {
		pid := r.p.pids()[0]
		c, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := r.Recognize(c, magicAudio(actHang), transcribe.RecognizeOptions{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
		// Returning must not wait for StopGrace: the caller is not held.
		if el := time.Since(start); el > 250*time.Millisecond+100*time.Millisecond {
			t.Errorf("Recognize returned %s after the call began; the deadline was 100 ms", el)
		}
		eventually(t, "the hung worker is killed", func() bool { return !alive(pid) })
		rec, err := r.Recognize(ctx, magicAudio(actNothing), transcribe.RecognizeOptions{})
		if err != nil || rec.Model != "crashy" {
			t.Fatalf("next call: %v, %v", rec, err)
		}
		if s := r.Stats(); s.Crashes != 0 {
			t.Errorf("a cancellation counted as a crash: %+v", s)
		}
	})

	t.Run("RealDecoding", func(t *testing.T) {
		// pocketsphinx in the worker checks its context between chunks:
		// 30 s of speech (seconds to decode) stops at once, and the worker
		// answers the cancel and goes back to the pool.
		r := newRec(t, Config{Engine: "pocketsphinx", EngineConfig: map[string]int{"Decoders": 1}, Processes: 1})
		long := slices.Concat(slices.Repeat([][]int16{speech(t, "the quick brown fox jumps over the lazy dog")}, 10)...)
		if err := r.Warm(ctx, 1); err != nil {
			t.Fatal(err)
		}
		pid := r.p.pids()[0]
		c, cancel := context.WithCancel(ctx)
		time.AfterFunc(300*time.Millisecond, cancel)
		_, err := r.Recognize(c, long, transcribe.RecognizeOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		eventually(t, "the worker is idle again", func() bool { return r.Stats().Idle == 1 })
		if got := r.p.pids(); !slices.Equal(got, []int{pid}) {
			t.Errorf("workers %v, want %d reused", got, pid)
		}
	})
}

// TestWaitHonoursContext: with every worker busy, a call waits for one
// until its context is done.
func TestWaitHonoursContext(t *testing.T) {
	t.Parallel()
	r := newRec(t, Config{Engine: "crashy", Processes: 1})
	busy, release := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := r.Recognize(busy, magicAudio(actWaitCancel), transcribe.RecognizeOptions{})
		done <- err
	}()
	eventually(t, "the first call holds the worker", func() bool { return r.Stats().Idle == 0 })
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := r.Recognize(c, magicAudio(actNothing), transcribe.RecognizeOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting call: err = %v, want context.DeadlineExceeded", err)
	}
	if _, err := r.NewStream(c, transcribe.StreamOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting NewStream: err = %v, want context.DeadlineExceeded", err)
	}
	if s := r.Stats(); s.Processes != 1 {
		t.Errorf("%d workers alive, Processes is 1", s.Processes)
	}
	release()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("first call: %v", err)
	}
}

// TestIdleShutdown: workers unused for IdleTimeout exit, and a later call
// starts a new one.
func TestIdleShutdown(t *testing.T) {
	t.Parallel()
	r := newRec(t, Config{Engine: "quiet", Processes: 2, IdleTimeout: 300 * time.Millisecond})
	if err := r.Warm(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	pids := r.p.pids()
	if len(pids) != 2 {
		t.Fatalf("workers after Warm(2): %v", pids)
	}
	eventually(t, "idle workers stop", func() bool {
		return r.Stats().Processes == 0 && !alive(pids[0]) && !alive(pids[1])
	})
	rec, err := r.Recognize(context.Background(), make([]int16, 5), transcribe.RecognizeOptions{})
	if err != nil || rec.Model != "quiet-5" {
		t.Fatalf("after idle shutdown: %v, %v", rec, err)
	}
	if s := r.Stats(); s.Started != 3 {
		t.Errorf("Started = %d, want 3", s.Started)
	}
}

// TestReapUsesClock: idle time is measured with Config.Now.
func TestReapUsesClock(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	r := newRec(t, Config{Engine: "quiet", Processes: 1, IdleTimeout: time.Hour, Now: clock})
	pid := r.p.pids()[0]
	r.p.reap(now.Add(59 * time.Minute))
	if !alive(pid) || r.Stats().Processes != 1 {
		t.Fatalf("worker idle for 59 minutes of a 1 h timeout was stopped")
	}
	r.p.reap(now.Add(time.Hour))
	eventually(t, "the worker idle for 1 h stops", func() bool { return !alive(pid) })
	if s := r.Stats(); s.Processes != 0 {
		t.Errorf("Stats after reaping: %+v", s)
	}
}

// TestCloseStopsEveryChild: Close stops idle and busy workers alike and
// leaves no process behind; calls cut off get ErrClosed, later calls too.
func TestCloseStopsEveryChild(t *testing.T) {
	t.Parallel()
	r, err := New(Config{Engine: "crashy", Processes: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Warm(ctx, 3); err != nil {
		t.Fatal(err)
	}
	pids := r.p.pids()
	hung := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := r.Recognize(ctx, magicAudio(actHang), transcribe.RecognizeOptions{})
			hung <- err
		}()
	}
	eventually(t, "two workers busy", func() bool { return r.Stats().Idle == 1 })
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("worker %d alive after Close", pid)
		}
	}
	for range 2 {
		if err := <-hung; !errors.Is(err, ErrClosed) || !errors.Is(err, transcribe.ErrClosed) || errors.Is(err, transcribe.ErrEngineCrashed) {
			t.Errorf("call cut off by Close: %v, want ErrClosed (a transcribe.ErrClosed, not a crash)", err)
		}
	}
	if _, err := r.Recognize(ctx, nil, transcribe.RecognizeOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Recognize after Close: %v", err)
	}
	if _, err := r.NewStream(ctx, transcribe.StreamOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("NewStream after Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if kids := children(t); len(kids) > 0 {
		// Other parallel tests may own workers; ours must not be among them.
		for _, k := range kids {
			if slices.Contains(pids, k) {
				t.Errorf("worker %d is still a child of the test", k)
			}
		}
	}
}

// children lists the live child processes of this process.
func children(t *testing.T) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []int
	me := strconv.Itoa(os.Getpid())
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == me && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestWorkersDieWithHost: when the host is killed with SIGKILL (no chance
// to clean up), its workers die too (Pdeathsig).
func TestWorkersDieWithHost(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envTestHost+"=1")
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	defer in.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		pid, err := strconv.Atoi(sc.Text())
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("host said %q", sc.Text())
		}
		pids = append(pids, pid)
	}
	if len(pids) != 2 {
		cmd.Process.Kill()
		t.Fatalf("host started workers %v, want 2", pids)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("worker %d not running", pid)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	eventually(t, "workers die with their host", func() bool { return !alive(pids[0]) && !alive(pids[1]) })
}

// TestStrayStdout: an engine printing to stdout cannot corrupt the
// protocol; the text reaches the Logger.
func TestStrayStdout(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	r := newRec(t, Config{Engine: "crashy", Processes: 1, Logger: logTo(&log)})
	rec, err := r.Recognize(context.Background(), magicAudio(actStdout), transcribe.RecognizeOptions{})
	if err != nil || rec.Model != "crashy" {
		t.Fatalf("Recognize: %v, %v", rec, err)
	}
	eventually(t, "the chatter is logged", func() bool {
		return strings.Contains(log.String(), "native library chatter on stdout")
	})
}
