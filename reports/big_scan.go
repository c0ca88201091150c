package reports

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot/plotter"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
)

// A big history (harness.Result.HistoryFile set: at least
// harness.BigHistoryRecords records, or too many for the memory) is not
// in memory, and its report is drawn from two streamed passes over
// history.jsonl (scanBig), in memory bounded by the constants below and
// by the run's fault windows and processes, not by its records
// (measured: peak RSS 104 MB for 2M records, 126 MB for 10M):
//
//   - pass 1 counts the records and client operations, finds the fault
//     windows, each operation type's latency range and outcome counts,
//     the times of the anomalies' records and the records the page lists;
//   - the anomaly windows are picked from those times (anomalyWindowsBy);
//   - pass 2 fills the density layers of latency-raw.png (and the exact
//     points of its rare outcomes), a latency histogram per time bucket
//     for latency-quantiles.png, the completions per bucket for rate.png,
//     the holders overview (streamOccupancy), and reads the records of
//     the anomaly windows.
//
// The holders chart's windows and the porcupine pages then come from the
// window history (bigRun.wh): at most maxWindowRecords records around
// each of at most maxHolderWindows anomaly windows, renumbered; the
// page's records from pass 1; fencing.png from the resource's log
// (big_fencing.go).
const (
	// maxWindowRecords bounds the records read for one anomaly window:
	// at most half of them before the window's first anomaly record.
	maxWindowRecords = 20000
	// maxAnomalyOps bounds the anomaly records whose times pass 1 keeps
	// (to place the windows and the overview's anomaly marks).
	maxAnomalyOps = 50000
	// quantileBinRatio is the ratio between the edges of a latency
	// histogram bin: the quantiles of a big history's
	// latency-quantiles.png are within 2% of the exact ones (max is
	// exact).
	quantileBinRatio = 1.02
)

// bigRun is a big history's report data.
type bigRun struct {
	path    string
	records int64
	end     int64            // the last record's time, ns
	nem     history.History  // nemesis records (their own indices), pass 1 only
	faults  []checker.Window // fault windows (the history's indices)
	last    history.Op
	ops     int // client operations
	types   map[string]*typeDigest
	order   []string // types present, in opOrder

	times map[int64]int64      // anomaly records' times
	recs  map[int64]history.Op // records the page lists

	nslots int          // client slots: the run's, or more when records name more
	slots  *slotTracker // places processes in slots (pass 2)

	windows     []timeWindow // anomaly windows (their ops the history's indices)
	windowsLeft int
	collect     []*windowRecords
	read        []windowRead // what was read for each window

	occ *streamOccupancy

	// tokens issued on acquire (fencing.png): counted in pass 1, every
	// issuedEvery-th kept in pass 2
	issuedN, issuedSeen, issuedEvery int
	issued                           plotter.XYs

	wh   history.History // window history, renumbered
	whOf map[int64]int64 // history index -> wh index
}

// typeDigest is one operation type's share of the plots.
type typeDigest struct {
	f         string
	ops       int
	completed int
	lo, hi    float64 // completed latencies, ms (hi 0: none)
	groups    []int   // operations per rawGroups entry
	outcomes  map[history.Type]int

	raw    rawPanel
	hist   *latencyHist
	counts rateCounts
}

// slotStat is what pass 1 learns of a client slot's processes for its
// row label: the first few, and how many (counted as the slot's process
// id grows: the harness gives a slot ever larger ids).
type slotStat struct {
	first []int
	n     int
	top   int
}

// add counts process p of the slot.
func (s *slotStat) add(p int) {
	if s.n > 0 && p <= s.top {
		return
	}
	s.n++
	s.top = p
	if len(s.first) < 3 {
		s.first = append(s.first, p)
	}
}

// label is the slot's row label, as slotLabel writes it.
func (s *slotStat) label(slot int) string {
	if s.n <= 4 {
		return slotLabel(slot, s.first[:min(len(s.first), s.n)])
	}
	l := slotLabel(slot, s.first)
	return l[:len(l)-1] + fmt.Sprintf(", … +%d)", s.n-3)
}

// slotIndex is the slot of a record's Client ("c3" -> 2), -1 when none.
func slotIndex(client string) int {
	var n int
	if client == "" {
		return -1
	}
	if _, err := fmt.Sscanf(client, "c%d", &n); err != nil || n < 1 || n > 4096 {
		return -1
	}
	return n - 1
}

// spanTracker pairs invokes and completions by process as they are read
// (history.Pairs' rule), and hands each client operation to emit once it
// completed, was superseded by the process's next invoke (never
// completed), or the history ended (finish).
type spanTracker struct {
	open map[int]history.Op
	emit func(s span)
}

func newSpanTracker(emit func(s span)) *spanTracker {
	return &spanTracker{open: map[int]history.Op{}, emit: emit}
}

func (t *spanTracker) add(o *history.Op) {
	if o.IsNemesis() || o.F == history.FLost {
		return
	}
	if o.Type == history.Invoke {
		if prev, ok := t.open[o.Process]; ok {
			t.emit(span{F: prev.F, Proc: prev.Process, Inv: prev.Index, Call: prev.Time, Type: history.Info})
		}
		t.open[o.Process] = *o
		return
	}
	if inv, ok := t.open[o.Process]; ok {
		delete(t.open, o.Process)
		t.emit(span{F: inv.F, Proc: inv.Process, Inv: inv.Index, Call: inv.Time, Done: o.Time, Type: o.Type, Completed: true})
	}
}

func (t *spanTracker) finish() {
	for p, inv := range t.open {
		delete(t.open, p)
		t.emit(span{F: inv.F, Proc: inv.Process, Inv: inv.Index, Call: inv.Time, Type: history.Info})
	}
}

// groupOf is the index into rawGroups of a span's outcome.
func groupOf(s span) int {
	for i, g := range rawGroups {
		if s.Type == g.typ && s.Completed != g.open {
			return i
		}
	}
	return -1
}

// scanBig reads res's big history in two passes (see above).
func scanBig(res *harness.Result) (*bigRun, error) {
	b := &bigRun{path: res.HistoryFile, types: map[string]*typeDigest{}, times: map[int64]int64{}, recs: map[int64]history.Op{}}
	wantTime, wantRec := b.wanted(res)
	st := newSpanTracker(b.count)
	err := history.Each(history.File(b.path), func(o *history.Op) bool {
		b.records++
		b.end = max(b.end, o.Time)
		b.last = *o
		if wantTime[o.Index] {
			b.times[o.Index] = o.Time
		}
		if wantRec[o.Index] {
			b.recs[o.Index] = *o
		}
		if o.IsNemesis() {
			b.nem = append(b.nem, *o)
			return true
		}
		b.nslots = max(b.nslots, slotIndex(o.Client)+1)
		if o.F == history.FAcquire && o.Type == history.OK && o.Fence != 0 {
			b.issuedN++
		}
		st.add(o)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %w", b.path, err)
	}
	st.finish()
	if b.records > 0 {
		b.faults = checker.FaultWindows(append(b.nem, b.last)) // the last record ends unhealed windows
	}
	b.nem = nil // the windows keep the nemesis records they read
	b.nslots = max(b.nslots, res.Config.Clients)
	b.prepare(res)
	st = newSpanTracker(b.fill)
	err = history.Each(history.File(b.path), func(o *history.Op) bool {
		st.add(o)
		b.slots.add(o)
		b.occ.add(o)
		if o.F == history.FAcquire && o.Type == history.OK && o.Fence != 0 && !o.IsNemesis() {
			b.addIssued(o.Time, o.Fence)
		}
		for _, w := range b.collect {
			w.add(o)
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %w", b.path, err)
	}
	st.finish()
	b.occ.finish()
	b.windowHistory()
	return b, nil
}

// wanted are the records whose times pass 1 keeps (the anomalies', at
// most maxAnomalyOps) and the records the page lists (each anomaly's
// first maxRecordsShown, the coverage's evidence).
func (b *bigRun) wanted(res *harness.Result) (times, recs map[int64]bool) {
	times, recs = map[int64]bool{}, map[int64]bool{}
	for _, a := range allAnomalies(res.Verdict) {
		for i, o := range a.Ops {
			if len(times) < maxAnomalyOps {
				times[o] = true
			}
			if i < maxRecordsShown {
				recs[o] = true
			}
		}
	}
	if c := res.Coverage; c != nil {
		for _, w := range c.Windows {
			for _, t := range []*coverage.Touch{w.Holder, w.Waiter, w.Write} {
				if t != nil {
					recs[t.Op] = true
				}
			}
		}
	}
	return times, recs
}

// count is pass 1's handling of a client operation.
func (b *bigRun) count(s span) {
	b.ops++
	d := b.types[s.F]
	if d == nil {
		d = &typeDigest{f: s.F, lo: 0, groups: make([]int, len(rawGroups)), outcomes: map[history.Type]int{}}
		b.types[s.F] = d
	}
	d.ops++
	if g := groupOf(s); g >= 0 {
		d.groups[g]++
	}
	if !s.Completed {
		return
	}
	d.completed++
	d.outcomes[s.Type]++
	l := latencyMs(s)
	if d.hi == 0 || l < d.lo {
		d.lo = l
	}
	d.hi = max(d.hi, l)
}

// latencyMs is a completed span's latency on the plots' log axes, ms.
func latencyMs(s span) float64 { return max(millis(s.Latency()), minLatencyMs) }

// prepare sets up pass 2: the panels' layers and buckets, the anomaly
// windows and their record collectors, the holders overview.
func (b *bigRun) prepare(res *harness.Result) {
	var names []string
	for f := range b.types {
		names = append(names, f)
	}
	b.order = orderTypes(names)
	thin := dense(b.ops)
	width := bucketWidth(b.end)
	for _, d := range b.types {
		d.raw = rawPanel{f: d.f, ops: d.ops, lo: d.lo, hi: d.hi, groups: make([]rawLayer, len(rawGroups))}
		ymin, ymax, _ := d.raw.yRange()
		for i, g := range rawGroups {
			if thin && d.groups[i] > maxExactGroup {
				d.raw.groups[i].heat = emptyHeat(heatRows, 0, xMax(b.end), ymin, ymax, true, opaque(g.glyph.Color))
			}
		}
		d.hist = newLatencyHist(b.end, width, d.lo, d.hi)
		d.counts = newRateCounts(b.end, width)
	}
	timeOf := func(i int64) (int64, bool) { t, ok := b.times[i]; return t, ok }
	pad := windowPad(res.Config.TTL)
	b.windows, b.windowsLeft = anomalyWindowsBy(timeOf, allAnomalies(res.Verdict), pad, b.end, maxHolderWindows)
	for _, w := range b.windows {
		first := w.Ops[0]
		b.collect = append(b.collect, &windowRecords{from: w.From - pad, to: w.To, first: first})
	}
	b.issuedEvery = max((b.issuedN+maxFenceSample-1)/maxFenceSample, 1)
	b.slots = newSlotTracker(b.nslots)
	b.occ = newStreamOccupancy(b.slots, xMax(b.end))
}

// fill is pass 2's handling of a client operation.
func (b *bigRun) fill(s span) {
	d := b.types[s.F]
	if d == nil {
		return
	}
	g := groupOf(s)
	if g >= 0 {
		_, _, capMs := d.raw.yRange()
		y := capMs
		if s.Completed {
			y = latencyMs(s)
		}
		if l := &d.raw.groups[g]; l.heat != nil {
			l.heat.add(seconds(s.Call), y)
		} else {
			l.xys = append(l.xys, plotter.XY{X: seconds(s.Call), Y: y})
		}
	}
	if s.Completed {
		d.hist.add(s.Call, latencyMs(s))
		d.counts.add(s.Type, s.Done)
	}
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
// record, in history order, renumbered; whOf maps the history's indices
// to it.
func (b *bigRun) windowHistory() {
	keep := map[int64]history.Op{}
	for _, w := range b.collect {
		rs := w.records()
		r := windowRead{from: w.from, to: w.to, first: -1, last: -1, n: len(rs)}
		if len(rs) > 0 {
			r.first, r.last = rs[0].Index, rs[len(rs)-1].Index
		}
		b.read = append(b.read, r)
		for _, o := range rs {
			keep[o.Index] = o
		}
	}
	if b.records > 0 {
		keep[b.last.Index] = b.last
	}
	idx := make([]int64, 0, len(keep))
	for i := range keep {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	b.whOf = make(map[int64]int64, len(idx))
	b.wh = make(history.History, 0, len(idx))
	for _, i := range idx {
		o := keep[i]
		b.whOf[i] = int64(len(b.wh))
		o.Index = int64(len(b.wh))
		b.wh = append(b.wh, o)
	}
	b.collect = nil
}

// windowFaults are the fault windows with their start and stop records'
// indices in wh (-1 where wh lacks the record: a fault window then shades
// every row of the holders windows, not its clients' rows).
func (b *bigRun) windowFaults() []checker.Window {
	out := make([]checker.Window, len(b.faults))
	for i, w := range b.faults {
		at := func(o int64) int64 {
			if j, ok := b.whOf[o]; ok {
				return j
			}
			return -1
		}
		w.StartOp, w.StopOp = at(w.StartOp), at(w.StopOp)
		out[i] = w
	}
	return out
}

// windowVerdict is v with every anomaly's ops mapped to the window
// history's indices; ops outside it are dropped, and so are anomalies
// left without ops that had some.
func (b *bigRun) windowVerdict(v checker.Result) checker.Result {
	mapAll := func(as []checker.Anomaly) []checker.Anomaly {
		var out []checker.Anomaly
		for _, a := range as {
			had := len(a.Ops) > 0
			var ops []int64
			for _, o := range a.Ops {
				if j, ok := b.whOf[o]; ok {
					ops = append(ops, j)
				}
			}
			if had && len(ops) == 0 {
				continue
			}
			a.Ops = ops
			out = append(out, a)
		}
		return out
	}
	out := v
	out.Anomalies = mapAll(v.Anomalies)
	out.Results = nil
	for _, r := range v.Results {
		r.Anomalies = mapAll(r.Anomalies)
		out.Results = append(out.Results, r)
	}
	return out
}
