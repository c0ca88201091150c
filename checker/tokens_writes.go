package checker

import (
	"fmt"
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// writeFences checks the fences on the resource's writes against their
// leases (a process's current one on the key, from its acquire ok until
// its release invoke or loss), records in time order: "reused-fence" when
// leases with different tokens wrote one fence on a key, "fence-changed"
// when one lease wrote two fences (or one other than its acquire's).
type writeFences struct {
	cur     map[procKey]*fencedLease  // a process's current lease per key
	byFence map[keyFence]*fencedLease // the first lease that wrote each fence
	al      *anomalyList
}

// fencedLease is a lease: its token, its acquire ok's record, its fence
// (the acquire's, else its first write's) and the record that set it.
type fencedLease struct {
	token          string
	acq, fence, at int64
}

type keyFence struct {
	key   string
	fence int64
}

// feed takes one record, in time order.
func (w *writeFences) feed(o *history.Op) {
	k := procKey{o.Process, o.Key}
	switch {
	case o.F == history.FAcquire && o.Type == history.OK:
		l := &fencedLease{token: o.Token, acq: o.Index, fence: o.Fence}
		if o.Fence != 0 {
			l.at = o.Index
		}
		w.cur[k] = l
	case (o.F == history.FRelease && o.Type == history.Invoke) || o.F == history.FLost:
		delete(w.cur, k)
	case o.F == history.FWrite && o.Type == history.Invoke && o.Fence != 0:
		if l, ok := w.cur[k]; ok {
			w.write(o, l)
		}
	}
}

// write checks write o of lease l.
func (w *writeFences) write(o *history.Op, l *fencedLease) {
	switch {
	case l.fence == 0:
		l.fence, l.at = o.Fence, o.Index
	case l.fence != o.Fence:
		w.al.add(Anomaly{Kind: "fence-changed", Fatal: true, Ops: []int64{l.acq, l.at, o.Index},
			Text: fmt.Sprintf("key %q: the lease acquired at op %d (token %q) wrote with fence %d at op %d after fence %d (op %d): one lease, two fences",
				o.Key, l.acq, l.token, o.Fence, o.Index, l.fence, l.at)})
		return
	}
	kf := keyFence{o.Key, o.Fence}
	first, ok := w.byFence[kf]
	switch {
	case !ok:
		w.byFence[kf] = l
	case first != l && first.token != l.token:
		ops := []int64{first.acq, first.at, l.acq, o.Index}
		slices.Sort(ops)
		w.al.add(Anomaly{Kind: "reused-fence", Fatal: true, Ops: ops,
			Text: fmt.Sprintf("key %q: fence %d was written by the lease acquired at op %d (token %q, op %d) and by another lease, acquired at op %d (token %q, op %d): the fence does not tell the two holders apart",
				o.Key, o.Fence, first.acq, first.token, first.at, l.acq, l.token, o.Index)})
	}
}
