package checker

import (
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// possibleHolders are the possible holders of a key, from their invoke
// until released or their lease ran out (from the return, or completion
// of one with unknown outcome): its latest acquire ok and its acquires
// with unknown outcome. A failure whose span meets one is explained.
func (r *livenessRun) possibleHolders(p *keyProgress) [][2]int64 {
	var hs [][2]int64
	add := func(o *op, granted int64) {
		to := r.leaseEnd(o, granted)
		if rel, ok := r.releasedAt(o); ok {
			to = min(to, rel)
		}
		hs = append(hs, [2]int64{o.Call, to})
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
func unexplained(fails []*op, hs [][2]int64) []*op {
	return slices.DeleteFunc(slices.Clone(fails), func(f *op) bool {
		return f.Type != history.Fail || slices.ContainsFunc(hs, func(h [2]int64) bool {
			return h[0] <= f.Done && f.Call <= h[1]
		})
	})
}
