package reports

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
)

// anomalySpan is a stretch [From, To] ns of a run drawn in detail around
// anomalies.
type anomalySpan struct {
	From, To int64
	// Kinds are the kinds of the anomalies it holds, each once, in order.
	Kinds []string
	// Ops are the anomalies' record indices, ascending, each once.
	Ops []int64
	// Anomalies is how many anomalies it holds; Fatal how many of them
	// make the verdict invalid.
	Anomalies, Fatal int
}

// Label is a one-line description: "overlap, lost-update: 3 anomalies,
// ops 120..4410, 12.300–13.100 s".
func (w anomalySpan) Label() string {
	what, ops := page.Count(w.Anomalies, "anomaly", "anomalies"), ""
	switch len(w.Ops) {
	case 0:
	case 1:
		ops = fmt.Sprintf(", op %d", w.Ops[0])
	default:
		ops = fmt.Sprintf(", ops %d..%d", w.Ops[0], w.Ops[len(w.Ops)-1])
	}
	return fmt.Sprintf("%s: %s%s, %.3f–%.3f s", strings.Join(w.Kinds, ", "), what, ops, seconds(w.From), seconds(w.To))
}

// allAnomalies are every anomaly of v's checkers (v's own when it has no
// parts), in the checkers' order.
func allAnomalies(v checker.Result) []checker.Anomaly {
	var out []checker.Anomaly
	for _, r := range checkerParts(v) {
		out = append(out, r.Anomalies...)
	}
	return out
}

// checkerParts are v's checkers' results, v itself when it has none.
func checkerParts(v checker.Result) []checker.Result {
	if len(v.Results) == 0 {
		return []checker.Result{v}
	}
	return v.Results
}

// spanPad is how far a span reaches around its anomalies: two TTLs, at
// least 200 ms.
func spanPad(ttl time.Duration) int64 { return max(2*int64(ttl), int64(200*time.Millisecond)) }

// timeIn is the time of record i of h, false when h has no record i.
func timeIn(h history.History) func(i int64) (int64, bool) {
	return func(i int64) (int64, bool) {
		if i < 0 || i >= int64(len(h)) {
			return 0, false
		}
		return h[i].Time, true
	}
}

// anomalySpans are the spans around each anomaly's ops (times by timeOf)
// padded by pad (ops spread over 10 pads: around the last), merged and
// picked (pickSpans).
func anomalySpans(timeOf func(i int64) (int64, bool), as []checker.Anomaly, pad, end int64, maxN int) (ws []anomalySpan, left int) {
	var all []anomalySpan
	for _, a := range as {
		var ops []int64
		lo, hi := int64(-1), int64(-1)
		for _, o := range a.Ops {
			t, ok := timeOf(o)
			if !ok {
				continue
			}
			ops = append(ops, o)
			if lo < 0 || t < lo {
				lo = t
			}
			hi = max(hi, t)
		}
		if len(ops) == 0 {
			continue
		}
		if hi-lo > 10*pad {
			last, _ := timeOf(slices.Max(ops))
			lo, hi = last-pad, last
			var near []int64
			for _, o := range ops {
				if t, _ := timeOf(o); t >= lo-pad && t <= hi+pad {
					near = append(near, o)
				}
			}
			ops = near
		}
		all = append(all, anomalySpan{From: max(lo-pad, 0), To: min(hi+pad, max(end, hi)), Kinds: []string{a.Kind}, Ops: ops,
			Anomalies: 1, Fatal: oneIf(a.Fatal)})
	}
	return pickSpans(mergeSpans(all), maxN)
}

// mergeSpans merges the overlapping spans of all, in time order.
func mergeSpans(all []anomalySpan) []anomalySpan {
	slices.SortStableFunc(all, func(a, b anomalySpan) int { return cmp.Compare(a.From, b.From) })
	var merged []anomalySpan
	for _, w := range all {
		if n := len(merged); n > 0 && w.From <= merged[n-1].To {
			m := &merged[n-1]
			m.To = max(m.To, w.To)
			for _, k := range w.Kinds {
				if !slices.Contains(m.Kinds, k) {
					m.Kinds = append(m.Kinds, k)
				}
			}
			m.Ops = append(m.Ops, w.Ops...)
			m.Anomalies += w.Anomalies
			m.Fatal += w.Fatal
			continue
		}
		merged = append(merged, w)
	}
	for i := range merged {
		slices.Sort(merged[i].Ops)
		merged[i].Ops = slices.Compact(merged[i].Ops)
	}
	return merged
}

// pickSpans picks at most maxN spans, fatal ones first, in time order;
// left is how many were not.
func pickSpans(merged []anomalySpan, maxN int) (ws []anomalySpan, left int) {
	order := make([]int, len(merged))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return oneIf(merged[b].Fatal > 0) - oneIf(merged[a].Fatal > 0) })
	if len(order) > maxN {
		left = len(order) - maxN
		order = order[:maxN]
	}
	slices.Sort(order)
	for _, i := range order {
		ws = append(ws, merged[i])
	}
	return ws, left
}

// maxSpanRecords bounds the records read for a span, half before its
// first anomaly record.
const maxSpanRecords = 20000

// readSpans reads each span's records again from src into kept.
func (s *runScan) readSpans(src history.Source, res *analysis.Result) error {
	pad := spanPad(res.Config.TTL)
	var ws []*spanRecords
	for _, a := range s.spans {
		w := &spanRecords{from: a.From - pad, to: a.To, first: a.Ops[0]}
		if err := s.readSpan(src, w, pad); err != nil {
			return err
		}
		ws = append(ws, w)
	}
	s.keepSpans(ws)
	return nil
}

// readSpan reads w's records from its checkpoint until maxSpanRecords or
// times pad past its end (renewals are recorded a little out of order).
func (s *runScan) readSpan(src history.Source, w *spanRecords, pad int64) error {
	c, err := src.Open(s.spanCheckpoint(w))
	if err != nil {
		return err
	}
	defer c.Close()
	for c.Next() {
		o := c.Op()
		if o.Index > w.first && (o.Time > w.to+pad || len(w.before)+len(w.after) >= maxSpanRecords) {
			break
		}
		w.add(o)
	}
	return c.Err()
}

// spanCheckpoint is the latest checkpoint maxSpanRecords/2 records
// before w's first anomaly record or, when later, before its start.
func (s *runScan) spanCheckpoint(w *spanRecords) history.Pos {
	var at history.Pos
	for _, m := range s.marks {
		if m.pos.Index > w.first {
			break
		}
		if m.pos.Index <= w.first-maxSpanRecords/2 || m.time < w.from {
			at = m.pos
		}
	}
	return at
}

// spanRecords collects a span's records in [from, to]: the latest
// maxSpanRecords/2 before its first anomaly record, maxSpanRecords in all.
type spanRecords struct {
	from, to int64
	first    int64
	before   []history.Op // a ring of the latest records before first
	next     int          // the ring's oldest slot once full
	after    []history.Op
}

func (w *spanRecords) add(o *history.Op) {
	if o.Time < w.from || o.Time > w.to {
		return
	}
	if o.Index < w.first {
		if len(w.before) < maxSpanRecords/2 {
			w.before = append(w.before, *o)
			return
		}
		w.before[w.next] = *o
		w.next = (w.next + 1) % len(w.before)
		return
	}
	if len(w.before)+len(w.after) < maxSpanRecords {
		w.after = append(w.after, *o)
	}
}

// records are the span's records in history order.
func (w *spanRecords) records() history.History {
	out := append(append(history.History{}, w.before[w.next:]...), w.before[:w.next]...)
	return append(out, w.after...)
}

// spanRead is what was read for one anomaly span: records with
// times in [from, to] ns, n of them, indices first..last.
type spanRead struct {
	from, to    int64
	first, last int64
	n           int
}

// keepSpans makes kept the spans' records and the last, renumbered;
// orig maps them back.
func (s *runScan) keepSpans(ws []*spanRecords) {
	keep := map[int64]history.Op{}
	for _, w := range ws {
		rs := w.records()
		r := spanRead{from: w.from, to: w.to, first: -1, last: -1, n: len(rs)}
		if len(rs) > 0 {
			r.first, r.last = rs[0].Index, rs[len(rs)-1].Index
		}
		s.read = append(s.read, r)
		for _, o := range rs {
			keep[o.Index] = o
		}
	}
	if s.records > 0 {
		keep[s.last.Index] = s.last
	}
	idx := slices.Sorted(maps.Keys(keep))
	s.orig = idx
	s.kept = make(history.History, 0, len(idx))
	for _, i := range idx {
		o := keep[i]
		o.Index = int64(len(s.kept))
		s.kept = append(s.kept, o)
	}
}

// inKept is the index in kept of the history's record i, false when kept
// lacks it.
func (s *runScan) inKept(i int64) (int64, bool) {
	if s.orig == nil {
		return i, i >= 0 && i < int64(len(s.kept))
	}
	j, ok := slices.BinarySearch(s.orig, i)
	return int64(j), ok
}

// keptFaults are the fault windows with kept's indices (-1: not kept).
func (s *runScan) keptFaults() []checker.Window {
	if s.whole {
		return s.faults
	}
	out := make([]checker.Window, len(s.faults))
	for i, w := range s.faults {
		at := func(o int64) int64 {
			if j, ok := s.inKept(o); ok {
				return j
			}
			return -1
		}
		w.StartOp, w.StopOp = at(w.StartOp), at(w.StopOp)
		out[i] = w
	}
	return out
}
