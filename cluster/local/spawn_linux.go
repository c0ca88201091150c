//go:build linux

package local

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// childAttr makes a child die with SIGKILL when the thread that started it
// exits, and puts it in its own process group so that a terminal's Ctrl-C
// reaches only the harness, which then stops the cluster in order.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// spawnReq asks the spawner thread to start a command.
type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

var spawnCh = make(chan spawnReq)

// The parent-death signal fires when the creating OS thread exits, not the
// process (see golang/go#27505). Every child is therefore started from one
// goroutine locked to its thread for the life of the process, so the signal
// fires exactly when the harness process dies.
func init() {
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the process
		for r := range spawnCh {
			r.done <- r.cmd.Start()
		}
	}()
}

// startChild starts cmd with childAttr from the spawner thread.
func startChild(cmd *exec.Cmd) error {
	cmd.SysProcAttr = childAttr()
	r := spawnReq{cmd: cmd, done: make(chan error, 1)}
	spawnCh <- r
	return <-r.done
}

// waitStopped waits until the kernel reports pid as stopped (state T in
// /proc/<pid>/stat), so that a Pause has taken effect when it returns.
func waitStopped(pid int, stopped bool) {
	for i := 0; i < 200; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		// The state follows the parenthesised command name.
		s := string(b)
		j := strings.LastIndexByte(s, ')')
		if j < 0 || j+2 >= len(s) {
			return
		}
		st := s[j+2]
		if (st == 'T' || st == 't') == stopped {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
