package checker

import (
	"fmt"

	"github.com/lockstorm/lockstorm/history"
)

// reorder hands records on in time order (ties in index order), up to
// reorderDepth records late; a later one is only counted (see lateError).
type reorder struct {
	ring         []history.Op // len a power of two; n records from head, in order
	head, n      int
	lastT, lastI int64 // the latest record handed on
	handed       bool
	late         int64
	lateIdx      int64 // the first late record's index
}

// before reports whether a record at time t with index i comes before b.
func before(t, i int64, b *history.Op) bool {
	return t < b.Time || t == b.Time && i < b.Index
}

func (r *reorder) at(i int) *history.Op { return &r.ring[(r.head+i)&(len(r.ring)-1)] }

// push takes record o and hands on to f those no later record may precede.
func (r *reorder) push(o *history.Op, f func(*history.Op)) {
	if r.handed && (o.Time < r.lastT || o.Time == r.lastT && o.Index < r.lastI) {
		if r.late == 0 {
			r.lateIdx = o.Index
		}
		r.late++
		return
	}
	if r.n == len(r.ring) {
		r.grow()
	}
	i := r.n
	for ; i > 0 && before(o.Time, o.Index, r.at(i-1)); i-- {
		*r.at(i) = *r.at(i - 1)
	}
	*r.at(i) = *o
	r.n++
	for r.n > reorderDepth {
		r.handOn(f)
	}
}

// grow doubles the ring.
func (r *reorder) grow() {
	ring := make([]history.Op, max(2*len(r.ring), 64))
	for i := 0; i < r.n; i++ {
		ring[i] = *r.at(i)
	}
	r.ring, r.head = ring, 0
}

func (r *reorder) handOn(f func(*history.Op)) {
	o := r.at(0)
	r.lastT, r.lastI, r.handed = o.Time, o.Index, true
	r.head = (r.head + 1) & (len(r.ring) - 1)
	r.n--
	f(o)
}

// flush hands on every record still waiting.
func (r *reorder) flush(f func(*history.Op)) {
	for r.n > 0 {
		r.handOn(f)
	}
	r.ring, r.head = nil, 0
}

// lateError says why the time-ordered summaries are Unknown, or "".
func (r *reorder) lateError() string {
	if r.late == 0 {
		return ""
	}
	return fmt.Sprintf("%d records arrived more than %d records after records later in time (the first: op %d): the liveness, fencing and token checks read records in time order and were not run on them",
		r.late, reorderDepth, r.lateIdx)
}
