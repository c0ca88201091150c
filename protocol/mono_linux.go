//go:build linux

package protocol

import (
	"syscall"
	"unsafe"
)

// clockMonotonic is Linux's CLOCK_MONOTONIC: one clock for every process
// of a host (and its containers), which Python's time.monotonic_ns and
// PHP's hrtime read too.
const clockMonotonic = 1

// MonoNow is CLOCK_MONOTONIC in ns, 0 where it cannot be read (see
// Answer.MonoNS).
func MonoNow() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return ts.Nano()
}
