package reports

import (
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// streamOccupancy fills a big history's holders overview (occupancy)
// record by record. A lease is believed held, as holds has it, from its
// acquire's ok to its process's release invoke, a lost notice of it, or
// the process's last record ("gone": seen when its client slot starts a
// new acquiring process, or at the end of the history); its validity is
// the latest the acquire or its extends reported, else the acquire's
// invoke time plus the TTL asked. Two leases of different processes on
// one key believed held at once mark both rows. Rows are client slots
// (slotTracker); a lease of a process without one is counted, not drawn.
// Memory is one lease per process holding one, and the open pairs of
// leases held at once (at most maxOpenPairs per lease).
type streamOccupancy struct {
	*occupancy
	slots    *slotTracker
	open     map[int]*streamLease // process -> its lease
	byKey    map[string]map[int]*streamLease
	slotProc map[int]int // slot -> its latest acquiring process
	invoked  map[int]int64
	leases   int
	pairs    int
}

// maxOpenPairs bounds the other leases one lease is remembered to
// overlap until both end.
const maxOpenPairs = 1000

// streamLease is a lease being held, as streamOccupancy follows it.
type streamLease struct {
	proc, row       int
	key, token      string
	start, validity int64
	last            int64 // the process's latest record
	end             int64 // set once ended
	ended           bool
	with            []*streamLease // leases held at once, not both ended
}

func newStreamOccupancy(slots *slotTracker, xmax float64) *streamOccupancy {
	return &streamOccupancy{occupancy: emptyOccupancy(slots.clients, xmax), slots: slots, open: map[int]*streamLease{},
		byKey: map[string]map[int]*streamLease{}, slotProc: map[int]int{}, invoked: map[int]int64{}}
}

// add follows one record.
func (s *streamOccupancy) add(o *history.Op) {
	if o.IsNemesis() {
		return
	}
	l := s.open[o.Process]
	if l != nil {
		l.last = o.Time
	}
	switch {
	case o.F == history.FAcquire && o.Type == history.Invoke:
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
	case o.F == history.FAcquire && o.Type == history.OK:
		invoked := s.invoked[o.Process]
		delete(s.invoked, o.Process)
		if l != nil {
			s.end(l, o.Time)
		}
		s.leases++
		r, ok := s.slots.slot(o.Process)
		if !ok || r >= s.rows {
			return // no row
		}
		n := &streamLease{proc: o.Process, row: r, key: o.Key, token: o.Token, start: o.Time, validity: o.Validity, last: o.Time}
		if n.validity == 0 {
			n.validity = invoked
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
	case o.F == history.FAcquire:
		delete(s.invoked, o.Process) // failed or unknown
	case o.F == history.FExtend && o.Type == history.OK:
		if l != nil && o.Validity > 0 && (o.Token == "" || o.Token == l.token) {
			l.validity = max(l.validity, o.Validity)
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

// end ends lease l at t: its row's share, and its overlaps with the
// leases held at once that ended already.
func (s *streamOccupancy) end(l *streamLease, t int64) {
	l.end, l.ended = max(t, l.start), true
	delete(s.open, l.proc)
	if k := s.byKey[l.key]; k != nil && k[l.proc] == l {
		delete(k, l.proc)
	}
	s.addHold(l.row, l.start, l.end, l.validity)
	for _, other := range l.with {
		if !other.ended {
			continue // other counts the pair when it ends
		}
		if a, b := max(l.start, other.start), min(l.end, other.end); b > a {
			s.addClash([]int{l.row, other.row}, a, b)
			s.pairs++
		}
		other.with = slices.DeleteFunc(other.with, func(x *streamLease) bool { return x == l })
	}
	l.with = nil
}

// finish ends the leases still held at the end of the history, at their
// processes' last records.
func (s *streamOccupancy) finish() {
	for _, l := range s.open {
		s.end(l, l.last)
	}
}
