package realtime

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/adapters/isolate"
	"github.com/earshot-dev/earshot/adapters/pocketsphinx"
	"github.com/earshot-dev/earshot/transcribe"
)

// The test binary is also the binary of the isolated pocketsphinx workers
// that the admission tests run (as the server's are): the engine is
// registered in init and TestMain calls isolate.Main first, which in a
// worker serves and exits.
func init() {
	err := isolate.Register("pocketsphinx", isolate.JSONFactory(func(c pocketsphinx.Config) (transcribe.Recognizer, error) {
		return pocketsphinx.New(c)
	}))
	if err != nil {
		panic(err)
	}
}

func TestMain(m *testing.M) {
	isolate.Main()
	os.Exit(m.Run())
}

// isolatedRecognizer starts pocketsphinx in up to processes supervised
// worker processes of one decoder each, as the server runs its streaming
// pool by default, stopping idle workers after idle.
func isolatedRecognizer(t testing.TB, processes int, idle time.Duration) *isolate.Recognizer {
	t.Helper()
	r, err := isolate.New(isolate.Config{
		Engine: "pocketsphinx", EngineConfig: pocketsphinx.Config{Decoders: 1},
		Processes: processes, IdleTimeout: idle,
	})
	if err != nil {
		t.Fatalf("isolated pocketsphinx: %v (install libpocketsphinx3 and pocketsphinx-en-us: ./scripts/setup.sh)", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// procTree is the CPU time and resident memory of this process and its
// child processes (the isolated workers), read from /proc (Linux).
type procTree struct {
	CPU      time.Duration // self, live children and reaped children
	RSS      int64         // bytes: self plus live children
	Children int
}

// clockTick is USER_HZ, the unit of utime and stime in /proc/PID/stat
// (100 on every Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

func readTree() procTree {
	var t procTree
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		t.CPU += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		t.CPU += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	t.RSS = statusRSS("/proc/self/status")
	for _, pid := range childPIDs() {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14 of stat
		st, _ := strconv.ParseInt(f[12], 10, 64) // field 15
		t.CPU += time.Duration(ut+st) * clockTick
		t.RSS += statusRSS("/proc/" + pid + "/status")
		t.Children++
	}
	return t
}

// childPIDs lists this process's children: /proc/self/task/*/children.
func childPIDs() []string {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var out []string
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// statusRSS returns VmRSS of a /proc/PID/status file in bytes.
func statusRSS(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// loadAvg returns the 1-minute load average of the machine, or -1.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}
