package procclient

import (
	"fmt"
	"syscall"

	"github.com/lockstorm/lockstorm/internal/child"
)

// Pause stops the client's process group with SIGSTOP, waits until the
// process is stopped, then pauses Clock: the grace after a request's
// timeout does not run while the process cannot answer.
func (c *Client) Pause() error {
	if err := c.signalGroup(syscall.SIGSTOP); err != nil {
		return err
	}
	child.WaitStopped(c.pid, true)
	c.cfg.Clock.Pause()
	return nil
}

// SignalStop sends SIGSTOP to the client's process group and returns at
// once: the fastest way to keep it from sending its next command. Pause
// (which sends it again) then waits until it is stopped.
func (c *Client) SignalStop() error { return c.signalGroup(syscall.SIGSTOP) }

// Resume resumes Clock, then continues the client's process group with
// SIGCONT.
func (c *Client) Resume() error {
	c.cfg.Clock.Resume()
	return c.signalGroup(syscall.SIGCONT)
}

// errReaped: the process was already waited for, so its group is not
// signalled (its id may belong to another process by now).
var errReaped = fmt.Errorf("%w: process already exited", ErrBroken)

// signalGroup sends sig to the client's process group, unless the process
// was reaped.
func (c *Client) signalGroup(sig syscall.Signal) error {
	c.sigMu.Lock()
	defer c.sigMu.Unlock()
	if c.reaped {
		return fmt.Errorf("%s: %v: %w", c.who(), sig, errReaped)
	}
	if err := syscall.Kill(-c.pid, sig); err != nil {
		return fmt.Errorf("procclient: %s: %v to its process group: %w", c.who(), sig, err)
	}
	return nil
}

// killGroup sends SIGKILL to the process group; an exited process is no
// error.
func (c *Client) killGroup() {
	c.signalGroup(syscall.SIGKILL)
}
