package isolate

import "syscall"

// sysProcAttr: a worker leads its own process group and is killed by the
// kernel when the host dies (Pdeathsig), even by SIGKILL. Pdeathsig fires
// when the thread that started the child exits, so workers are started from
// one goroutine locked to its thread for the life of the process (spawn).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
