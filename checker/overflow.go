package checker

import (
	"fmt"

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
	st.overflowOp(st.cur.over, &x)
}

// overflowOp feeds one op of a segment not buffered, counted in ov.
func (st *stream) overflowOp(ov *overflow, x *op) {
	switch x.F {
	case history.FAcquire:
		ov.acq.Acquire.count(x.Type)
	case history.FRead, history.FWrite:
		ov.rw = true
	}
	st.feedOp(x)
}

// closeOverflow closes seg, not buffered (see closeSeg): its waiting
// acquires move on, its pieces are Unknown.
func (st *stream) closeOverflow(seg *streamSeg, at, off int64) {
	ov := seg.over
	for _, p := range ov.pend.Flush() { // in invoke order
		if off >= 0 {
			st.cur.moved = append(st.cur.moved, *p.Invoke) // only acquires wait at a cut
			continue
		}
		x := opOf(p.Invoke, at) // never completed
		st.overflowOp(ov, &x)
	}
	why := fmt.Sprintf("%d records from record %d without a quiescent point: not checkable in bounded memory (at most %d records a segment)", seg.end-seg.start, seg.start, maxSegRecords)
	st.unchecked(seg, Unknown, why, ov)
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
		for _, s := range st.closed[k:] {
			for i, c := range st.segs {
				c.foldOverflow(cur.over, s.parts[i])
			}
			cur.over.rw = cur.over.rw || s.nsecs > 0
		}
		st.reopen(k, nil, cur.over)
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
