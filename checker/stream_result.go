package checker

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// result assembles the composed result; any checker but the segment and
// record checkers checks the whole history, read again.
func (st *stream) result() Result {
	res := Result{Name: st.c.Label}
	if err := st.v.finish(); err != nil {
		res.Valid, res.Error = Unknown, err.Error()
		res.Results = []Result{{Name: "validate", Valid: Invalid, Error: err.Error(), Seconds: time.Since(st.start).Seconds()}}
		res.Seconds = time.Since(st.start).Seconds()
		return res
	}
	windows, _ := st.v.win.Finish(st.v.end)
	t0 := time.Now()
	st.live = st.liveness.result(windows) // first: it ends the token check too
	st.live.Seconds = time.Since(t0).Seconds()
	seg := 0
	for _, ch := range st.c.Checkers {
		t0 := time.Now()
		var r Result
		switch x := ch.(type) {
		case segmentChecker:
			parts := make([]segmentPart, len(st.closed))
			for i, s := range st.closed {
				parts[i] = s.parts[seg]
			}
			seg++
			r = x.mergeSegments(st, parts)
		case recordChecker:
			r = x.streamResult(st)
		default:
			r = safeCheck(st.ctx, ch, st.reread(0, 0, st.n))
		}
		if r.Seconds == 0 {
			r.Seconds = time.Since(t0).Seconds()
		}
		res.Results = append(res.Results, r)
	}
	st.finish(&res, windows)
	return res
}

// finish adds the token check and the fault labels to res, making the
// verdicts Unknown if cancelled or if records came too late.
func (st *stream) finish(res *Result, windows []Window) {
	times := st.anomalyTimes(res.Results)
	tr := st.tokens.result()
	if why := st.order.lateError(); why != "" {
		tr = Result{Name: tr.Name, Valid: Unknown, Error: why}
		for i := range res.Results {
			if n := res.Results[i].Name; n == "liveness" || n == "fencing" {
				res.Results[i].Valid, res.Results[i].Error = Unknown, why
			}
		}
	}
	finishWith(res, tr, st.anyOK, windows, st.n, func(i int64) int64 { return times[i] })
	if st.cancelled {
		why := fmt.Sprintf("check cancelled after %d records: %v", st.n, st.ctx.Err())
		res.Valid, res.Error = Unknown, why
		for i := range res.Results {
			if res.Results[i].Valid != Unknown {
				res.Results[i].Valid, res.Results[i].Error = Unknown, why
			}
		}
	}
	res.Seconds = time.Since(st.start).Seconds()
}

// joinedOps are the ops of segments k..j joined, read again (fillTokens
// applied), without the acquires still waiting at j's end.
func (st *stream) joinedOps(k, j int) []op {
	first := st.closed[k]
	h := append(slices.Clone(first.moved), st.reread(first.offset, first.start, st.closed[j].end)...)
	if j+1 < len(st.closed) { // without the acquires still waiting: they moved on
		h = slices.DeleteFunc(h, func(r history.Op) bool {
			return slices.ContainsFunc(st.closed[j+1].moved, func(m history.Op) bool { return m.Index == r.Index })
		})
	}
	os := ops(h)
	fillTokens(os)
	return os
}

// anomalyTimes reads the times of the records anomalies start with.
func (st *stream) anomalyTimes(rs []Result) map[int64]int64 {
	want := map[int64]bool{}
	for _, r := range rs {
		for _, a := range r.Anomalies {
			if len(a.Ops) > 0 && a.Faults == nil && a.Ops[0] >= 0 && a.Ops[0] < st.n {
				want[a.Ops[0]] = true
			}
		}
	}
	times := map[int64]int64{}
	if len(want) == 0 {
		return times
	}
	history.Each(st.src, func(o *history.Op) bool {
		if want[o.Index] {
			times[o.Index] = o.Time
		}
		return len(times) < len(want)
	})
	return times
}

// keeper keeps, per segment checker, the searches of only the
// maxDrawnSegments earliest segments.
type keeper struct {
	mu   sync.Mutex
	segs []*streamSeg // checked segments that keep a search, by start
}

// add takes seg, checked, and drops the searches past the earliest.
func (k *keeper) add(seg *streamSeg) {
	if !slices.ContainsFunc(seg.parts, keptSearch) {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	i, _ := slices.BinarySearchFunc(k.segs, seg.start, func(s *streamSeg, start int64) int { return cmp.Compare(s.start, start) })
	k.segs = slices.Insert(k.segs, i, seg)
	for c := range seg.parts {
		n := 0
		for _, s := range k.segs {
			if keptSearch(s.parts[c]) {
				if n++; n > maxDrawnSegments {
					p := s.parts[c].(piece)
					p.lin = nil
					s.parts[c] = p
				}
			}
		}
	}
	k.segs = slices.DeleteFunc(k.segs, func(s *streamSeg) bool { return !slices.ContainsFunc(s.parts, keptSearch) })
}

// drop forgets the segments from start on (merged into a later one).
func (k *keeper) drop(start int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.segs = slices.DeleteFunc(k.segs, func(s *streamSeg) bool { return s.start >= start })
}

// keptSearch says a segment part keeps a search.
func keptSearch(p segmentPart) bool {
	pc, ok := p.(piece)
	return ok && pc.lin != nil
}
