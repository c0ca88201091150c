package analysis

import (
	"cmp"
	"maps"
	"slices"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/lease"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// Kinds of violation the live counter finds while a run goes on, named
// as the checkers' anomalies: every one it counts is one the checkers
// also report as fatal (it may count fewer, never one they do not find).
const (
	// LiveOverlap: an acquire (or an extend after a gap) succeeded while
	// another process's lease on the key was still held in its client's
	// view (as checker.Exclusion).
	LiveOverlap = "overlap"
	// LiveWriteAfterValidity: an accepted write invoked outside its
	// process's lease that checker.LateWriteFatal judges fatal.
	LiveWriteAfterValidity = checker.KindLateWrite
	// LiveLostUpdate: two acknowledged writes of one value to one key.
	LiveLostUpdate = "lost-update"
	// LiveStaleWrite: the resource accepted a write with a fencing token
	// below one it had accepted before.
	LiveStaleWrite = "stale-write-accepted"
	// LiveAPIOverlap: two callers inside the rate-limited API at once.
	LiveAPIOverlap = "api-overlap"
	// LiveStuck: checker.StuckWatch's stuck lock, when recovery is
	// required.
	LiveStuck = "lock-stuck"
)

// LiveCounter counts violations one history record (and resource log
// entry) at a time, each costing time in the leases live on its key.
type LiveCounter struct {
	ops    history.Pairer            // the open invokes
	leases *lease.Tracker            // the checkers' lease model, forgetting ended leases
	byKey  map[string][]*lease.Lease // leases possibly still held, per key
	listed map[*lease.Lease]bool     // the leases in byKey
	late   map[int]bool              // process -> its open write was invoked outside its lease
	acked  map[string]*ackedValues   // key -> values of acknowledged writes
	writes int                       // resource log entries seen
	fenced bool                      // the resource enforces fencing (Config.Fencing)
	fences map[string]int64          // resource key -> highest token of a fenced read or write ok so far
	before map[int]int64             // process -> fences[key] when its open write was invoked
	stuck  *checker.StuckWatch       // nil when recovery is not required

	counts map[string]int
}

// NewLiveCounter counts with cfg's lease options (LeaseOptions).
func NewLiveCounter(cfg config.Config) *LiveCounter {
	opt := LeaseOptions(cfg)
	opt.Forget = true
	c := &LiveCounter{leases: lease.NewTracker(opt), byKey: map[string][]*lease.Lease{}, listed: map[*lease.Lease]bool{},
		late: map[int]bool{}, acked: map[string]*ackedValues{},
		counts: map[string]int{}, fenced: cfg.Fencing, fences: map[string]int64{}, before: map[int]int64{}}
	if !cfg.SkipRecoveryCheck {
		c.stuck = checker.NewStuckWatch(0) // as checkersWith's Liveness: NeverFreedAfter unset
	}
	return c
}

// Total is the number of violations counted so far.
func (c *LiveCounter) Total() int {
	n := 0
	for _, k := range c.counts {
		n += k
	}
	return n
}

// Snapshot copies the counts by kind (nil when none).
func (c *LiveCounter) Snapshot() map[string]int {
	if len(c.counts) == 0 {
		return nil
	}
	return maps.Clone(c.counts)
}

// Add takes the next history record.
func (c *LiveCounter) Add(op history.Op) {
	if c.stuck != nil {
		if _, found := c.stuck.Add(&op); found {
			c.counts[LiveStuck]++
		}
	}
	if op.IsNemesis() {
		return
	}
	for _, e := range c.leases.Add(&op) {
		c.leaseEvent(e)
	}
	paired, ok := c.ops.Add(&op)
	if op.F == history.FLost {
		return
	}
	if op.Type == history.Invoke {
		if op.F == history.FWrite {
			c.late[op.Process] = !c.holds(op.Process, op.Time)
			c.before[op.Process] = c.fences[op.Key]
		}
		return
	}
	inv := op // a completion without its invoke: use what it says
	if ok && paired.Completion != nil && paired.Invoke.F == op.F {
		inv = *paired.Invoke
	}
	if fence := max(op.Fence, inv.Fence); op.Type == history.OK && fence != 0 && (op.F == history.FRead || op.F == history.FWrite) {
		key := cmp.Or(op.Key, inv.Key)
		c.fences[key] = max(c.fences[key], fence)
	}
	if op.F == history.FWrite {
		late, before := c.late[op.Process], c.before[op.Process]
		delete(c.late, op.Process)
		delete(c.before, op.Process)
		if op.Type != history.OK {
			return
		}
		key, v, fence := cmp.Or(op.Key, inv.Key), cmp.Or(op.Value, inv.Value), cmp.Or(op.Fence, inv.Fence)
		if late && checker.LateWriteFatal(c.fenced, fence, before) {
			c.counts[LiveWriteAfterValidity]++
		}
		seen := c.acked[key]
		if seen == nil {
			seen = &ackedValues{set: map[int64]bool{}}
			c.acked[key] = seen
		}
		if !seen.add(v) {
			c.counts[LiveLostUpdate]++
		}
	}
}

// leaseEvent counts, when a lease starts or is renewed after a gap, an
// overlap with each other process's lease on its key held then.
func (c *LiveCounter) leaseEvent(e lease.Event) {
	l := e.Lease
	switch e.Kind {
	case lease.Started:
		c.overlaps(l, e.At)
	case lease.Extended:
		if !heldAt(l, l.Segments[:len(l.Segments)-1], e.At) {
			c.overlaps(l, e.At)
		}
	default:
		return
	}
	if !c.listed[l] {
		c.listed[l] = true
		c.byKey[l.Key] = append(c.byKey[l.Key], l)
	}
}

// heldAt reports whether the holder of l believed it held l at t by its
// segments segs: not cut, and a segment ends after t.
func heldAt(l *lease.Lease, segs [][2]int64, t int64) bool {
	return l.CutBy == "" && slices.ContainsFunc(segs, func(s [2]int64) bool { return s[1] > t })
}

// overlaps counts the other processes' leases on l's key held at t, and
// drops from the key's list the leases no longer held.
func (c *LiveCounter) overlaps(l *lease.Lease, t int64) {
	list := c.byKey[l.Key]
	kept := list[:0]
	for _, o := range list {
		if !heldAt(o, o.Segments, t) {
			delete(c.listed, o)
			continue
		}
		kept = append(kept, o)
		if o != l && o.Process != l.Process {
			c.counts[LiveOverlap]++
		}
	}
	clear(list[len(kept):])
	c.byKey[l.Key] = kept
}

// holds reports whether process p believed it held its latest lease at t
// (its validity's last instant included).
func (c *LiveCounter) holds(p int, t int64) bool {
	ls := c.leases.Of(p)
	return len(ls) > 0 && heldAt(ls[len(ls)-1], ls[len(ls)-1].Segments, t-1)
}

// Writes is the number of resource log entries counted so far.
func (c *LiveCounter) Writes() int { return c.writes }

// AddLogged counts the resource log entries ws not seen yet, ws[0] being
// entry number from of the log (resource.Server.WritesSince).
func (c *LiveCounter) AddLogged(ws []resource.Write, from int) {
	for _, w := range ws[min(max(c.writes-from, 0), len(ws)):] {
		switch {
		case w.Enter && w.Callers > 1:
			c.counts[LiveAPIOverlap]++
		case !w.Enter && !w.Read && w.Fence != 0 && w.Stale && w.Accepted:
			c.counts[LiveStaleWrite]++
		}
	}
	c.writes = max(c.writes, from+len(ws))
}
