package checker

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// checkSegment is the counter check of one segment's critical sections.
func (r *Resource) checkSegment(ctx context.Context, in *segmentInput) segmentPart {
	p := r.counterPiece(ctx, in.secs, in.keep)
	p.lin.setRecords(in.seg.firstRecord(), in.seg.end-1)
	return p
}

// uncheckedSegment is the counter piece of a segment not checked (Valid
// if not buffered and without reads or writes).
func (r *Resource) uncheckedSegment(v Validity, why string, ov *overflow) segmentPart {
	if ov != nil && !ov.rw {
		v, why = Valid, ""
	}
	return piece{keyedSearch: keyedSearch{valid: v, err: why}}
}

// foldOverflow notes in ov a checked segment whose counter check did not
// finish.
func (r *Resource) foldOverflow(ov *overflow, part segmentPart) {
	ov.rw = ov.rw || part.(piece).valid == Unknown
}

// mergeSegments is the result from the segments' counter checks and the
// streamed summaries.
func (r *Resource) mergeSegments(st *stream, parts []segmentPart) Result {
	start := time.Now()
	res := Result{Name: r.Name(), Valid: Valid}
	var d ResourceDetails
	var al anomalyList
	unchecked := false // a segment with counter ops not checked (see maxSegRecords)
	ps := make([]piece, len(parts))
	for i, s := range st.closed {
		ps[i] = parts[i].(piece)
		d.Sections += s.nsecs
		unchecked = unchecked || ps[i].valid == Unknown && s.over != nil
	}
	if d.Sections > 0 || unchecked {
		res.Valid, res.Error, _, _ = mergePieces(ps, &al)
		// the duplicate writes found while streaming, then the totals
		for _, a := range st.lostAl.list {
			al.add(a)
		}
		for k, n := range st.lostAl.counts {
			if kept := min(n, MaxAnomalies); n > kept {
				al.counts[k] += n - kept
			}
		}
		d.Counter = st.lost.finish(r, &al)
	}
	d.Cron = st.cron.finish(r, &al)
	st.terms.finish(r, &al, &d)
	d.Linearization, d.Failing = drawn(ps)
	r.finish(&res, &al, d, start)
	return res
}

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
