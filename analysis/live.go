package analysis

import (
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/lease"

	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// Kinds of violation the live counter finds while a run goes on. The
// names are the checkers' anomaly kinds, so the live count and the final
// check speak the same language; the checkers (run after the run) are the
// judges, the live count a sound early warning: every violation it counts
// is one the checkers also report as fatal (it may count fewer, or count
// one checker anomaly more than once, never one the checkers do not find).
const (
	// LiveOverlap: two holders by the clients' own view. An acquire (or an
	// extend after a gap) succeeded while another process's lease on the
	// same key was, in its client's view, still held: not released, not
	// signalled lost, its validity not passed (as checker.Exclusion).
	LiveOverlap = "overlap"
	// LiveWriteAfterValidity: a write the resource accepted that its
	// process invoked outside its lease (after its validity, after it was
	// released or signalled lost, or with no lease at all), and that
	// checker.LateWriteFatal judges fatal (under fencing: a fenced read or
	// write with a newer token had returned ok before it was invoked).
	LiveWriteAfterValidity = checker.KindLateWrite
	// LiveLostUpdate: two writes of the same value to the same key, both
	// acknowledged: the counter workload writes read+1, so one increment
	// is lost (as checker.Resource).
	LiveLostUpdate = "lost-update"
	// LiveStaleWrite: the resource accepted a write whose fencing token
	// was below one it had accepted before (its own log).
	LiveStaleWrite = "stale-write-accepted"
	// LiveAPIOverlap: two callers inside the rate-limited API at once
	// (api workload; the resource's own count).
	LiveAPIOverlap = "api-overlap"
	// LiveStuck: the lock was not granted on a key for the span after its
	// last lease ran out while acquires kept failing and no fault was in
	// effect (lock never freed, or a stuck queue): checker.StuckWatch, the
	// liveness checker's own rule, fed the same records, so counted at the
	// record the final check names. Only when recovery is required
	// (Config.SkipRecoveryCheck unset), where it is fatal.
	LiveStuck = "lock-stuck"
)

// liveLease is one lease as its client saw it.
type liveLease struct {
	key, token string
	process    int
	// end is the latest end of its client's belief (ns since the run's
	// start) over the segments seen so far: the acquire's and each
	// extend's validity; noEnd when the lease has no known end.
	end   int64
	noEnd bool
	// cut is set by a release invoke or a lost signal: from then on the
	// client no longer believes it holds the lease.
	cut bool
	// listed is true while the lease is in LiveCounter.byKey.
	listed bool
}

// heldAt reports whether the client believed it held l at t.
func (l *liveLease) heldAt(t int64) bool { return !l.cut && (l.noEnd || l.end > t) }

// LiveCounter counts violations incrementally, one history record (and
// one resource log entry) at a time: each record costs time proportional
// to the leases live on its key, never a re-check of the history.
type LiveCounter struct {
	drift       time.Duration // the lock checker's drift allowance
	driftFactor float64

	ops     history.Pairer          // the open invokes
	byProc  map[int]*liveLease      // each process's latest lease
	byToken map[string]*liveLease   // key + "\x00" + token -> latest lease, until cut
	byKey   map[string][]*liveLease // leases possibly still held, per key
	late    map[int]bool            // process -> its open write was invoked outside its lease
	acked   map[string]*ackedValues // key -> values of acknowledged writes
	writes  int                     // resource log entries seen
	fenced  bool                    // the resource enforces fencing (Config.Fencing)
	fences  map[string]int64        // resource key -> highest token of a fenced read or write ok so far
	before  map[int]int64           // process -> fences[key] when its open write was invoked
	stuck   *checker.StuckWatch     // nil when recovery is not required

	counts map[string]int
}

// NewLiveCounter counts with cfg's drift allowance (for leases without a
// recorded validity, as the exclusion checker does).
func NewLiveCounter(cfg config.Config) *LiveCounter {
	l := lockChecker(cfg)
	c := &LiveCounter{drift: l.Drift, driftFactor: l.DriftFactor,
		byProc: map[int]*liveLease{}, byToken: map[string]*liveLease{},
		byKey: map[string][]*liveLease{}, late: map[int]bool{}, acked: map[string]*ackedValues{},
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
	out := make(map[string]int, len(c.counts))
	for k, n := range c.counts {
		out[k] = n
	}
	return out
}

// believedEnd is the end of the client's belief for a segment begun by
// the ok record o of an op invoked at call: its Validity, else call + TTL
// minus the drift allowance, else no end (as checker.Exclusion).
func (c *LiveCounter) believedEnd(o history.Op, call int64, ttl int64) (int64, bool) {
	switch {
	case o.Validity != 0:
		return o.Validity, true
	case ttl > 0:
		allow := int64(lease.Allowance(time.Duration(ttl), c.drift, c.driftFactor))
		return max(call+ttl-allow, call), true
	}
	return 0, false
}

// Add takes the next history record (records come in index order, their
// times non-decreasing).
func (c *LiveCounter) Add(op history.Op) {
	if c.stuck != nil {
		if _, found := c.stuck.Add(&op); found {
			c.counts[LiveStuck]++
		}
	}
	if op.IsNemesis() {
		return
	}
	if op.F == history.FLost {
		if op.Type == history.Invoke {
			c.cutLease(op)
		}
		return
	}
	paired, ok := c.ops.Add(&op)
	if op.Type == history.Invoke {
		switch op.F {
		case history.FWrite:
			c.late[op.Process] = !c.holds(op.Process, op.Time)
			c.before[op.Process] = c.fences[op.Key]
		case history.FRelease:
			c.cutLease(op)
		}
		return
	}
	inv := op // a completion without its invoke: use what it says
	if ok && paired.Completion != nil && paired.Invoke.F == op.F {
		inv = *paired.Invoke
	}
	if fence := max(op.Fence, inv.Fence); op.Type == history.OK && fence != 0 && (op.F == history.FRead || op.F == history.FWrite) {
		key := pick(op.Key, inv.Key)
		c.fences[key] = max(c.fences[key], fence)
	}
	switch op.F {
	case history.FAcquire:
		if op.Type == history.OK {
			c.acquired(op, inv)
		}
	case history.FExtend:
		if op.Type == history.OK {
			c.extended(op, inv)
		}
	case history.FWrite:
		late, before := c.late[op.Process], c.before[op.Process]
		delete(c.late, op.Process)
		delete(c.before, op.Process)
		if op.Type != history.OK {
			return
		}
		key, v := pick(op.Key, inv.Key), op.Value
		fence := op.Fence
		if fence == 0 {
			fence = inv.Fence
		}
		if late && checker.LateWriteFatal(c.fenced, fence, before) {
			c.counts[LiveWriteAfterValidity]++
		}
		if v == 0 {
			v = inv.Value
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

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// acquired adds a new lease, counting an overlap with each other
// process's lease on the key still held at this instant.
func (c *LiveCounter) acquired(op, inv history.Op) {
	key := pick(op.Key, inv.Key)
	l := &liveLease{key: key, token: pick(op.Token, inv.Token), process: op.Process}
	end, known := c.endOf(op, inv)
	l.end, l.noEnd = end, !known
	c.overlaps(l, op.Time)
	c.byProc[op.Process] = l
	if l.token != "" {
		c.byToken[key+"\x00"+l.token] = l
	}
	l.listed = true
	c.byKey[key] = append(c.byKey[key], l)
}

func (c *LiveCounter) endOf(op, inv history.Op) (int64, bool) {
	ttl := op.TTL
	if ttl == 0 {
		ttl = inv.TTL
	}
	return c.believedEnd(op, inv.Time, ttl)
}

// extended adds an extend's segment to its lease (found by token, else the
// process's own). A segment that starts after the lease's belief had
// ended starts a new interval: it may overlap another holder.
func (c *LiveCounter) extended(op, inv history.Op) {
	key, token := pick(op.Key, inv.Key), pick(op.Token, inv.Token)
	l := c.byToken[key+"\x00"+token]
	if l == nil {
		if l = c.byProc[op.Process]; l == nil || l.key != key || token != "" && l.token != token {
			return
		}
	}
	if l.cut {
		return
	}
	end, known := c.endOf(op, inv)
	if !l.heldAt(op.Time) {
		c.overlaps(l, op.Time)
	}
	if !known {
		l.noEnd = true
	} else if end > l.end {
		l.end = end
	}
	if !l.listed {
		l.listed = true
		c.byKey[key] = append(c.byKey[key], l)
	}
}

// overlaps counts the other processes' leases on l's key held at t, and
// drops from the key's list the leases no longer held.
func (c *LiveCounter) overlaps(l *liveLease, t int64) {
	list := c.byKey[l.key]
	kept := list[:0]
	for _, o := range list {
		if !o.heldAt(t) {
			o.listed = false
			continue
		}
		kept = append(kept, o)
		if o != l && o.process != l.process {
			c.counts[LiveOverlap]++
		}
	}
	clear(list[len(kept):])
	c.byKey[l.key] = kept
}

// cutLease ends the lease a release invoke or lost signal names: by key
// and token, else the process's own latest lease.
func (c *LiveCounter) cutLease(op history.Op) {
	var l *liveLease
	if op.Token != "" {
		l = c.byToken[op.Key+"\x00"+op.Token]
	}
	if l == nil {
		if l = c.byProc[op.Process]; l == nil || op.Token != "" && l.token != op.Token {
			return
		}
	}
	l.cut = true
	if c.byToken[l.key+"\x00"+l.token] == l {
		delete(c.byToken, l.key+"\x00"+l.token)
	}
}

// holds reports whether process p believed it held its latest lease at t
// (its validity's last instant included, as the exclusion checker's
// write check).
func (c *LiveCounter) holds(p int, t int64) bool {
	l := c.byProc[p]
	return l != nil && !l.cut && (l.noEnd || t <= l.end)
}

// addWrites takes the resource's log (its whole log so far; only entries
// not seen before are counted).
func (c *LiveCounter) addWrites(ws []resource.Write) { c.AddLogged(ws, 0) }

// Writes is the number of resource log entries counted so far: the
// entry number from which the next AddLogged needs the log.
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
