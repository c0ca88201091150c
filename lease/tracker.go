package lease

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// EventKind says what happened to a lease.
type EventKind int

// The events a Tracker yields.
const (
	Started  EventKind = iota // the lease came to be held
	Extended                  // an extend ok renewed the held lease (its last segment)
	Ended                     // the holder stopped holding it (Lease.HeldUntil)
)

// Event is one thing that happened to a lease.
type Event struct {
	Kind  EventKind
	Lease *Lease
	At    int64
}

// Options are what a Tracker's consumer chooses.
type Options struct {
	// Drift and DriftFactor are the allowance taken off invoke + TTL when
	// no validity was recorded.
	Drift       time.Duration
	DriftFactor float64
	// Forget drops a lease once it ended, so that memory is the leases
	// not yet ended; a later record naming it matches nothing (or an
	// older lease with the same token).
	Forget bool
}

// Tracker follows the leases of a history record by record:
//
//   - an acquire ok starts a lease; an acquire with unknown outcome is a
//     lease not held, which an extend ok naming it starts;
//   - a release or extend acts on the lease Matcher names;
//   - each acquire or extend ok adds a segment from its return to its
//     recorded validity, else invoke + TTL − drift, else no end;
//   - the holder stops at the first release invoke or lost notice (see
//     lostLease; a release wins a tie), else at its process's last
//     record (gone), known at Finish.
//
// Releases and lost notices act at their record, acquires and extends at
// their completion.
type Tracker struct {
	opt    Options
	ops    history.Pairer // the acquires and extends in flight
	match  *Matcher[*Lease]
	toks   map[tokKey]*tokLeases // (key, token) -> its leases
	byProc map[int][]*Lease      // held leases by acquiring process, in the order held
	open   []*Lease              // held leases in the order held, ended ones not yet compacted away
	nOpen  int                   // those in open not ended
	last   map[int]int64         // process -> its latest record's time
	nHeld  int
	events []Event
}

// tokLeases are the leases of one key and token.
type tokLeases struct {
	latest *Lease   // its latest acquire ok or unknown
	held   []*Lease // those held (with Forget, not yet ended)
}

// NewTracker starts following leases.
func NewTracker(opt Options) *Tracker {
	t := &Tracker{opt: opt, toks: map[tokKey]*tokLeases{}, byProc: map[int][]*Lease{}, last: map[int]int64{}}
	t.match = NewMatcher(func(key, token string) (*Lease, bool) {
		if e := t.toks[tokKey{key, token}]; e != nil && e.latest != nil {
			return e.latest, true
		}
		return nil, false
	})
	return t
}

// Add takes the next record and returns what it did to leases, valid
// until the next Add or Finish.
func (t *Tracker) Add(r *history.Op) []Event {
	t.events = t.events[:0]
	if r.IsNemesis() {
		return nil
	}
	t.last[r.Process] = r.Time
	switch {
	case r.F == history.FLost:
		t.lost(r)
	case r.F == history.FRelease && r.Type == history.Invoke:
		t.release(r)
	case r.Type == history.Info && t.opt.Forget && !slices.ContainsFunc(t.byProc[r.Process], func(l *Lease) bool { return !l.ended }):
		delete(t.byProc, r.Process) // it never invokes again (Validate): its ended leases go
	}
	if r.F != history.FAcquire && r.F != history.FExtend {
		return t.events // only acquires and extends are paired: a process is single-threaded
	}
	op, ok := t.ops.Add(r)
	switch {
	case !ok:
	case op.Completion == nil && op.Invoke.F == history.FAcquire: // never completed: its outcome is unknown
		t.acquire(op.Invoke, &history.Op{Type: history.Info, Index: -1})
	case op.Completion == nil || op.Invoke.F != r.F:
	case r.F == history.FAcquire:
		t.acquire(op.Invoke, r)
	case r.F == history.FExtend:
		t.extend(op.Invoke, r)
	}
	return t.events
}

// Finish ends the leases still held, in the order they came to be held.
func (t *Tracker) Finish() []Event {
	t.events = t.events[:0]
	open := t.open
	t.open = nil
	for _, l := range open {
		if !l.ended {
			l.Last = t.last[l.Process]
			end, _ := l.HeldUntil()
			t.end(l, end)
		}
	}
	if !t.opt.Forget { // every lease held is still listed under its token
		for _, e := range t.toks {
			for _, l := range e.held {
				l.Last = t.last[l.Process]
			}
		}
	}
	return t.events
}

// Of is process p's held leases, in the order they came to be held (with
// Forget, those not ended and the latest ended, none once the process
// had an info completion with all its leases ended).
func (t *Tracker) Of(p int) []*Lease { return t.byProc[p] }

// acquire takes acquire invoke inv completed by c.
func (t *Tracker) acquire(inv, c *history.Op) {
	if c.Type == history.Fail {
		return
	}
	l := &Lease{Key: cmp.Or(c.Key, inv.Key), Token: TokenOr(cmp.Or(c.Token, inv.Token), inv.Index),
		Process: inv.Process, Fence: cmp.Or(c.Fence, inv.Fence), Invoke: inv.Index, Completion: c.Index, Return: Inf, Cut: Inf}
	e := t.tok(l.Key, l.Token)
	e.latest = l
	if c.Type != history.OK {
		return
	}
	l.Return = c.Time
	t.match.Acquired(l.Process, l.Key, l.Token, l)
	end, ok := t.believedEnd(inv, c)
	l.NoExpiry = !ok
	t.hold(l, e, c.Time)
	l.StartOp = c.Index
	l.Segments = append(l.first[:0], [2]int64{c.Time, end}) // no allocation for the first
	t.events = append(t.events, Event{Started, l, c.Time})
}

// extend takes extend invoke inv completed by c.
func (t *Tracker) extend(inv, c *history.Op) {
	l, _, _ := t.match.Match(inv.Process, cmp.Or(c.Key, inv.Key), cmp.Or(c.Token, inv.Token))
	if l == nil || c.Type != history.OK {
		return
	}
	end, _ := t.believedEnd(inv, c)
	l.Segments = append(l.Segments, [2]int64{c.Time, end})
	switch {
	case l.ended: // after its holder stopped holding: outside Valid
		return
	case !l.held:
		t.hold(l, t.tok(l.Key, l.Token), c.Time)
		l.StartOp = c.Index
		t.events = append(t.events, Event{Started, l, c.Time})
	default:
		t.events = append(t.events, Event{Extended, l, c.Time})
	}
}

// release takes release invoke r: the first cuts a held lease.
func (t *Tracker) release(r *history.Op) {
	l, _, _ := t.match.Match(r.Process, r.Key, r.Token)
	if l == nil || !l.held {
		return
	}
	switch {
	case r.Time < l.Cut:
	case r.Time == l.Cut && l.CutBy == EndLost:
		l.LostSignals--
	default:
		return
	}
	l.Cut, l.CutBy = r.Time, EndRelease
	t.end(l, r.Time)
}

// lost takes lost notice r.
func (t *Tracker) lost(r *history.Op) {
	l := t.lostLease(r)
	if l == nil || r.Time >= l.Cut {
		return
	}
	l.Cut, l.CutBy = r.Time, EndLost
	l.LostSignals++
	t.end(l, r.Time)
}

// lostLease is the lease lost notice r names: the latest with r's key
// and token acquired by r's time, the process's own first; without a
// token, the process's current lease (At).
func (t *Tracker) lostLease(r *history.Op) *Lease {
	if r.Token == "" {
		return At(t.byProc[r.Process], r.Time)
	}
	e := t.toks[tokKey{r.Key, r.Token}]
	if e == nil {
		return nil
	}
	all := e.held
	for _, own := range []bool{true, false} {
		var best *Lease
		for _, l := range all {
			if (!own || l.Process == r.Process) && l.Return <= r.Time && (best == nil || l.Return > best.Return) {
				best = l
			}
		}
		if best != nil {
			return best
		}
	}
	return nil
}

// hold marks l, one of e's leases, held at t.
func (t *Tracker) hold(l *Lease, e *tokLeases, at int64) {
	l.held, l.heldAt, l.Last = true, t.nHeld, max(t.last[l.Process], at)
	t.nHeld++
	t.open = append(t.open, l)
	t.nOpen++
	own := t.byProc[l.Process]
	if t.opt.Forget {
		own = slices.DeleteFunc(own, func(x *Lease) bool { return x.ended })
	}
	t.byProc[l.Process] = append(own, l)
	e.held = append(e.held, l)
}

// end yields l's end at at, once; with Forget it drops l.
func (t *Tracker) end(l *Lease, at int64) {
	if l.ended {
		return
	}
	l.ended, l.Last = true, max(l.Last, t.last[l.Process])
	t.events = append(t.events, Event{Ended, l, at})
	if t.nOpen--; t.nOpen < len(t.open)/2 {
		t.open = slices.DeleteFunc(t.open, func(x *Lease) bool { return x.ended })
	}
	if !t.opt.Forget {
		return
	}
	k := tokKey{l.Key, l.Token}
	e := t.toks[k]
	if e.latest == l {
		e.latest = nil
	}
	t.match.Forget(l.Process, l.Key, l)
	if e.held = slices.DeleteFunc(e.held, func(x *Lease) bool { return x == l }); len(e.held) == 0 && e.latest == nil {
		delete(t.toks, k)
	}
}

// tok is the leases of key and token, made when absent.
func (t *Tracker) tok(key, token string) *tokLeases {
	k := tokKey{key, token}
	e := t.toks[k]
	if e == nil {
		e = &tokLeases{}
		t.toks[k] = e
	}
	return e
}

// believedEnd is the end of the segment begun by ok c of invoke inv: its
// Validity, else invoke + TTL − drift, else none (ok false).
func (t *Tracker) believedEnd(inv, c *history.Op) (int64, bool) {
	validity, ttl := cmp.Or(c.Validity, inv.Validity), cmp.Or(c.TTL, inv.TTL)
	switch {
	case validity != 0:
		return validity, true
	case ttl > 0:
		allow := int64(Allowance(time.Duration(ttl), t.opt.Drift, t.opt.DriftFactor))
		return max(satAdd(inv.Time, ttl-allow), inv.Time), true
	}
	return Inf, false
}

// TokenOr is token, or when empty the synthetic token of the acquire
// invoked at record inv (one per acquire).
func TokenOr(token string, inv int64) string {
	if token != "" {
		return token
	}
	return "op#" + strconv.FormatInt(inv, 10)
}

func satAdd(a, b int64) int64 {
	if a > 0 && b > Inf-a {
		return Inf
	}
	return a + b
}
