package reports

import (
	"maps"
	"slices"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// maxSpanRecords bounds the records read for one anomaly span of a
// history not kept whole: at most half of them before the span's first
// anomaly record.
const maxSpanRecords = 20000

// readSpans reads the records of each anomaly span again from src,
// starting at a checkpoint of the pass (spanCheckpoint), into the kept
// history.
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

// readSpan reads w's records from src: from the checkpoint spanCheckpoint
// picks, until maxSpanRecords are read from its first anomaly record
// on, or the records' times pass the span's end by more than pad (the
// records are in time order but for renewals recorded at their computed
// invoke time, a little earlier).
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

// spanCheckpoint is the checkpoint to read w from: the latest at least
// maxSpanRecords/2 records before its first anomaly record or, when
// later, the latest before the span's start time.
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

// spanRecords collects the records of one anomaly span with times
// in [from, to]: at most maxSpanRecords/2 of those before its first
// anomaly record (the latest ones), then up to maxSpanRecords in all.
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

// keepSpans builds kept: the spans' records and the history's last
// record, in history order, renumbered; orig maps them back to the
// history's indices.
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

// keptFaults are the fault windows with their start and stop records'
// indices in kept (-1 where kept lacks the record: a fault window then
// shades every row of the holders chart's spans, not its clients' rows).
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
