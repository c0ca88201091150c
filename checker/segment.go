package checker

import (
	"cmp"
	"strconv"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// Segmentation: where a history may be cut so that the segments can be
// checked independently and give the whole history's verdict.
//
// A cut before record r (at time T = r.Time) is quiescent when:
//
//   - no client op but acquires is in flight. An acquire waiting at the
//     cut belongs to the segment in which it completes (its invoke moves
//     there, see detach): every earlier lease is dead at the cut, so
//     linearizing it after the cut is never worse. Except on a one-node
//     lock, whose lease is bounded from the `now` carried across the cut:
//     that segment is checked between two bounds of it (see seam.go);
//   - no lease may still be alive: every acquire or extend ok or info,
//     completed at d with TTL ttl, was released ok or surely expired by T
//     (d + ttl + allowance(ttl) <= T, and its recorded validity <= T). A
//     lease without a TTL blocks every cut until released ok;
//   - no process holds a lease in its own view: from an acquire ok until
//     it completes a release (any outcome) or dies (an info completion).
//     A paused holder may still write, judged against its lease;
//   - no read ok awaits its write (a counter section), and the counter's
//     value at the cut is exact for every key (see counterCut);
//   - records are in time order up to r, so all after the cut is at or
//     after T;
//   - no api (enter/leave) or leader (lead) op was seen: their spans are
//     not tracked across cuts, so such histories are checked whole.
//
// Nemesis records never block a cut: anomalies are labelled with the
// whole history's fault windows. A later op may still refer to a lease
// from before the cut by its token (a watchdog's extend, a late release, a
// lost notice), or a dead process reappear: such references (see refs)
// forbid every cut between the two records.
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

// aliveLease is a lease the server may still hold: until exp (ns), with
// the TTL it was asked for.
type aliveLease struct {
	exp, ttl int64
}

func newCutter(drift time.Duration, factor float64) *cutter {
	return &cutter{drift: drift, factor: factor, alive: map[tokKey]aliveLease{},
		holding: map[procKey]string{}, counter: newCounterCut()}
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

// add takes record r at position i into the state and returns the
// earliest position of an earlier record that no cut may separate from it
// for the counter (see counterCut), or -1.
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
		if tok == "" {
			tok = "op#" + strconv.FormatInt(inv.Index, 10) // fillTokens' synthetic token
		}
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

// refs finds the references from a record to an earlier one that no cut
// may separate, and calls ref(from, to) with their positions (from > to):
//
//   - a release, extend or lost notice naming a token points at the first
//     acquire record of that key and token;
//   - one naming no token points at its process's latest acquire ok on
//     the key (fillTokens and lostLease resolve it so);
//   - a record of a process after that process's info completion points
//     at that completion.
type refTracker struct {
	tab    *tokTable   // the first acquire record of each key and token
	curAcq procKeyPos  // (process, key) -> its latest acquire ok
	dead   map[int]int // process -> position of its info completion (may be the validator's)
}

func newRefTracker(tab *tokTable, dead map[int]int) *refTracker {
	if dead == nil {
		dead = map[int]int{}
	}
	return &refTracker{tab: tab, dead: dead}
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
