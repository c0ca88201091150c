package checker

import (
	"context"
	"fmt"

	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// segmentChecked is called as each segment's check starts (tests make it panic).
var segmentChecked = func(start int64) {}

// CheckSource is the check of every history, small or big, in memory or
// in a file. A panic anywhere in it makes the verdict Unknown with its
// message. The error is the Source's (a file that cannot be opened or
// whose records do not parse); warnings are history.Read's.
//
// It reads the history once, cuts it at quiescent points (see cutter;
// never before oneSegment records, so a small history is one segment) and
// checks each finished segment in parallel (at most GOMAXPROCS at once),
// keeping only results and small summaries; records out of time order
// reach the time-ordered summaries through a bounded reorder buffer. A
// segment a later record refers to (a lease's token, a revived process, a
// counter section, see counterCut) is merged with those after it and
// checked again, reading the file again; an ambiguous seam is resolved
// likewise (see seam.go). A segment of more than maxSegRecords records is
// not buffered: the checks that need it end Unknown. Checkers that are
// neither segment nor record checkers (engine.go) get the whole history.
func (c *Composite) CheckSource(ctx context.Context, src history.Source) (res Result, warns []history.Warning, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res, warns, err = panicked(c.Label, p, start), nil, nil
		}
	}()
	st := newStream(ctx, c, src)
	if warns, err = st.run(); err == nil {
		res = st.result()
	}
	lastStream = StreamStats{Segments: len(st.closed), Merges: st.merges, Records: st.n, Overflowed: st.overflowed, Ambiguous: st.ambiguous}
	return res, warns, err
}

// panicked is the Unknown result of a check that panicked.
func panicked(name string, p any, start time.Time) Result {
	return Result{Name: name, Valid: Unknown, Error: fmt.Sprintf("checker panicked: %v\n%s", p, debug.Stack()), Seconds: time.Since(start).Seconds()}
}

// StreamStats describe how CheckSource read a history: its segments, those
// merged back, the ambiguous seams (see seam.go), those not buffered.
type StreamStats struct {
	Records                                 int64
	Segments, Merges, Ambiguous, Overflowed int
}

// lastStream is the last CheckSource's stats, for tests and benchmarks.
var lastStream StreamStats

// stream is one CheckSource in progress.
type stream struct {
	ctx context.Context
	c   *Composite
	src history.Source

	segs []segmentChecker // the composition's, in its order
	keep keeper           // the failing segments' searches kept

	start time.Time
	rec   history.Op // the record being read (see run)
	v     *validator
	cut   *cutter
	refs  *refTracker

	cur    *streamSeg
	closed []*streamSeg
	wg     sync.WaitGroup
	sem    chan struct{}
	bufs   chan history.History // segment copies the checks are done with

	// summaries across segments
	fedTo    int64 // the end of the segments closed so far (see feedOp)
	tokens   *tokenCheck
	liveness *liveStream // also feeds tokens, lock ops in invoke order
	lost     *lostUpdateCheck
	lostAl   anomalyList
	cron     *cronCheck
	terms    *termOps
	order    reorder // the records fed in time order (feedTimed)
	fence    *fencingRun
	n        int64
	anyOK    bool
	// segments merged back, not buffered, ambiguous seams settled
	merges, overflowed, ambiguous int
	cancelled                     bool   // the context ended before the last record was read
	live                          Result // Liveness's (see result)
}

// streamSeg is a segment being read or checked.
type streamSeg struct {
	start, end int64           // record indices [start, end)
	at         int64           // time of record start (ns): its seam's
	offset     int64           // byte offset of record start
	moved      []history.Op    // waiting acquires invoked before start (kept after close for merges)
	recs       []history.Op    // its records
	carry      []*sectionInput // the counter values carried in (see counterCut)
	nsecs      int             // counter sections
	over       *overflow       // not buffered (see maxSegRecords), else nil
	parts      []segmentPart   // per segment checker (stream.segs), its part
}

// seam is the cut the segment starts at (see seam.go).
func (s *streamSeg) seam() seam { return seam{start: s.start, at: s.at} }

// firstRecord is the smallest index of the segment's records: its first,
// or an acquire waiting since before it.
func (s *streamSeg) firstRecord() int64 {
	if len(s.moved) > 0 {
		return min(s.start, s.moved[0].Index)
	}
	return s.start
}

// unchecked gives seg's checks verdict v and reason why without checking
// them (ov: what was counted of a segment not buffered).
func (st *stream) unchecked(seg *streamSeg, v Validity, why string, ov *overflow) {
	seg.parts = make([]segmentPart, len(st.segs))
	for i, c := range st.segs {
		seg.parts[i] = c.uncheckedSegment(v, why, ov)
	}
}

// newStream starts a check of src: the summaries (with the record
// checkers' options) and the segment checkers.
func newStream(ctx context.Context, c *Composite, src history.Source) *stream {
	tab := newTokTable() // shared by the reference tracker, the token check and liveness
	v := newValidator()
	st := &stream{ctx: ctx, c: c, src: src, start: time.Now(),
		v: v, refs: &refTracker{tab: tab, dead: v.dead}, // one map of the dead processes
		sem: make(chan struct{}, max(runtime.GOMAXPROCS(0), 1)), bufs: make(chan history.History, 4), tokens: newTokenCheck(tab),
		lost: newLostUpdateCheck(), cron: newCronCheck(), terms: &termOps{leaders: map[int]bool{}}, cur: &streamSeg{}, fence: newFencingRun(nil)}
	st.liveness = newLiveStream(&Liveness{}, st.tokens) // it feeds the token check
	lk := NewLock()
	for _, ch := range st.c.Checkers {
		switch x := ch.(type) {
		case segmentChecker:
			st.segs = append(st.segs, x)
		case recordChecker:
			x.startStream(st)
		}
		if l, ok := ch.(*Lock); ok {
			lk = l // the cut's lease rule is the lock's
		}
	}
	st.cut = &cutter{drift: lk.Drift, factor: lk.DriftFactor, alive: map[tokKey]aliveLease{},
		holding: map[procKey]string{}, counter: newCounterCut()}
	return st
}

// run reads the history, stopping at a record with a wrong index (the
// verdict is then Validate's).
func (st *stream) run() (warns []history.Warning, err error) {
	cur, err := st.src.Open(history.Pos{})
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	also := func(*history.Op, history.Pos) {}
	if st.c.Also != nil {
		r := newRelay(st.c.Also)
		defer r.wait()
		also = r.add
	}
	var lastTime int64 // the latest time so far
	for cur.Next() {
		if st.n&0xFFFF == 0 && st.ctx.Err() != nil {
			st.cancelled = true // see result
			break
		}
		st.rec = *cur.Op() // one copy reused: nothing keeps the pointer
		o := &st.rec
		if !st.v.add(int(st.n), o) || o.Index != st.n {
			break // the verdict is Validate's (see result)
		}
		lastTime = max(lastTime, o.Time)
		at := cur.Pos()
		also(o, at)
		st.add(o, at)
	}
	cur.Close()
	if err := cur.Err(); err != nil {
		return cur.Warnings(), err
	}
	st.order.flush(st.feedTimed)
	st.closeSeg(st.n, lastTime, -1, nil)
	st.wg.Wait()
	return cur.Warnings(), nil
}

// add takes record o, at position at.
func (st *stream) add(o *history.Op, at history.Pos) {
	i := o.Index
	if i >= int64(oneSegment) && i > 0 && i-st.cur.start >= int64(minSegment) && st.cut.canCut(o) {
		st.closeSeg(i, o.Time, at.Offset, st.cut.counter.carry())
	}
	to := st.cut.add(int(i), o)
	if t := st.refs.add(int(i), o); t >= 0 && (to < 0 || t < to) {
		to = t
	}
	if to >= 0 {
		st.referTo(int64(to))
	}
	if st.cur.over != nil {
		st.overflowAdd(o)
	} else if st.cur.recs = append(st.cur.recs, *o); len(st.cur.recs)+len(st.cur.moved) > maxSegRecords {
		st.overflowFrom(len(st.closed)) // see maxSegRecords
	}
	// the record-level summaries read records in time order (reorder)
	st.anyOK = st.anyOK || o.F == history.FAcquire && o.Type == history.OK
	st.order.push(o, st.feedTimed)
	st.n++
}

// referTo merges the segments from the one holding record `to` on into
// the current one.
func (st *stream) referTo(to int64) {
	if to >= st.cur.start || len(st.closed) == 0 {
		return
	}
	k := sort.Search(len(st.closed), func(i int) bool { return st.closed[i].end > to })
	st.wg.Wait() // their checks are dropped
	st.merges += len(st.closed) - k
	first := st.closed[k]
	over := st.cur.over != nil || st.cur.start-first.start+int64(len(st.cur.recs)) > int64(maxSegRecords)
	for _, s := range st.closed[k:] {
		over = over || s.over != nil
	}
	if over {
		st.overflowFrom(k)
		return
	}
	// (the acquires waiting since before first waited at its start: they
	// are first's moved ones)
	older := st.reread(first.offset, first.start, st.cur.start)
	st.reopen(k, append(older, st.cur.recs...), nil)
}

// reopen drops closed[k:] (and their kept searches) and makes the current
// segment start where closed[k] did, with records recs (ov if not buffered).
func (st *stream) reopen(k int, recs []history.Op, ov *overflow) {
	first := st.closed[k]
	st.keep.drop(first.start)
	st.cur = &streamSeg{start: first.start, at: first.at, offset: first.offset, moved: first.moved, carry: first.carry, recs: recs, over: ov}
	st.closed = st.closed[:k]
}

// reread reads records [from, to) again, from byte offset off; a failure
// panics (Unknown).
func (st *stream) reread(off, from, to int64) history.History {
	h, err := history.ReadRange(st.src, history.Pos{Index: from, Offset: off}, to)
	if err != nil {
		panic(fmt.Sprintf("checker: reading the history again: %v", err))
	}
	return h
}

// feedTimed gives a record, in time order, to the summaries that need it.
func (st *stream) feedTimed(o *history.Op) {
	st.fence.feed(o)
	st.tokens.writes.feed(o)
	st.liveness.add(o)
}

// closeSeg ends the current segment before record index end (at time at
// and byte offset off; -1 at the end) and starts its check; carry starts
// the next segment's counter.
func (st *stream) closeSeg(end, at, off int64, carry []*sectionInput) {
	seg := st.cur
	seg.end = end
	st.cur = &streamSeg{start: end, at: at, offset: off, carry: carry}
	st.closed = append(st.closed, seg)
	if seg.over != nil {
		st.closeOverflow(seg, at, off)
		return
	}
	h := st.detach(seg, off)
	if len(h) == 0 {
		st.unchecked(seg, Valid, "", nil)
		return
	}
	os := ops(h)
	for i := range os {
		st.feedOp(&os[i])
	}
	st.fedTo = end
	secs := counterSections(os)
	seg.nsecs = len(secs)
	secs = append(append([]*sectionInput(nil), seg.carry...), secs...)
	in := &segmentInput{seg: seg, h: h, os: os, secs: secs, keep: keepFailing}
	if seg.start == 0 && off < 0 {
		in.keep = keepWhole
	}
	st.checkSeg(in)
}

// detach is the ended segment's records, the acquires still waiting moved
// on to the next (unless at the end); both stay in index order.
func (st *stream) detach(seg *streamSeg, off int64) (h history.History) {
	drop := map[int64]bool{}
	for inv := range st.cut.ops.Invokes() {
		if off >= 0 && inv.F == history.FAcquire {
			drop[inv.Index] = true
		}
	}
	select {
	case h = <-st.bufs: // one a finished check gave back
	default:
	}
	for _, part := range [2]history.History{seg.moved, seg.recs} {
		for _, r := range part {
			if drop[r.Index] {
				st.cur.moved = append(st.cur.moved, r)
				continue
			}
			h = append(h, r)
		}
	}
	if cap(seg.recs) <= maxBuf { // h is a copy: the buffer serves the next segment
		st.cur.recs = seg.recs[:0]
	}
	seg.recs = nil
	return h
}

// checkSeg runs the segment checkers on in, on a goroutine of its own
// (at most GOMAXPROCS at once); a panic makes its parts Unknown.
func (st *stream) checkSeg(in *segmentInput) {
	seg, h := in.seg, in.h
	st.wg.Add(1)
	st.sem <- struct{}{}
	go func() {
		defer func() { <-st.sem; st.wg.Done() }()
		defer func() {
			if p := recover(); p != nil {
				st.unchecked(seg, Unknown, fmt.Sprintf("checker panicked on records %d to %d: %v\n%s", seg.start, seg.end, p, debug.Stack()), nil)
			}
		}()
		defer func() {
			if cap(h) <= maxBuf {
				select {
				case st.bufs <- h[:0]: // the checks keep nothing of h
				default:
				}
			}
		}()
		segmentChecked(seg.start)
		fillTokens(in.os) // after the summaries above, which read no token
		parts := make([]segmentPart, len(st.segs))
		for i, c := range st.segs {
			parts[i] = c.checkSegment(st.ctx, in)
		}
		seg.parts = parts
		st.keep.add(seg)
	}()
}

// feedOp gives op o to the op-level summaries (lost updates, cron, api
// and leader terms) once: when its segment first closes (or as it
// completes, not buffered).
func (st *stream) feedOp(o *op) {
	if o.Ret >= 0 && o.Ret < st.fedTo {
		return // fed when its segment first closed
	}
	st.lost.add(o, &st.lostAl)
	st.cron.add(o)
	st.terms.add(o)
}
