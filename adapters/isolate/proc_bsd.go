//go:build unix && !linux

package isolate

import "syscall"

// sysProcAttr: a worker leads its own process group. Without Pdeathsig a
// worker notices a dead host when its request pipe reaches EOF.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
