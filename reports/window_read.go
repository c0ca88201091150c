package reports

import (
	"slices"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
)

// maxWindowRecords bounds the records read for one anomaly window of a
// history not kept whole: at most half of them before the window's first
// anomaly record.
const maxWindowRecords = 20000

// readWindows reads the records of each anomaly window again from src,
// starting at a checkpoint of the pass (windowStart), into the window
// history.
func (s *runScan) readWindows(src history.Source, res *analysis.Result) error {
	pad := windowPad(res.Config.TTL)
	var ws []*windowRecords
	for _, win := range s.windows {
		w := &windowRecords{from: win.From - pad, to: win.To, first: win.Ops[0]}
		if err := s.readWindow(src, w, pad); err != nil {
			return err
		}
		ws = append(ws, w)
	}
	s.windowHistory(ws)
	return nil
}

// readWindow reads w's records from src: from the checkpoint windowStart
// picks, until maxWindowRecords are read from its first anomaly record
// on, or the records' times pass the window's end by more than pad (the
// records are in time order but for renewals recorded at their computed
// invoke time, a little earlier).
func (s *runScan) readWindow(src history.Source, w *windowRecords, pad int64) error {
	c, err := src.Open(s.windowStart(w))
	if err != nil {
		return err
	}
	defer c.Close()
	for c.Next() {
		o := c.Op()
		if o.Index > w.first && (o.Time > w.to+pad || len(w.before)+len(w.after) >= maxWindowRecords) {
			break
		}
		w.add(o)
	}
	return c.Err()
}

// windowStart is the checkpoint to read w from: the latest one at least
// maxWindowRecords/2 records before its first anomaly record (the most
// the window keeps before it) or, when later, the latest one before the
// window's start time.
func (s *runScan) windowStart(w *windowRecords) history.Pos {
	var at history.Pos
	for _, m := range s.marks {
		if m.pos.Index > w.first {
			break
		}
		if m.pos.Index <= w.first-maxWindowRecords/2 || m.time < w.from {
			at = m.pos
		}
	}
	return at
}

// windowRecords collects the records of one anomaly window with times
// in [from, to]: at most maxWindowRecords/2 of those before its first
// anomaly record (the latest ones), then up to maxWindowRecords in all.
type windowRecords struct {
	from, to int64
	first    int64
	before   []history.Op // a ring of the latest records before first
	next     int          // the ring's oldest slot once full
	after    []history.Op
}

func (w *windowRecords) add(o *history.Op) {
	if o.Time < w.from || o.Time > w.to {
		return
	}
	if o.Index < w.first {
		if len(w.before) < maxWindowRecords/2 {
			w.before = append(w.before, *o)
			return
		}
		w.before[w.next] = *o
		w.next = (w.next + 1) % len(w.before)
		return
	}
	if len(w.before)+len(w.after) < maxWindowRecords {
		w.after = append(w.after, *o)
	}
}

// records are the window's records in history order.
func (w *windowRecords) records() history.History {
	out := append(append(history.History{}, w.before[w.next:]...), w.before[:w.next]...)
	return append(out, w.after...)
}

// windowRead is what was read for one anomaly window: records with
// times in [from, to] ns, n of them, indices first..last.
type windowRead struct {
	from, to    int64
	first, last int64
	n           int
}

// windowHistory builds wh: the windows' records and the history's last
// record, in history order, renumbered; orig maps them back to the
// history's indices.
func (s *runScan) windowHistory(ws []*windowRecords) {
	keep := map[int64]history.Op{}
	for _, w := range ws {
		rs := w.records()
		r := windowRead{from: w.from, to: w.to, first: -1, last: -1, n: len(rs)}
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
	idx := make([]int64, 0, len(keep))
	for i := range keep {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	s.orig = idx
	s.wh = make(history.History, 0, len(idx))
	for _, i := range idx {
		o := keep[i]
		o.Index = int64(len(s.wh))
		s.wh = append(s.wh, o)
	}
}

// inWindow is the index in wh of the history's record i, false when wh
// lacks it.
func (s *runScan) inWindow(i int64) (int64, bool) {
	if s.orig == nil {
		return i, i >= 0 && i < int64(len(s.wh))
	}
	j, ok := slices.BinarySearch(s.orig, i)
	return int64(j), ok
}

// windowFaults are the fault windows with their start and stop records'
// indices in wh (-1 where wh lacks the record: a fault window then shades
// every row of the holders windows, not its clients' rows).
func (s *runScan) windowFaults() []checker.Window {
	if s.whole {
		return s.faults
	}
	out := make([]checker.Window, len(s.faults))
	for i, w := range s.faults {
		at := func(o int64) int64 {
			if j, ok := s.inWindow(o); ok {
				return j
			}
			return -1
		}
		w.StartOp, w.StopOp = at(w.StartOp), at(w.StopOp)
		out[i] = w
	}
	return out
}
