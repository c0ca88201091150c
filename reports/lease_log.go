package reports

import (
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// leaseLog is every lease of a run as the holders overview and
// fencing.png's issued tokens read them, in acquire order: filled record
// by record by a leaseTracker (36 bytes a lease).
type leaseLog struct {
	proc                        chunks[int32]
	start, end, validity, fence chunks[int64] // ns; fence 0: none
	// clashes are the pairs of leases (indices) of different processes
	// on one key believed held at once, and when.
	clashes []clash
}

// add logs a lease of process proc held from start to end (ns), valid
// to validity (0: no end) and carrying fencing token fence, and returns
// its index.
func (l *leaseLog) add(proc int, start, end, validity, fence int64) int {
	l.proc.add(int32(proc))
	l.end.add(end)
	l.validity.add(validity)
	l.fence.add(fence)
	return l.start.add(start)
}

// clash is two leases held at once from start to end (ns).
type clash struct {
	a, b       int32
	start, end int64
}

// leaseTracker follows the leases of a history record by record into a
// leaseLog, as holds has them from a history in memory (checker.Leases),
// but for an acquire whose outcome is unknown, which checker.Leases holds
// from a later extend by its token (a watchdog's), and a release, extend
// or lost notice recorded by another process than the acquiring one: the
// tracker sees neither. A lease is believed held from its
// acquire's ok to its process's release invoke, a lost notice of it, or
// the process's last record ("gone": seen when its client slot starts a
// new acquiring process, or at the end of the history); its validity is
// the latest the acquire or its extends reported, else the acquire's
// invoke time plus the TTL asked. Two leases of different processes on
// one key believed held at once are a clash. A lease of a process in no
// client slot is logged (its token was issued) but not followed: it has
// no row, and its process could never be seen gone. Memory besides the
// log is one lease per client slot, and the open pairs of leases held at
// once (at most maxOpenPairs per lease).
type leaseTracker struct {
	log      leaseLog
	slots    *slotTracker
	open     map[int]*streamLease // process -> its lease
	byKey    map[string]map[int]*streamLease
	slotProc map[int]int // slot -> its latest acquiring process
	invoked  map[int]int64
}

// maxOpenPairs bounds the other leases one lease is remembered to
// overlap until both end.
const maxOpenPairs = 1000

// streamLease is a lease being held, as leaseTracker follows it.
type streamLease struct {
	i          int // index in the log
	proc       int
	key, token string
	start      int64
	last       int64 // the process's latest record
	end        int64 // set once ended
	ended      bool
	with       []*streamLease // leases held at once, not both ended
}

func newLeaseTracker(slots *slotTracker) *leaseTracker {
	return &leaseTracker{slots: slots, open: map[int]*streamLease{}, byKey: map[string]map[int]*streamLease{},
		slotProc: map[int]int{}, invoked: map[int]int64{}}
}

// add follows one record.
func (s *leaseTracker) add(o *history.Op) {
	if o.IsNemesis() {
		return
	}
	l := s.open[o.Process]
	if l != nil {
		l.last = o.Time
	}
	switch {
	case o.F == history.FAcquire && o.Type == history.Invoke:
		s.acquiring(o)
	case o.F == history.FAcquire && o.Type == history.OK:
		invoked := s.invoked[o.Process]
		delete(s.invoked, o.Process)
		if l != nil {
			s.end(l, o.Time)
		}
		s.acquired(o, invoked)
	case o.F == history.FAcquire:
		delete(s.invoked, o.Process) // failed or unknown
	case o.F == history.FExtend && o.Type == history.OK:
		if l != nil && o.Validity > 0 && (o.Token == "" || o.Token == l.token) {
			v := s.log.validity.at(l.i)
			*v = max(*v, o.Validity)
		}
	case o.F == history.FRelease && o.Type == history.Invoke:
		if l != nil {
			s.end(l, o.Time)
		}
	case o.F == history.FLost:
		if l != nil && (o.Token == "" || l.token == "" || o.Token == l.token) {
			s.end(l, o.Time)
		}
	}
}

// acquiring follows an acquire invoke: the TTL it asks for, and its
// slot's previous process gone.
func (s *leaseTracker) acquiring(o *history.Op) {
	if o.TTL > 0 {
		s.invoked[o.Process] = o.Time + o.TTL
	} else {
		delete(s.invoked, o.Process)
	}
	if r, ok := s.slots.slot(o.Process); ok {
		if p, ok := s.slotProc[r]; ok && p != o.Process {
			if old := s.open[p]; old != nil {
				s.end(old, old.last) // the slot's process is gone
			}
		}
		s.slotProc[r] = o.Process
	}
}

// acquired starts the lease of acquire ok o, whose invoke asked for a
// TTL ending at invoked (ns; 0: none).
func (s *leaseTracker) acquired(o *history.Op, invoked int64) {
	validity := o.Validity
	if validity == 0 {
		validity = invoked
	}
	n := &streamLease{i: s.log.add(o.Process, o.Time, o.Time, validity, o.Fence), proc: o.Process, key: o.Key, token: o.Token, start: o.Time, last: o.Time}
	if _, ok := s.slots.slot(o.Process); !ok {
		return // no row to draw it on, and no slot to see its process gone: logged, not followed
	}
	k := s.byKey[o.Key]
	if k == nil {
		k = map[int]*streamLease{}
		s.byKey[o.Key] = k
	}
	for _, other := range k {
		if other.proc != n.proc && len(other.with) < maxOpenPairs {
			other.with = append(other.with, n)
			n.with = append(n.with, other)
		}
	}
	k[o.Process] = n
	s.open[o.Process] = n
}

// end ends lease l at t, and its clashes with the leases held at once
// that ended already.
func (s *leaseTracker) end(l *streamLease, t int64) {
	l.end, l.ended = max(t, l.start), true
	*s.log.end.at(l.i) = l.end
	delete(s.open, l.proc)
	if k := s.byKey[l.key]; k != nil && k[l.proc] == l {
		delete(k, l.proc)
	}
	for _, other := range l.with {
		if !other.ended {
			continue // other counts the pair when it ends
		}
		if a, b := max(l.start, other.start), min(l.end, other.end); b > a {
			s.log.clashes = append(s.log.clashes, clash{a: int32(l.i), b: int32(other.i), start: a, end: b})
		}
		other.with = slices.DeleteFunc(other.with, func(x *streamLease) bool { return x == l })
	}
	l.with = nil
}

// finish ends the leases still held at the end of the history, at their
// processes' last records.
func (s *leaseTracker) finish() {
	for _, l := range s.open {
		s.end(l, l.last)
	}
}

// occupancyOf is the holders overview of the leases of log over [0,
// xmax] s, rows rows: each lease on its process's row (rowOf; a lease
// without one is not drawn), each clash on both leases' rows.
func occupancyOf(log *leaseLog, rows int, rowOf func(proc int) (int, bool), xmax float64) *occupancy {
	o := emptyOccupancy(rows, xmax)
	row := func(i int32) (int, bool) {
		r, ok := rowOf(int(*log.proc.at(int(i))))
		return r, ok && r < rows
	}
	for i := range log.start.len() {
		if r, ok := row(int32(i)); ok {
			o.addHold(r, *log.start.at(i), *log.end.at(i), *log.validity.at(i))
		}
	}
	for _, c := range log.clashes {
		var rs []int
		for _, i := range []int32{c.a, c.b} {
			if r, ok := row(i); ok {
				rs = append(rs, r)
			}
		}
		o.addClash(rs, c.start, c.end)
	}
	return o
}
