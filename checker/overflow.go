package checker

import (
	"fmt"
	"sort"

	"github.com/lockstorm/lockstorm/history"
)

// overflow is what the engine keeps of a segment it stopped buffering.
type overflow struct {
	pend history.Pairer // the open invokes
	acq  LockDetails    // the acquires completed in it, by outcome
	rw   bool           // a read or write seen: the counter is not checked
}

// overflowAdd takes record o of a segment not buffered.
func (st *stream) overflowAdd(o *history.Op) {
	p, ok := st.cur.over.pend.Add(o)
	if !ok || p.Completion == nil {
		return // Validate refuses a history with an invoke never completed before the next
	}
	x := opOf(p.Invoke, o.Time)
	x.complete(o)
	st.overflowOp(&x)
}

// overflowOp feeds one op of a segment not buffered.
func (st *stream) overflowOp(x *op) {
	ov := st.cur.over
	switch x.F {
	case history.FAcquire:
		switch x.Type {
		case history.OK:
			ov.acq.Acquire.OK++
		case history.Fail:
			ov.acq.Acquire.Fail++
		default:
			ov.acq.Acquire.Info++
		}
	case history.FRead, history.FWrite:
		ov.rw = true
	}
	st.feedOp(x)
}

// closeOverflow ends the current segment, not buffered (see closeSeg):
// its waiting acquires move on, its pieces are Unknown.
func (st *stream) closeOverflow(end, at, off int64, carry []*sectionInput) {
	seg, ov := st.cur, st.cur.over
	seg.end = end
	next := &streamSeg{start: end, at: at, offset: off, carry: carry}
	for r := range ov.pend.Invokes() {
		if off >= 0 {
			next.moved = append(next.moved, *r) // only acquires wait at a cut
			continue
		}
		x := opOf(r, at) // never completed
		st.overflowOp(&x)
	}
	sort.Slice(next.moved, func(i, j int) bool { return next.moved[i].Index < next.moved[j].Index })
	why := fmt.Sprintf("%d records from record %d without a quiescent point: not checkable in bounded memory (at most %d records a segment)", end-seg.start, seg.start, maxSegRecords)
	st.unchecked(seg, Unknown, why, ov)
	st.closed = append(st.closed, seg)
	st.cur = next
}

// overflowFrom makes closed[k:] and the current segment one segment not
// buffered.
func (st *stream) overflowFrom(k int) {
	cur, buffered := st.cur, st.cur.over == nil
	if buffered {
		cur.over = &overflow{}
		st.overflowed++
	}
	if k < len(st.closed) {
		first, ov := st.closed[k], cur.over
		for _, s := range st.closed[k:] {
			for i, c := range st.segs {
				c.foldOverflow(ov, s.parts[i])
			}
			ov.rw = ov.rw || s.nsecs > 0
		}
		st.keep.drop(first.start)
		st.cur = &streamSeg{start: first.start, at: first.at, offset: first.offset, moved: first.moved, carry: first.carry, over: ov}
		st.closed = st.closed[:k]
	}
	if !buffered {
		return // its records were fed as they came
	}
	for _, part := range [2][]history.Op{cur.moved, cur.recs} {
		for i := range part {
			st.overflowAdd(&part[i])
		}
	}
	cur.recs = nil
}
