package checker

import (
	"cmp"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// cutter finds where a history may be cut so that the segments, checked
// independently, give the whole history's verdict. A cut before record r
// (at time T) is quiescent when:
//
//   - no client op but acquires is in flight (a waiting acquire moves to
//     the segment it completes in, see detach; on a one-node lock that
//     segment is checked between two bounds, see seam.go);
//   - every lease is released ok or surely expired by T (done + ttl +
//     allowance(ttl) <= T and its validity <= T; no TTL: never);
//   - no process holds a lease in its own view (from an acquire ok until
//     it completes a release or dies);
//   - the counter's value is exact for every key (see counterCut);
//   - records are in time order up to r.
//
// A later record that refers to a lease from before the cut by its token,
// or a dead process reappearing, forbids every cut between the two (see
// refTracker).
type cutter struct {
	drift   time.Duration
	factor  float64
	ops     history.Pairer // the open invokes
	waiting int            // open invokes that are acquires
	alive   map[tokKey]aliveLease
	holding map[procKey]string // (process, key) -> token held in its view
	maxTime int64
	counter *counterCut // also the reads ok awaiting their write
}

// aliveLease is a lease the server may hold until exp (ns), asked for ttl.
type aliveLease struct {
	exp, ttl int64
}

// canCut reports whether a cut before record r is quiescent (r not yet
// added).
func (c *cutter) canCut(r *history.Op) bool {
	if c.ops.Open() > c.waiting || len(c.holding) > 0 || r.Time < c.maxTime || !c.counter.exact() {
		return false
	}
	for k, l := range c.alive {
		if l.exp > r.Time {
			return false
		}
		delete(c.alive, k) // surely expired: forget it
	}
	return true
}

// add takes record r at position i and returns the earliest position of
// an earlier record no cut may separate from it for the counter, or -1.
func (c *cutter) add(i int, r *history.Op) (to int) {
	c.maxTime = max(c.maxTime, r.Time)
	if r.IsNemesis() || r.F == history.FLost {
		return -1
	}
	to = c.counter.add(i, r)
	p := r.Process
	o, ok := c.ops.Add(r)
	if r.Type == history.Invoke {
		if r.F == history.FAcquire {
			c.waiting++
		}
		if ok && o.Invoke.F == history.FAcquire { // never completed (Validate refuses such a history)
			c.waiting--
		}
		return to
	}
	if !ok {
		return to // Validate refuses such a history
	}
	inv := o.Invoke
	if inv.F == history.FAcquire {
		c.waiting--
	}
	key, tok, ttl := cmp.Or(r.Key, inv.Key), cmp.Or(r.Token, inv.Token), cmp.Or(r.TTL, inv.TTL)
	if tok == "" && r.F != history.FAcquire {
		tok = c.holding[procKey{p, key}]
	}
	switch r.F {
	case history.FAcquire:
		if r.Type == history.Fail {
			break
		}
		tok = lease.TokenOr(tok, inv.Index)
		if r.Type == history.OK {
			c.holding[procKey{p, key}] = tok
		}
		c.extendAlive(tokKey{key, tok}, r.Time, ttl, r.Validity)
	case history.FExtend:
		if r.Type != history.Fail {
			ttl = cmp.Or(ttl, c.alive[tokKey{key, tok}].ttl)
			c.extendAlive(tokKey{key, tok}, r.Time, ttl, r.Validity)
		}
	case history.FRelease:
		delete(c.holding, procKey{p, key})
		if r.Type == history.OK {
			delete(c.alive, tokKey{key, tok})
		}
	}
	if r.Type == history.Info { // the process is dead: it holds nothing
		for k := range c.holding {
			if k.p == p {
				delete(c.holding, k)
			}
		}
	}
	return to
}

// extendAlive makes lease k alive at least until done + ttl + allowance
// and the client's validity; forever without a TTL.
func (c *cutter) extendAlive(k tokKey, done, ttl, validity int64) {
	exp := Inf
	if ttl > 0 {
		exp = max(satAdd(done, satAdd(ttl, int64(lease.Allowance(time.Duration(ttl), c.drift, c.factor)))), validity)
	}
	l := c.alive[k]
	c.alive[k] = aliveLease{exp: max(l.exp, exp), ttl: max(ttl, l.ttl)}
}

// refTracker finds the references from a record to an earlier one that
// no cut may separate: a release, extend or lost notice to the first
// acquire record of its key and token (without a token: its process's
// latest acquire ok on the key); a record of a dead process to its info
// completion.
type refTracker struct {
	tab    *tokTable   // the first acquire record of each key and token
	curAcq procKeyPos  // (process, key) -> its latest acquire ok
	dead   map[int]int // process -> position of its info completion (the validator's map)
}

// add takes record r at position i and returns the earliest position it
// refers to, or -1.
func (t *refTracker) add(i int, r *history.Op) int {
	if r.IsNemesis() {
		return -1
	}
	to := -1
	if d, ok := t.dead[r.Process]; ok {
		to = d
	}
	switch r.F {
	case history.FAcquire:
		if r.Token != "" {
			if _, row := t.tab.row(r.Key, r.Token); row.first == 0 {
				row.first = int64(i) + 1 // 0: none
			}
		}
		if r.Type == history.OK {
			t.curAcq.set(r.Process, r.Key, i)
		}
	case history.FRelease, history.FExtend, history.FLost:
		var j int
		var ok bool
		if r.Token != "" {
			if _, row, found := t.tab.find(r.Key, r.Token); found && row.first > 0 {
				j, ok = int(row.first-1), true
			}
		} else {
			j, ok = t.curAcq.get(r.Process, r.Key)
		}
		if ok && (to < 0 || j < to) {
			to = j
		}
	}
	if r.Type == history.Info && r.F != history.FLost {
		t.dead[r.Process] = i
	}
	return to
}

// procKeyPos maps a process and a key to a record position, packing a
// process in [0, 2^40) and one of the first 2^24 keys into a uint64;
// others go to an ordinary map. The zero value is ready.
type procKeyPos struct {
	ids    map[string]uint64 // key -> its id
	packed map[uint64]int    // process<<24 | key id -> position
	rest   map[procKey]int
}

const (
	pkKeyBits  = 24
	pkProcBits = 40
)

// pack is the packed name of process p and key k, if they fit (and k has
// an id, or add).
func (m *procKeyPos) pack(p int, k string, add bool) (uint64, bool) {
	if p < 0 || p >= 1<<pkProcBits {
		return 0, false
	}
	id, ok := m.ids[k]
	if !ok {
		if !add || len(m.ids) >= 1<<pkKeyBits {
			return 0, false
		}
		if m.ids == nil {
			m.ids, m.packed = map[string]uint64{}, map[uint64]int{}
		}
		id = uint64(len(m.ids))
		m.ids[k] = id
	}
	return uint64(p)<<pkKeyBits | id, true
}

// set maps process p and key k to pos.
func (m *procKeyPos) set(p int, k string, pos int) {
	if x, ok := m.pack(p, k, true); ok {
		m.packed[x] = pos
		return
	}
	if m.rest == nil {
		m.rest = map[procKey]int{}
	}
	m.rest[procKey{p, k}] = pos
}

// get is the position of process p and key k, if set.
func (m *procKeyPos) get(p int, k string) (int, bool) {
	if x, ok := m.pack(p, k, false); ok {
		pos, found := m.packed[x]
		return pos, found
	}
	pos, found := m.rest[procKey{p, k}]
	return pos, found
}
