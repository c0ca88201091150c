// Package host answers the providers' questions about this machine: free
// ports, live processes, loopback addresses.
package host

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"
)

// MaxPortTries bounds how often a start is retried on a fresh port when
// another process grabbed the port between choosing and binding it.
const MaxPortTries = 5

// ReadyTimeout bounds how long a starting Redis server (process or
// container) may take to answer.
const ReadyTimeout = 15 * time.Second

// FreePort asks the kernel for a free 127.0.0.1 port.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cluster: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// OnFreePort calls start with a free 127.0.0.1 port, and again with
// another one while it fails because the port was taken (taken(err)),
// at most MaxPortTries times. It returns start's last error.
func OnFreePort(start func(port int) error, taken func(error) bool) error {
	var err error
	for try := 0; try < MaxPortTries; try++ {
		port, perr := FreePort()
		if perr != nil {
			return perr
		}
		if err = start(port); err == nil || !taken(err) {
			return err
		}
	}
	return err
}

// ProcessAlive reports whether a process with this pid exists (signal 0).
func ProcessAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// IsLoopbackAddr reports whether a "host:port" names the loopback
// interface: "localhost" or a loopback IP. Other names are not resolved.
func IsLoopbackAddr(addr string) (bool, error) {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if h == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback(), nil
}
