//go:build !linux

package procclient

import (
	"os/exec"
	"syscall"
)

// startChild starts cmd in its own process group. Without Linux's
// parent-death signal, a client outlives a harness killed with SIGKILL.
func startChild(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Start()
}

// waitStopped is a no-op where /proc is not available.
func waitStopped(pid int) {}
