//go:build linux

package procclient

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
// exits, not the process (golang/go#27505): children are started from one
// goroutine locked to its thread for the life of the process, so a client
// dies with SIGKILL exactly when the harness dies.
func init() {
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives as long as the process
		for r := range spawnCh {
			r.done <- r.cmd.Start()
		}
	}()
}

// startChild starts cmd in its own process group (so that a signal to the
// group reaches whatever the client starts), killed if the harness dies.
func startChild(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	r := spawnReq{cmd: cmd, done: make(chan error, 1)}
	spawnCh <- r
	return <-r.done
}

// waitStopped waits, up to 1s, until the kernel reports pid stopped
// (state T in /proc/<pid>/stat), so that a Pause has taken effect when it
// returns.
func waitStopped(pid int) {
	for range 200 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		s := string(b) // the state follows the parenthesised command name
		j := strings.LastIndexByte(s, ')')
		if j < 0 || j+2 >= len(s) || s[j+2] == 'T' || s[j+2] == 't' {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
