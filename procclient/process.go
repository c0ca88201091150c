package procclient

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// closeWait is how long Close lets a client exit after closing its stdin.
const closeWait = 2 * time.Second

// Kill sends SIGKILL to the client's process group (a stopped one too),
// waits until the process is reaped and its pipes closed, and resumes
// Clock. Requests in flight end unknown; Broken closes.
func (c *Client) Kill() error {
	c.breakWith(errors.New("killed by the harness"), false)
	err := c.signalGroup(syscall.SIGKILL)
	c.cfg.Clock.Resume()
	<-c.done
	if errors.Is(err, errReaped) || errors.Is(err, syscall.ESRCH) {
		err = nil
	}
	return err
}

// Close ends the client: it continues a stopped process group, resumes
// Clock and closes the client's stdin; a client that has not exited 2 s
// later is killed with its group. Requests still in flight when it exits
// end unknown; Broken closes. Close always reaps the process, leaves no
// process of the group and no goroutine behind, and is idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.cfg.Clock.Resume()
		c.signalGroup(syscall.SIGCONT)
		c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(closeWait):
			c.breakWith(fmt.Errorf("did not exit within %v of its stdin closing: killed", closeWait), true)
			c.killGroup()
		}
		<-c.done
		c.orphans.Wait()
	})
	return nil
}

// wait reaps the process, breaks the client with how it ended, kills what
// is left of its group and, once both readers are done, closes the pipes.
func (c *Client) wait() {
	err := c.cmd.Wait()
	c.sigMu.Lock()
	c.reaped = true
	c.sigMu.Unlock()
	c.status = exitStatus(err)
	close(c.exited)
	// Answers written just before the exit are still in the pipe: let the
	// reader settle them before the calls still open end unknown.
	select {
	case <-c.readerDone:
	case <-time.After(exitReportDelay):
	}
	if c.closing.Load() {
		c.breakWith(fmt.Errorf("closed by the harness: %s", c.status), false)
	} else {
		c.breakWith(fmt.Errorf("%s while %d requests were in flight", c.status, c.conn.Open()), true)
	}
	// The group's other processes, if any, hold the pipes open: end them.
	// The group outlives its leader, so its id is not reused meanwhile.
	syscall.Kill(-c.pid, syscall.SIGKILL)
	select {
	case <-c.readerDone:
	case <-time.After(time.Second): // a process that left the group holds stdout
	}
	c.stdout.Close()
	c.stderr.Close()
	<-c.readerDone
	<-c.stderrDone
	c.stdin.Close()
	close(c.done)
}

// exitStatus says how a process ended, from cmd.Wait's error.
func exitStatus(err error) string {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return fmt.Sprintf("ended (wait: %v)", err)
		}
		return "exited with status 0"
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ee.ExitCode())
}
