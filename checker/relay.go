package checker

import (
	"sync"

	"github.com/lockstorm/lockstorm/history"
)

// relay hands the records the check reads to the passes riding on its
// read (Composite.Also) in a goroutine of their own, in batches, so that
// they run beside the check instead of after each record of it. The
// passes see every record once, in order, as the check read it; a panic
// of theirs is raised again by wait, in the check's goroutine.
type relay struct {
	pass     func(o *history.Op, at history.Pos)
	batch    []relayed
	ch       chan []relayed // batches to pass
	free     chan []relayed // batches passed, to reuse
	done     sync.WaitGroup
	panicked any
}

type relayed struct {
	op history.Op
	at history.Pos
}

// relayBatch is records per batch; relayDepth batches may wait.
const (
	relayBatch = 4096
	relayDepth = 4
)

func newRelay(pass func(o *history.Op, at history.Pos)) *relay {
	r := &relay{pass: pass, ch: make(chan []relayed, relayDepth), free: make(chan []relayed, relayDepth+1)}
	r.done.Go(func() {
		defer func() {
			if r.panicked = recover(); r.panicked != nil {
				for range r.ch { // let the check read on
				}
			}
		}()
		for b := range r.ch {
			for i := range b {
				r.pass(&b[i].op, b[i].at)
			}
			select {
			case r.free <- b[:0]:
			default:
			}
		}
	})
	return r
}

// add copies o (valid during the call only) into the current batch.
func (r *relay) add(o *history.Op, at history.Pos) {
	if r.batch == nil {
		select {
		case r.batch = <-r.free:
		default:
			r.batch = make([]relayed, 0, relayBatch)
		}
	}
	if r.batch = append(r.batch, relayed{*o, at}); len(r.batch) == relayBatch {
		r.ch <- r.batch
		r.batch = nil
	}
}

// wait hands on the last batch and returns when every record is passed.
func (r *relay) wait() {
	if len(r.batch) > 0 {
		r.ch <- r.batch
	}
	close(r.ch)
	r.done.Wait()
	if r.panicked != nil {
		panic(r.panicked)
	}
}
