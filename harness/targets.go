package harness

import (
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// targetWait bounds how long a targeted fault waits for a client in the
// wanted state (between two holders, nobody holds for a moment).
const targetWait = 3 * time.Second

// resolve replaces the client placeholders of a fault (nemesis.TargetHolder,
// nemesis.TargetWaiter) with the client that holds, or waits for, the lock
// now, judged from the history so far. When no client is in that state it
// polls for up to targetWait, then takes the first client, so the fault
// still happens (its record names the client it hit).
func (r *run) resolve(f nemesis.Fault) nemesis.Fault {
	var out []string
	changed := false
	for _, c := range f.Clients {
		switch c {
		case nemesis.TargetHolder, nemesis.TargetWaiter:
			out = append(out, r.awaitClient(c == nemesis.TargetHolder))
			changed = true
		default:
			out = append(out, c)
		}
	}
	if changed {
		f.Clients = out
		f.Links = nil // recomputed from the clients
	}
	return f
}

// awaitClient polls clientIn until it finds a client or targetWait passes.
func (r *run) awaitClient(holding bool) string {
	deadline := time.Now().Add(targetWait)
	for {
		if c, ok := r.clientIn(holding); ok || time.Now().After(deadline) {
			return c
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// clientIn returns a client whose current process holds the lock
// (holding) or waits in acquire (!holding); the earliest-waiting one for
// waiters. With none, it returns the first client and false.
func (r *run) clientIn(holding bool) (string, bool) {
	type state struct {
		holds   bool
		waiting bool
		since   int64
	}
	procs := map[int]*state{}
	for _, op := range r.rec.History() {
		if op.IsNemesis() {
			continue
		}
		s := procs[op.Process]
		if s == nil {
			s = &state{}
			procs[op.Process] = s
		}
		switch {
		case op.F == history.FAcquire && op.Type == history.Invoke:
			s.waiting, s.since = true, op.Time
		case op.F == history.FAcquire:
			s.waiting = false
			s.holds = op.Type == history.OK
		case op.F == history.FRelease && op.Type == history.Invoke, op.F == history.FLost:
			s.holds = false
		}
	}
	best, bestSince := "", int64(-1)
	for _, sl := range r.slots {
		s := procs[sl.worker.Process()]
		if s == nil {
			continue
		}
		if holding && s.holds {
			return sl.name, true
		}
		if !holding && s.waiting && (bestSince < 0 || s.since < bestSince) {
			best, bestSince = sl.name, s.since
		}
	}
	if best != "" {
		return best, true
	}
	return r.slots[0].name, false
}
