package checker

import (
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// holdSpan is when a possible holder may have held the key, in ns.
type holdSpan struct {
	o        *op
	from, to int64
}

// possibleHolders are the possible holders of a key, from their invoke
// until released or their lease ran out (from the return, or completion
// of one with unknown outcome): its latest acquire ok and its acquires
// with unknown outcome. A failure whose span meets one is explained.
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
