package reports

import (
	"cmp"
	"slices"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// arrival is one resource operation of the history (write, enter, lead,
// run) with, when the resource's own log has it, the moment the resource
// handled it: a write sent (Call) before a client pause arrives after it.
// Times are ns since the run started.
type arrival struct {
	clientOp
	Key          string
	Value, Fence int64
	// Arrive is when the resource handled it (its write log's Time);
	// Known is false when the log holds no matching entry (no log, an
	// operation the resource does not log, a request that never arrived
	// or a log entry the matching could not place).
	Arrive int64
	Known  bool
	// Accepted and Stale are the resource's own account (meaningful when
	// Known): accepted, and whether the token was below the highest the
	// key had accepted before. Highest is that highest token at arrival.
	Accepted, Stale bool
	Highest         int64
}

// At is where a chart draws the operation: its arrival when known, else
// its send.
func (a arrival) At() int64 {
	if a.Known {
		return a.Arrive
	}
	return a.Call
}

// arrivals pairs each resource operation of h (among its operations sp,
// clientOps of h) with its entry in the resource's write log, in invoke
// order. A log entry matches an operation of the same key, token and
// (for writes) value in flight when the resource handled it; entries are
// taken in time order, each by the candidate completing first (earliest
// deadline), which places as many as can be placed.
func arrivals(h history.History, sp []clientOp, writes []resource.Write) []arrival {
	var out []arrival
	for _, s := range sp {
		if !resourceOps[s.F] {
			continue
		}
		r := &h[s.Inv]
		out = append(out, arrival{clientOp: s, Key: r.Key, Value: r.Value, Fence: r.Fence})
	}
	type mkey struct {
		key          string
		value, fence int64
		enter        bool
	}
	keyOf := func(key string, value, fence int64, enter bool) mkey {
		if enter {
			value = 0 // an enter's logged value is not the request's
		}
		return mkey{key, value, fence, enter}
	}
	cands := map[mkey][]int{} // -> indices into out, in invoke order
	for i, a := range out {
		if a.F != history.FWrite && a.F != history.FEnter {
			continue // the resource logs writes and enters only
		}
		k := keyOf(a.Key, a.Value, a.Fence, a.F == history.FEnter)
		cands[k] = append(cands[k], i)
	}
	log := slices.Clone(writes)
	slices.SortStableFunc(log, func(a, b resource.Write) int { return cmp.Compare(a.Time, b.Time) })
	highest := map[string]int64{}
	for _, w := range log {
		hi, seen := highest[w.Key]
		if !seen || w.Accepted && w.Fence > hi {
			highest[w.Key] = w.Fence
		}
		if w.Read {
			continue
		}
		k := keyOf(w.Key, w.Value, w.Fence, w.Enter)
		cs := cands[k]
		for len(cs) > 0 && (out[cs[0]].Known || out[cs[0]].Completed && out[cs[0]].Done < w.Time) {
			cs = cs[1:] // placed, or over before this entry and so before every later one
		}
		cands[k] = cs
		best := -1
		for _, i := range cs {
			a := &out[i]
			if a.Call > w.Time {
				break // invoke order: every later candidate was sent later still
			}
			if a.Known || a.Completed && a.Done < w.Time {
				continue
			}
			if best < 0 || deadline(*a) < deadline(out[best]) {
				best = i
			}
		}
		if best >= 0 {
			a := &out[best]
			a.Arrive, a.Known, a.Accepted, a.Stale, a.Highest = w.Time, true, w.Accepted, w.Stale, hi
		}
	}
	return out
}

// deadline is the latest time an operation can have reached the
// resource: its completion, or never when it did not complete.
func deadline(a arrival) int64 {
	if a.Completed {
		return a.Done
	}
	return 1<<63 - 1
}
