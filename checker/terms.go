package checker

import (
	"cmp"
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// termOps collects, as the streamed check feeds it ops, what the api and
// leader checks read: every enter, leave and heartbeat, and every op of a
// process after its first heartbeat (any other op ends its term).
type termOps struct {
	ops     []op
	leaders map[int]bool
}

// add takes op o (its tokens not needed).
func (t *termOps) add(o *op) {
	switch o.F {
	case history.FEnter, history.FLeave:
	case history.FLead:
		t.leaders[o.Process] = true
	default:
		if !t.leaders[o.Process] {
			return
		}
	}
	t.ops = append(t.ops, *o)
}

// finish runs the api and leader checks on the ops, in invoke order.
func (t *termOps) finish(r *Resource, al *anomalyList, d *ResourceDetails) {
	slices.SortFunc(t.ops, func(a, b op) int { return cmp.Compare(a.Inv, b.Inv) })
	d.API = r.checkAPI(t.ops, al)
	d.Leader = checkLeader(t.ops, al)
}
