//go:build linux

// Package child starts the processes lockstorm runs (redis-server nodes,
// process clients) so that they die with the harness, and waits for a
// stop signal to take effect.
package child

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// spawnReq asks the spawner thread to start a command.
type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

var spawnCh = make(chan spawnReq)

// The parent-death signal fires when the OS thread that started the child
// exits, not the process (golang/go#27505). Every child is therefore
// started from one goroutine locked to its thread for the life of the
// process, so the signal fires exactly when the harness process dies.
func init() {
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the process
		for r := range spawnCh {
			r.done <- r.cmd.Start()
		}
	}()
}

// Start starts cmd in its own process group (a signal to the group reaches
// whatever the child starts, and a terminal's Ctrl-C reaches only the
// harness, which then stops its children in order), killed with SIGKILL
// if the harness dies.
func Start(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	r := spawnReq{cmd: cmd, done: make(chan error, 1)}
	spawnCh <- r
	return <-r.done
}

// WaitStopped waits, up to 1 s, until the kernel reports pid stopped
// (state T in /proc/<pid>/stat) when stopped is true, or running when it
// is false, so that a SIGSTOP or SIGCONT has taken effect when it returns.
func WaitStopped(pid int, stopped bool) {
	for range 200 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		s := string(b) // the state follows the parenthesised command name
		j := strings.LastIndexByte(s, ')')
		if j < 0 || j+2 >= len(s) {
			return
		}
		if st := s[j+2]; (st == 'T' || st == 't') == stopped {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
