package checker

import (
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// liveStream is the liveness check fed records in time order. It keeps
// the lock ops from the oldest in flight (taken in invoke order), the
// leases still read (see retire), the current leases of the living
// processes (matched as fillTokens does), three latencies per acquire, per
// key what recovery judges, per fault window a few counters and for FIFO
// the acquires waiting.
type liveStream struct {
	r livenessRun

	ops   history.Pairer // the lock ops in flight; an op's Seq is its place in the queue, plus base
	queue []*lop         // lock ops from the oldest in flight, invoke order
	head  int
	base  int // lock ops dropped from the queue's front

	match  *lease.Matcher[*liveLease] // fillTokens' matcher, living processes only
	keysOf map[int][]string           // process -> the keys it has a current lease on
	queued map[int]int                // process -> its lock ops not yet taken
	dead   map[int]bool               // processes dead with lock ops not yet taken
	tab    *tokTable
	leases map[uint32]*liveLease

	waits, waitsAny, holds latencies
	lastFail               map[int]int64
	prog                   map[string]*streamProgress
	healed                 int64 // the latest window end so far
	win                    *windowStream
	fifo                   *fifoStream
	tokens                 *tokenCheck
	stuck                  *StuckWatch
}

// lop is a lock op as liveStream keeps it in flight.
type lop struct {
	op
	done    bool
	waitKey string // the key FIFO reads it waiting on (see fifoStream.moved)
}

// liveLease is what Liveness reads of a lease (dropped once nothing reads
// it, see retire).
type liveLease struct {
	key                   string
	row                   uint32 // in the token table
	acqType               history.Type
	acqReturn, extendedTo int64
	releasedAt            int64
	released, hasHoldEnd  bool
}

func newLiveStream(l *Liveness, tokens *tokenCheck) *liveStream {
	s := &liveStream{r: livenessRun{l: l},
		keysOf: map[int][]string{}, queued: map[int]int{}, dead: map[int]bool{},
		tab: tokens.tab, leases: map[uint32]*liveLease{},
		lastFail: map[int]int64{}, prog: map[string]*streamProgress{}, tokens: tokens,
		win: &windowStream{await: map[*windowCounts]bool{}, recov: map[*windowCounts]bool{}, byStart: map[int64]*windowCounts{}, now: -1}}
	s.match = lease.NewMatcher(s.byToken)
	s.stuck = NewStuckWatch(l.NeverFreedAfter)
	if l.Fair || l.RequireFIFO {
		s.fifo = &fifoStream{l: l, now: -1, waiting: map[string][]*lop{}, patch: map[*lop][]fifoPatch{},
			asWaiter: map[*lop][]int{}, recent: map[string][]*lop{}}
	}
	return s
}

// add takes the next record (in time order).
func (s *liveStream) add(o *history.Op) {
	s.r.end = max(s.r.end, o.Time)
	s.stuck.Add(o)
	s.win.advance(o.Time)
	if s.fifo != nil {
		s.fifo.advance(o.Time)
	}
	if o.IsNemesis() {
		if end, changed := s.win.nemesis(o); changed && end > s.healed {
			s.heal(end)
		}
		return
	}
	switch o.F {
	case history.FAcquire, history.FRelease, history.FExtend:
	case history.FLost:
		return
	default:
		if o.Type == history.Info { // the process is dead
			if s.queued[o.Process] == 0 {
				s.died(o.Process)
			} else {
				s.dead[o.Process] = true
			}
		}
		return
	}
	if o.Type == history.Invoke {
		s.queued[o.Process]++
		x := &lop{op: opOf(o, 0)}
		s.ops.Add(o) // an op left open before stays in flight to the end, as Validate refuses
		s.queue = append(s.queue, x)
		if o.F == history.FAcquire {
			s.win.calls++
			if s.fifo != nil {
				s.fifo.call(x)
			}
		}
		return
	}
	p, ok := s.ops.Add(o)
	if !ok || p.Invoke.F != o.F {
		return // Validate refuses such a history
	}
	x := s.queue[p.Seq-s.base]
	x.complete(o)
	x.done = true
	if x.F == history.FAcquire {
		if o.Type == history.OK {
			s.win.ok(o.Time)
		}
		if s.fifo != nil {
			s.fifo.ret(x)
		}
	}
	s.deliver()
}

// deliver takes the completed lock ops at the head of the queue.
func (s *liveStream) deliver() {
	for s.head < len(s.queue) && s.queue[s.head].done {
		x := s.queue[s.head]
		s.queue[s.head] = nil
		s.head++
		s.take(x)
		p := x.Process
		if s.queued[p]--; s.queued[p] == 0 {
			delete(s.queued, p)
			if x.Type == history.Info || s.dead[p] {
				s.died(p)
				delete(s.dead, p)
			}
		}
	}
	if s.head > 1024 && s.head*2 > len(s.queue) {
		s.queue = append(s.queue[:0], s.queue[s.head:]...)
		s.base += s.head
		s.head = 0
	}
}

// take is one lock op, in invoke order.
func (s *liveStream) take(x *lop) {
	if x.F != history.FAcquire {
		s.leaseOp(x)
		return
	}
	o := x.op
	i, found := s.tokens.add(&o) // the row of x's key and token, if it has a token
	x.Token = lease.TokenOr(x.Token, o.Inv)
	var l *liveLease
	if x.Type != history.Fail {
		if !found {
			i, _ = s.tab.row(x.Key, x.Token)
		}
		s.tab.at(i).leased = true
		l = &liveLease{key: x.Key, row: i, acqType: x.Type, acqReturn: x.Return}
		s.leases[i] = l
		if x.Type == history.OK {
			if _, ok := s.match.Current(x.Process, x.Key); !ok {
				s.keysOf[x.Process] = append(s.keysOf[x.Process], x.Key)
			}
			s.match.Acquired(x.Process, x.Key, x.Token, l)
		}
	}
	s.acquire(x, &o, l)
}

// leaseOp matches a release or extend to its lease and applies it.
func (s *liveStream) leaseOp(x *lop) {
	l, tok, ok := s.match.Match(x.Process, x.Key, x.Token)
	if x.Token = tok; !ok {
		return
	}
	if x.F == history.FExtend {
		if x.Type == history.OK && x.TTL > 0 {
			l.extendedTo = max(l.extendedTo, satAdd(x.Return, x.TTL))
		}
		return
	}
	if x.Type == history.OK && !l.released {
		l.releasedAt, l.released = x.Call, true
	}
	if l.acqType == history.OK && !l.hasHoldEnd && x.Call >= l.acqReturn {
		l.hasHoldEnd = true
		s.holds.add(x.Call - l.acqReturn)
		if p := s.prog[l.key]; p == nil || p.lastOKLease != l {
			s.retire(l)
		}
	}
}

// byToken is the latest acquire ok or unknown of key with token,
// retiredLease when retire dropped it.
func (s *liveStream) byToken(key, token string) (*liveLease, bool) {
	i, row, ok := s.tab.find(key, token)
	if !ok || !row.leased {
		return nil, false
	}
	if l := s.leases[i]; l != nil {
		return l, true
	}
	return retiredLease, true
}

// retiredLease stands for the leases retire dropped.
var retiredLease = &liveLease{}

// retire drops lease l, whose hold is measured and which is not its key's
// latest acquire ok (recovery never reads it).
func (s *liveStream) retire(l *liveLease) {
	if s.leases[l.row] == l {
		delete(s.leases, l.row)
	}
}

// died forgets the current leases of process p, dead after an info
// completion.
func (s *liveStream) died(p int) {
	for _, k := range s.keysOf[p] {
		s.match.Drop(p, k)
	}
	delete(s.keysOf, p)
	delete(s.lastFail, p)
}
