//go:build !unix

package isolate

import (
	"os"
	"syscall"
)

const supported = false

func workerPipes() (*os.File, *os.File, error) { return nil, nil, errUnsupported }

func selfExecutable() string {
	p, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return p
}

func killTree(p *os.Process) { _ = p.Kill() }

func sysProcAttr() *syscall.SysProcAttr { return nil }

func exitSignal(st *os.ProcessState) (string, int) {
	if st == nil {
		return "", -1
	}
	return "", st.ExitCode()
}
