package checker

import (
	"sync"

	"github.com/lockstorm/lockstorm/history"
)

// scanAhead runs a history.Scanner on its own goroutine, a few batches
// of records ahead of the reader, so that decoding (a third of CheckFile's
// work on one core) overlaps the checks. The Scanner's Err and Warnings
// may be read once next has reported the end.
type scanAhead struct {
	sc   *history.Scanner
	out  chan *recBatch
	free chan *recBatch
	stop chan struct{}
	once sync.Once
	cur  *recBatch
	i    int
}

// recBatch is records and the byte offsets of their lines.
type recBatch struct {
	ops  []history.Op
	offs []int64
}

const batchSize = 1024

func newScanAhead(sc *history.Scanner) *scanAhead {
	a := &scanAhead{sc: sc, out: make(chan *recBatch, 4), free: make(chan *recBatch, 8), stop: make(chan struct{})}
	go a.loop()
	return a
}

func (a *scanAhead) loop() {
	defer close(a.out)
	for {
		var b *recBatch
		select {
		case b = <-a.free:
			b.ops, b.offs = b.ops[:0], b.offs[:0]
		default:
			b = &recBatch{ops: make([]history.Op, 0, batchSize), offs: make([]int64, 0, batchSize)}
		}
		for len(b.ops) < batchSize && a.sc.Scan() {
			b.ops = append(b.ops, a.sc.Op())
			b.offs = append(b.offs, a.sc.Offset())
		}
		if len(b.ops) == 0 {
			return
		}
		select {
		case a.out <- b:
		case <-a.stop:
			return
		}
	}
}

// next is the next record and the byte offset of its line; false at the
// end (or an error: see the Scanner). The record is valid until the next
// call.
func (a *scanAhead) next() (*history.Op, int64, bool) {
	for a.cur == nil || a.i == len(a.cur.ops) {
		if a.cur != nil {
			select {
			case a.free <- a.cur:
			default:
			}
		}
		b, ok := <-a.out
		if !ok {
			a.cur = nil
			return nil, 0, false
		}
		a.cur, a.i = b, 0
	}
	a.i++
	return &a.cur.ops[a.i-1], a.cur.offs[a.i-1], true
}

// close stops the goroutine (before the end, when the reader gives up)
// and waits for it; more calls do nothing.
func (a *scanAhead) close() {
	a.once.Do(func() {
		close(a.stop)
		for range a.out {
		}
	})
}
