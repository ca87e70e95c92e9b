//go:build unix

package isolate

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

const supported = true

// Worker file descriptors: cmd.ExtraFiles puts the request pipe at 3 and
// the reply pipe at 4. Stdin is /dev/null and stdout joins stderr, so a
// native library that prints to stdout cannot corrupt the protocol.
const (
	fdRequests = 3
	fdReplies  = 4
)

func workerPipes() (*os.File, *os.File, error) {
	for _, fd := range []int{fdRequests, fdReplies} {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
			return nil, nil, fmt.Errorf("isolate: %s is set but file descriptor %d is not a pipe from the host; run this binary without it", envWorker, fd)
		}
		// Programs the engine starts must not hold the pipes open.
		syscall.CloseOnExec(fd)
	}
	return os.NewFile(fdRequests, "isolate-requests"), os.NewFile(fdReplies, "isolate-replies"), nil
}

// selfExecutable names the running binary. On Linux /proc/self/exe is the
// file this process was started from even if it has since been replaced
// (an upgrade) or removed, so workers always run the host's own code.
func selfExecutable() string {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe"
	}
	p, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return p
}

// killTree kills a worker and anything it started: workers lead their own
// process group (Setpgid), so signals from the terminal (Ctrl-C) reach only
// the host, which stops its workers itself.
func killTree(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}

// exitSignal returns the name of the signal that ended a process ("" if
// it exited) and its exit code (-1 for a signal).
func exitSignal(st *os.ProcessState) (string, int) {
	if st == nil {
		return "", -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = fmt.Sprintf("signal %d", int(ws.Signal()))
		}
		return name, -1
	}
	return "", st.ExitCode()
}
