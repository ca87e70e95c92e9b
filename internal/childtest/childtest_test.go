package childtest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ebitengine/purego"

	"github.com/earshot-dev/earshot/internal/childtest"
)

// cStrlen is libc's strlen, called on a bad address to fault in C code
// exactly as a crashing native library does.
func cStrlen(t *testing.T, p uintptr) uintptr {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Fatalf("loading libc: %v", err)
	}
	var strlen func(p uintptr) uintptr
	purego.RegisterLibFunc(&strlen, libc, "strlen")
	return strlen(p)
}

// expect runs the child for t and checks how it ended.
func expect(t *testing.T, opts childtest.Options, check func(r *childtest.Result, err error)) {
	t.Helper()
	r := opts.Exec(t)
	err := r.Err()
	if err != nil && !errors.Is(err, childtest.ErrChildFailed) {
		t.Errorf("error %v does not wrap ErrChildFailed", err)
	}
	check(r, err)
	if t.Failed() {
		t.Logf("child output:\n%s", r.Output)
	}
}

func TestRunPassesInAChildProcess(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	childtest.Options{Env: []string{"CHILDTEST_PIDFILE=" + pidFile}}.Run(t, func(t *testing.T) {
		if err := os.WriteFile(os.Getenv("CHILDTEST_PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if childtest.InChild(t) {
		return
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the body did not run in the child: %v", err)
	}
	if pid, _ := strconv.Atoi(string(b)); pid == os.Getpid() || pid == 0 {
		t.Errorf("body ran in pid %s, the parent is %d", b, os.Getpid())
	}
}

func TestSegfaultInCIsNamed(t *testing.T) {
	t.Parallel()
	if childtest.InChild(t) {
		t.Log("calling strlen(8)")
		cStrlen(t, 8) // reads address 8: SIGSEGV in libc
		return
	}
	expect(t, childtest.Options{}, func(r *childtest.Result, err error) {
		if r.Signal != "SIGSEGV" || !r.CgoCrash || !r.Started || r.Finished {
			t.Errorf("result: signal %q cgo %v started %v finished %v", r.Signal, r.CgoCrash, r.Started, r.Finished)
		}
		if err == nil || !strings.Contains(err.Error(), "child died with SIGSEGV (segmentation violation); signal arrived during cgo execution") {
			t.Errorf("error: %v", err)
		}
		// The excerpt shows what the test logged, then the runtime's crash
		// report with the faulting call's stack.
		var ce *childtest.Error
		if !errors.As(err, &ce) {
			t.Fatalf("error %T is not a *childtest.Error", err)
		}
		logged := strings.Index(ce.Excerpt, "calling strlen(8)")
		report := strings.Index(ce.Excerpt, "\nSIGSEGV: segmentation violation\n")
		if logged < 0 || report < logged || !strings.Contains(ce.Excerpt[report:], "cStrlen") {
			t.Errorf("excerpt does not show the log, then the crash and its stack:\n%s", ce.Excerpt)
		}
	})
}

func TestSegfaultWithTracebackCrash(t *testing.T) {
	t.Parallel()
	if childtest.InChild(t) {
		cStrlen(t, 8)
		return
	}
	// GOTRACEBACK=crash makes the runtime re-raise SIGABRT after its
	// report; the report's signal is the cause.
	expect(t, childtest.Options{Env: []string{"GOTRACEBACK=crash"}}, func(r *childtest.Result, err error) {
		if r.Signal != "SIGSEGV" || err == nil || !strings.Contains(err.Error(), "child died with SIGSEGV") {
			t.Errorf("signal %q, error %v", r.Signal, err)
		}
	})
}

func TestKilledBySignal(t *testing.T) {
	t.Parallel()
	if childtest.InChild(t) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
		return
	}
	expect(t, childtest.Options{}, func(r *childtest.Result, err error) {
		if r.Signal != "SIGKILL" || r.ExitCode != -1 || err == nil || !strings.Contains(err.Error(), "child died with SIGKILL (killed)") {
			t.Errorf("signal %q exit %d error %v", r.Signal, r.ExitCode, err)
		}
	})
}

func TestExitInTheMiddle(t *testing.T) {
	t.Parallel()
	if childtest.InChild(t) {
		os.Exit(3) // as a C library calling exit(3) would
	}
	expect(t, childtest.Options{}, func(r *childtest.Result, err error) {
		if r.ExitCode != 3 || !r.Started || r.Finished || err == nil || !strings.Contains(err.Error(), "child died with exit status 3 before the test finished") {
			t.Errorf("exit %d started %v finished %v error %v", r.ExitCode, r.Started, r.Finished, err)
		}
	})
}

func TestFailureIsReportedWithItsMessage(t *testing.T) {
	t.Parallel()
	if childtest.InChild(t) {
		t.Error("the thing is broken")
		return
	}
	expect(t, childtest.Options{}, func(r *childtest.Result, err error) {
		if !r.Finished || r.Signal != "" || err == nil || !strings.Contains(err.Error(), "child test failed (exit status 1)") || !strings.Contains(err.Error(), "the thing is broken") {
			t.Errorf("finished %v signal %q error %v", r.Finished, r.Signal, err)
		}
	})
}

func TestPanicIsAFailure(t *testing.T) {
	t.Parallel()
	if childtest.InChild(t) {
		panic("boom")
	}
	expect(t, childtest.Options{}, func(r *childtest.Result, err error) {
		if r.Signal != "" || err == nil || !strings.Contains(err.Error(), "panic: boom") {
			t.Errorf("signal %q error %v", r.Signal, err)
		}
	})
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	if childtest.InChild(t) {
		time.Sleep(time.Minute)
		return
	}
	expect(t, childtest.Options{Timeout: 2 * time.Second}, func(r *childtest.Result, err error) {
		if !r.TimedOut || r.Duration > 30*time.Second || err == nil || !strings.Contains(err.Error(), "child timed out") {
			t.Errorf("timed out %v after %v, error %v", r.TimedOut, r.Duration, err)
		}
	})
}

func TestTestThatDoesNotMarkItself(t *testing.T) {
	t.Parallel()
	if os.Getenv(childtest.EnvVar) != "" {
		return // a child that never calls InChild
	}
	expect(t, childtest.Options{}, func(r *childtest.Result, err error) {
		if r.Started || err == nil || !strings.Contains(err.Error(), "child ran no test") {
			t.Errorf("started %v error %v", r.Started, err)
		}
	})
}

func TestSubtests(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"plain", "with space", "regexp.*[chars]"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := t.Name()
			childtest.Run(t, func(t *testing.T) {
				if os.Getenv(childtest.EnvVar) != want || t.Name() != want {
					t.Errorf("child for %q ran %q", os.Getenv(childtest.EnvVar), t.Name())
				}
			})
		})
	}
}

func TestExecInsideChildIsRefused(t *testing.T) {
	t.Parallel()
	childtest.Run(t, func(t *testing.T) {
		r := childtest.Options{}.Exec(t)
		if r.StartErr == nil || r.Err() == nil {
			t.Errorf("nested Exec: %+v", r)
		}
	})
}

func TestRunPattern(t *testing.T) {
	for in, want := range map[string]string{
		"TestX":           "^TestX$",
		"TestX/sub":       "^TestX$/^sub$",
		"TestX/a.b_(1)/c": `^TestX$/^a\.b_\(1\)$/^c$`,
	} {
		if got := childtest.RunPattern(in); got != want {
			t.Errorf("RunPattern(%q) = %q, want %q", in, got, want)
		}
	}
}
