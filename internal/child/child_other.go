//go:build !linux

// Package child starts the processes lockstorm runs (redis-server nodes,
// process clients) so that they die with the harness, and waits for a
// stop signal to take effect.
package child

import (
	"os/exec"
	"syscall"
)

// Start starts cmd in its own process group. Without Linux's parent-death
// signal, children outlive a harness killed with SIGKILL; cluster.StopAll
// and the stale-directory sweep of the local provider are the clean-up.
func Start(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Start()
}

// WaitStopped is a no-op where /proc is not available.
func WaitStopped(pid int, stopped bool) {}
