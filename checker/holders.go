package checker

import (
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// A failed acquire is evidence that a lock was not freed only when nobody
// could hold the key at the time. The possible holders of a key, as
// recovery and never-freed judge it:
//
//   - its latest acquire ok, from its invoke until its lease ran out (TTL
//     and extends from its return) or its holder released it;
//   - every acquire of it with unknown outcome (info, or never completed):
//     it may have set the key at any moment until it completed, so it may
//     hold the key from its invoke until a lease from its completion ran
//     out, or until a release of that lease succeeded.
//
// A failure is explained when its own span (invoke to completion) meets a
// possible holder's: the lock may have refused it because that holder had
// the key, which is the lock working. Only unexplained failures count. An
// acquire asked with no TTL holds nothing past its grant: failures after
// it count, as nothing would free that lock.

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
