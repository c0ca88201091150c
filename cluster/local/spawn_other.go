//go:build !linux

package local

import (
	"os/exec"
	"syscall"
)

// startChild starts cmd in its own process group. Without Linux's
// parent-death signal, children outlive a harness killed with SIGKILL;
// cluster.StopAll and the stale-directory sweep of Start are the clean-up.
func startChild(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Start()
}

// waitStopped is a no-op where /proc is not available.
func waitStopped(pid int, stopped bool) {}
