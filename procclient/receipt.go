package procclient

import (
	"time"

	"github.com/lockstorm/lockstorm/protocol"
)

// receipt is when the reader took a line from the client: on this
// process's clock and on CLOCK_MONOTONIC (0 if unreadable).
type receipt struct {
	at   time.Time
	mono int64
}

func receiptNow() receipt { return receipt{time.Now(), protocol.MonoNow()} }

// measured is when the client measured a validity it reported with mono
// (its mono_ns; 0: not reported): mono mapped onto this process's clock,
// kept within [earliest, the receipt]. Without mono it is the receipt,
// which a busy harness reads late, stretching the lease by the delay: a
// client on another host's clock is kept inside the same bounds.
func (r receipt) measured(mono int64, earliest time.Time) time.Time {
	if mono == 0 || r.mono == 0 {
		return r.at
	}
	at := r.at.Add(-time.Duration(r.mono - mono))
	switch {
	case at.After(r.at):
		return r.at
	case at.Before(earliest):
		return earliest
	}
	return at
}
