package checker

import (
	"fmt"

	"github.com/lockstorm/lockstorm/history"
)

// reorder hands records on in time order (ties in index order), up to
// reorderWindow records late, for the summaries fed one record at a time.
// A record later than that is not handed on: it is counted (late), and
// the summaries' results become Unknown (see lateError).
type reorder struct {
	buf     []history.Op // waiting, in (Time, Index) order from head
	head    int
	last    history.Op // the latest record handed on
	handed  bool
	late    int64
	lateIdx int64 // the first late record's index
}

func before(a, b *history.Op) bool {
	return a.Time < b.Time || a.Time == b.Time && a.Index < b.Index
}

// push takes record o and hands on, to f, those that can no longer be
// preceded by a record within the window.
func (r *reorder) push(o *history.Op, f func(*history.Op)) {
	if r.handed && before(o, &r.last) {
		if r.late == 0 {
			r.lateIdx = o.Index
		}
		r.late++
		return
	}
	r.buf = append(r.buf, *o)
	for i := len(r.buf) - 1; i > r.head && before(&r.buf[i], &r.buf[i-1]); i-- {
		r.buf[i], r.buf[i-1] = r.buf[i-1], r.buf[i]
	}
	for len(r.buf)-r.head > reorderWindow {
		r.handOn(f)
	}
	if r.head > 4096 && r.head*2 > len(r.buf) {
		r.buf = append(r.buf[:0], r.buf[r.head:]...)
		r.head = 0
	}
}

func (r *reorder) handOn(f func(*history.Op)) {
	r.last, r.handed = r.buf[r.head], true
	r.head++
	f(&r.last)
}

// flush hands on every record still waiting.
func (r *reorder) flush(f func(*history.Op)) {
	for r.head < len(r.buf) {
		r.handOn(f)
	}
	r.buf, r.head = nil, 0
}

// lateError says why the time-ordered summaries are Unknown, or "".
func (r *reorder) lateError() string {
	if r.late == 0 {
		return ""
	}
	return fmt.Sprintf("%d records arrived more than %d records after records later in time (the first: op %d): the liveness, fencing and token checks read records in time order and were not run on them",
		r.late, reorderWindow, r.lateIdx)
}
