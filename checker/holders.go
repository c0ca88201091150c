package checker

import (
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// A failed acquire shows a lock not freed only when nobody could hold the
// key then. The possible holders of a key (for recovery and never-freed):
// its latest acquire ok, from its invoke until its lease ran out (TTL and
// extends from its return) or it was released; and every acquire with
// unknown outcome, from its invoke until a lease from its completion ran
// out or was released. A failure whose span (invoke to completion) meets a
// possible holder's is explained (the lock working); only unexplained
// ones count. An acquire with no TTL holds nothing past its grant.

// holdSpan is when a possible holder may have held the key, in ns.
type holdSpan struct {
	o        *op
	from, to int64
}

// possibleHolders are the possible holders of a key (see above): its
// latest acquire ok (nil if none) and its acquires with unknown outcome.
func (r *livenessRun) possibleHolders(p *keyProgress) []holdSpan {
	var hs []holdSpan
	add := func(o *op, granted int64) {
		to := r.leaseEnd(o, granted)
		if rel, ok := r.releasedAt(o); ok {
			to = min(to, rel)
		}
		hs = append(hs, holdSpan{o: o, from: o.Call, to: to})
	}
	if p.lastOK != nil {
		add(p.lastOK, p.lastOK.Return)
	}
	for _, u := range p.unknown {
		add(u, u.Done)
	}
	return hs
}

// unexplained is the failures among fails that no possible holder in hs
// explains: their spans meet none of the holders'.
func unexplained(fails []*op, hs []holdSpan) []*op {
	return slices.DeleteFunc(slices.Clone(fails), func(f *op) bool {
		return f.Type != history.Fail || slices.ContainsFunc(hs, func(h holdSpan) bool {
			return h.from <= f.Done && f.Call <= h.to
		})
	})
}
