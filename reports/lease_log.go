package reports

import (
	"math"
	"slices"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// leaseLog is every lease of a run in the order they came to be held, as
// the holders overview and fencing.png read them (36 bytes a lease).
type leaseLog struct {
	proc                        chunks[int32]
	start, end, validity, fence chunks[int64] // ns; fence 0: none
	clashes                     []clash       // pairs of leases believed held at once
}

// add logs a lease (times in ns, validity 0: no end) and returns its index.
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

// leaseFollower follows a history's leases as the checkers do (the events
// of analysis.FollowLeases' lease.Tracker) into a leaseLog: two leases of
// different processes on one key held at once are a clash; within counts
// the pairs overlapping within validity.
//
// A lease of a process gone (an info completion) that a later lease of
// its key starts after, past its validity, can overlap no later lease: it
// goes dormant (out of byKey), until an extend or end wakes it.
type leaseFollower struct {
	log    leaseLog
	open   map[*lease.Lease]*streamLease
	byKey  map[string][]*streamLease // leases not yet ended that a new lease can overlap, per key
	gone   map[int]int64             // process -> the time of its info completion
	within int                       // pairs overlapping within validity
}

// maxOpenPairs bounds the other leases one lease is remembered to
// overlap until both end.
const maxOpenPairs = 1000

// streamLease is a lease being held, as leaseFollower follows it.
type streamLease struct {
	i       int // index in the log
	l       *lease.Lease
	ended   bool
	dormant bool           // out of byKey (see leaseFollower)
	valid   [][2]int64     // l.Valid() once it ended (an ended lease no longer changes)
	with    []*streamLease // leases held at once, not both ended
}

func newLeaseFollower() *leaseFollower {
	return &leaseFollower{open: map[*lease.Lease]*streamLease{}, byKey: map[string][]*streamLease{}, gone: map[int]int64{}}
}

// add follows one record and the lease events it caused
// (analysis.FollowLeases').
func (s *leaseFollower) add(o *history.Op, evs []lease.Event) {
	s.take(evs)
	if o.Type == history.Info && !o.IsNemesis() && o.F != history.FLost {
		s.gone[o.Process] = o.Time
	}
}

// take logs the tracker's events.
func (s *leaseFollower) take(evs []lease.Event) {
	for _, e := range evs {
		l := e.Lease
		switch e.Kind {
		case lease.Started:
			s.started(l)
		case lease.Extended:
			n := s.wake(l)
			*s.log.validity.at(n.i) = l.Validity()
		case lease.Ended:
			s.ended(s.wake(l))
		}
	}
}

// started logs lease l and pairs it with the leases of other processes
// held on its key.
func (s *leaseFollower) started(l *lease.Lease) {
	n := &streamLease{i: s.log.add(l.Process, l.Start(), l.Start(), l.Validity(), l.Fence), l: l}
	s.open[l] = n
	kept := s.byKey[l.Key][:0]
	for _, other := range s.byKey[l.Key] {
		if at, gone := s.gone[other.l.Process]; gone && max(at, other.l.Validity()) < l.Start() {
			other.dormant = true
			continue
		}
		kept = append(kept, other)
	}
	s.byKey[l.Key] = kept
	s.join(n)
}

// join pairs n with the leases of other processes open on its key (not
// again, for one woken from dormant), and opens it there.
func (s *leaseFollower) join(n *streamLease) {
	woken := len(n.with) > 0
	for _, other := range s.byKey[n.l.Key] {
		if other.l.Process != n.l.Process && len(other.with) < maxOpenPairs && !(woken && slices.Contains(n.with, other)) {
			other.with = append(other.with, n)
			n.with = append(n.with, other)
		}
	}
	s.byKey[n.l.Key] = append(s.byKey[n.l.Key], n)
}

// wake brings held lease l back from dormant, before an extend or end,
// and returns it.
func (s *leaseFollower) wake(l *lease.Lease) *streamLease {
	n := s.open[l]
	if n.dormant {
		n.dormant = false
		s.join(n)
	}
	return n
}

// ended logs the end of lease n, and its clashes with the leases held at
// once that ended already.
func (s *leaseFollower) ended(n *streamLease) {
	l := n.l
	end, _ := l.HeldUntil()
	n.ended, n.valid = true, l.Valid()
	*s.log.end.at(n.i), *s.log.validity.at(n.i) = end, l.Validity()
	delete(s.open, l)
	drop := func(x *streamLease) bool { return x == n }
	if s.byKey[l.Key] = slices.DeleteFunc(s.byKey[l.Key], drop); len(s.byKey[l.Key]) == 0 {
		delete(s.byKey, l.Key)
	}
	for _, other := range n.with {
		if !other.ended {
			continue // other counts the pair when it ends
		}
		oend, _ := other.l.HeldUntil()
		if a, b := max(l.Start(), other.l.Start()), min(end, oend); b > a {
			s.log.clashes = append(s.log.clashes, clash{a: int32(n.i), b: int32(other.i), start: a, end: b})
		}
		s.within += validPairs(n.valid, other.valid)
		other.with = slices.DeleteFunc(other.with, drop)
	}
	n.with = nil
}

// validPairs is checker.ValidOverlaps of two leases from their validity
// stretches: the pairs that overlap for a positive time.
func validPairs(a, b [][2]int64) (n int) {
	for _, x := range a {
		for _, y := range b {
			if min(x[1], y[1]) > max(x[0], y[0]) {
				n++
			}
		}
	}
	return n
}

// occupancyOf is the holders overview of log's leases and clashes on
// their processes' rows (rowOf) over [0, xmax] s.
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

// occupancy is the overview: per row and column the share held within
// validity and past it, and whether two holders overlapped.
type occupancy struct {
	cols       int
	width      float64 // column width, s
	held, late [][]float64
	clash      [][]bool
	anyClash   []bool // per column: an overlap on some row
	spans      []anomalySpan
	anomalyAt  []float64 // s, anomaly marks
	rows       int
}

// emptyOccupancy is an overview of rows rows over [0, xmax] s without
// any lease yet.
func emptyOccupancy(rows int, xmax float64) *occupancy {
	o := &occupancy{cols: overviewCols, width: xmax / overviewCols, rows: rows}
	o.held, o.late, o.clash = make([][]float64, o.rows), make([][]float64, o.rows), make([][]bool, o.rows)
	for r := range o.rows {
		o.held[r], o.late[r], o.clash[r] = make([]float64, o.cols), make([]float64, o.cols), make([]bool, o.cols)
	}
	o.anyClash = make([]bool, o.cols)
	return o
}

// addHold adds a lease of row r believed held from start to end (ns),
// past its validity (ns; 0: none) after it.
func (o *occupancy) addHold(r int, start, end, validity int64) {
	add := func(dst []float64, a, b float64) {
		for c := max(int(a/o.width), 0); c < o.cols && float64(c)*o.width < b; c++ {
			lo, hi := math.Max(a, float64(c)*o.width), math.Min(b, float64(c+1)*o.width)
			if hi > lo {
				dst[c] += (hi - lo) / o.width
			}
		}
	}
	if validity > 0 && validity < end {
		e := max(validity, start)
		add(o.late[r], seconds(e), seconds(end))
		end = e
	}
	add(o.held[r], seconds(start), seconds(end))
}

// addClash marks two holders at once on rows from start to end (ns).
func (o *occupancy) addClash(rows []int, start, end int64) {
	c0, c1 := int(seconds(start)/o.width), int(seconds(end)/o.width)
	for c := max(c0, 0); c <= min(c1, o.cols-1); c++ {
		o.anyClash[c] = true
		for _, r := range rows {
			o.clash[r][c] = true
		}
	}
}
