package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/lease"
	"github.com/lockstorm/lockstorm/resource"
)

// Every picture is drawn from one pass over the history, riding on the
// check's read or its own (scanRun). It keeps each client operation
// (opLog) and lease (leaseLog), the fault windows, checkpoints to read
// records again (resolve), and the kept history: the whole history up to
// maxWholeRecords records, else the records around the anomaly spans.

// maxWholeRecords is the longest history kept whole (~1 KB a record).
// Tests lower it.
var maxWholeRecords int64 = 100_000

// checkpointEvery is how many records apart the pass notes where it is in
// the history, for the anomaly spans to be read again from there.
const checkpointEvery = 4096

// runScan is what the pass over a run's history keeps (see above).
type runScan struct {
	records int64
	end     int64 // the latest record's time, ns
	last    history.Op
	win     checker.WindowPairer // the fault windows, as the nemesis records arrive
	faults  []checker.Window     // fault windows (the history's indices)

	ops        *opLog
	leases     *leaseFollower
	slots      *slotTracker
	fences     chunks[histFence] // for fencing.png without a resource log
	keepFences bool

	wantTime, wantRec map[int64]bool
	times             map[int64]int64      // anomaly records' times
	recs              map[int64]history.Op // records the page lists

	// whole: kept is the whole history; else the records read around the
	// anomaly spans, renumbered: kept[j] is the history's orig[j].
	whole bool
	kept  history.History
	orig  []int64
	marks []checkpoint

	d         *detail // kept's
	fenceLog  *logFences
	spans     []anomalySpan // anomaly spans read (their ops the history's indices)
	spansLeft int
	read      []spanRead // what was read for each span
}

// histFence is a resource operation of the history: its opLog index and
// its fencing token.
type histFence struct {
	op    int32
	fence int64
}

// checkpoint is where a record starts in the history, and its time.
type checkpoint struct {
	pos  history.Pos
	time int64
}

// Pass is the report's pass riding on the check's read of the history:
// NewPass, Add every record, then WriteFrom.
type Pass struct {
	s   *runScan
	lg  resourceLog
	err error
}

// NewPass starts the report's pass over res's history, to be handed the
// records as the check reads them.
func NewPass(res *analysis.Result) *Pass {
	lg, err := runLog(res)
	return &Pass{s: newScan(res, lg.n == 0), lg: lg, err: err}
}

// Add follows one record at position at and the lease events it caused
// (an analysis.FollowLeases tracker's).
func (p *Pass) Add(o *history.Op, at history.Pos, leases []lease.Event) { p.s.add(o, at, leases) }

// End takes the lease events that end the leases still held.
func (p *Pass) End(leases []lease.Event) { p.s.leases.take(leases) }

// scan is p's pass completed, or a pass of its own (scanRun) without p or
// when p was not handed every record.
func (p *Pass) scan(res *analysis.Result) (*runScan, error) {
	if p == nil || res.Records == 0 || p.s.records < int64(res.Records) {
		return scanRun(res)
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.s, p.s.complete(res, p.lg)
}

// scanRun reads res's history in one pass and completes it.
func scanRun(res *analysis.Result) (*runScan, error) {
	p := NewPass(res)
	if p.err != nil {
		return nil, p.err
	}
	c, err := sourceOf(res).Open(history.Pos{})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	defer c.Close()
	leases := analysis.FollowLeases(res.Config)
	for c.Next() {
		p.Add(c.Op(), c.Pos(), leases.Add(c.Op()))
	}
	p.End(leases.Finish())
	if err := c.Err(); err != nil {
		return nil, fmt.Errorf("reports: history: %w", err)
	}
	return p.s, p.s.complete(res, p.lg)
}

// complete ends the pass once res's verdict is known: resolve, the
// anomaly spans (readSpans), the resource log lg (readLog), the detail.
func (s *runScan) complete(res *analysis.Result, lg resourceLog) error {
	src := sourceOf(res)
	if err := s.resolve(src, res); err != nil {
		return fmt.Errorf("reports: history: %w", err)
	}
	s.finish(res)
	if !s.whole {
		if err := s.readSpans(src, res); err != nil {
			return fmt.Errorf("reports: history: %w", err)
		}
	}
	writes, err := s.readLog(lg)
	if err != nil {
		return err
	}
	s.d = detailOf(s.kept, s.slots.slotMap(s.kept), s.keptFaults(), writes, lostPairs(s.kept, res.Verdict, s.inKept), analysis.LeaseOptions(res.Config))
	return nil
}

// sourceOf is res's history, an empty one when it has none.
func sourceOf(res *analysis.Result) history.Source {
	if res.History == nil {
		return history.Slice(nil)
	}
	return res.History
}

// newScan prepares the pass over res's history; one of more than
// maxWholeRecords records (res.Records, when known) is not kept whole.
func newScan(res *analysis.Result, keepFences bool) *runScan {
	s := &runScan{ops: newOpLog(), slots: newSlotTracker(max(res.Config.Clients, 0)), keepFences: keepFences,
		times: map[int64]int64{}, recs: map[int64]history.Op{}, whole: int64(res.Records) <= maxWholeRecords}
	s.leases = newLeaseFollower()
	if s.whole && res.Records > 0 {
		s.kept = make(history.History, 0, res.Records)
	}
	return s
}

// add follows one record, read at position at, and the lease events it
// caused.
func (s *runScan) add(o *history.Op, at history.Pos, leases []lease.Event) {
	if s.records%checkpointEvery == 0 {
		s.marks = append(s.marks, checkpoint{at, o.Time})
	}
	s.records++
	s.end = max(s.end, o.Time)
	s.last = *o
	if s.whole {
		if s.records > maxWholeRecords {
			s.whole, s.kept = false, nil
		} else {
			s.kept = append(s.kept, *o)
		}
	}
	s.slots.add(o)
	if o.IsNemesis() {
		s.win.Add(o)
		return
	}
	if i := s.ops.add(o); i >= 0 && s.keepFences && (o.F == history.FWrite || o.F == history.FEnter || o.F == history.FRead && o.Fence != 0) {
		s.fences.add(histFence{op: int32(i), fence: o.Fence})
	}
	s.leases.add(o, leases)
}

// finish closes the pass (its leases ended by Pass.End): the fault windows and,
// for a history not kept whole, the anomaly spans to read.
func (s *runScan) finish(res *analysis.Result) {
	s.ops.ops = history.Pairer{} // the operations never completed stay open
	if s.records > 0 {
		s.faults, _ = s.win.Finish(s.end) // the unhealed windows end at the last record
	}
	if !s.whole {
		s.spans, s.spansLeft = anomalySpans(s.timeOf, allAnomalies(res.Verdict), spanPad(res.Config.TTL), s.end, maxHolderSpans)
	}
}

// wanted are the records whose times the pass keeps (the anomalies')
// and those the page lists (anomalies' first; coverage evidence says
// what its record is itself).
func wanted(res *analysis.Result) (times, recs map[int64]bool) {
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
	return times, recs
}

// maxAnomalyOps bounds the anomaly records whose times the pass keeps.
const maxAnomalyOps = 50000

// timeOf is the time of anomaly record i as the pass kept it, false when
// unknown.
func (s *runScan) timeOf(i int64) (int64, bool) {
	t, ok := s.times[i]
	return t, ok
}

// recordAt is record i of the history among those the page lists.
func (s *runScan) recordAt(i int64) (history.Op, bool) {
	o, ok := s.recs[i]
	return o, ok
}

// overview is the holders overview of the run's leases to end (ns).
func (s *runScan) overview(end int64) *occupancy {
	return occupancyOf(&s.leases.log, s.slots.clients, s.slots.slot, xMax(end))
}

// keepWanted keeps what the page wants of record o: its time, the record.
func (s *runScan) keepWanted(o *history.Op) {
	if s.wantTime[o.Index] {
		s.times[o.Index] = o.Time
	}
	if s.wantRec[o.Index] {
		s.recs[o.Index] = *o
	}
}

// resolve keeps what the page wants of the records (wanted): from kept
// when it is the whole history, else read again (readAt).
func (s *runScan) resolve(src history.Source, res *analysis.Result) error {
	s.wantTime, s.wantRec = wanted(res)
	var idx []int64
	for _, want := range []map[int64]bool{s.wantTime, s.wantRec} {
		for i := range want {
			if i >= 0 && i < s.records {
				idx = append(idx, i)
			}
		}
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	if s.whole {
		for _, i := range idx {
			s.keepWanted(&s.kept[i])
		}
		return nil
	}
	return s.readAt(src, idx, s.keepWanted)
}

// readAt reads the records idx (ascending) of src again, each from the
// pass's checkpoint before it, and calls f on each.
func (s *runScan) readAt(src history.Source, idx []int64, f func(o *history.Op)) error {
	for len(idx) > 0 {
		k := sort.Search(len(s.marks), func(k int) bool { return s.marks[k].pos.Index > idx[0] }) - 1
		c, err := src.Open(s.marks[max(k, 0)].pos)
		if err != nil {
			return err
		}
		end := true
		for c.Next() {
			o := c.Op()
			for len(idx) > 0 && idx[0] < o.Index {
				idx = idx[1:] // not in the history
			}
			if len(idx) > 0 && o.Index == idx[0] {
				f(o)
				idx = idx[1:]
			}
			if len(idx) == 0 || idx[0]-o.Index > checkpointEvery {
				end = false
				break // the next from its own checkpoint
			}
		}
		err = c.Err()
		c.Close()
		if err != nil {
			return err
		}
		if end {
			return nil
		}
	}
	return nil
}

// resourceLog is the run's resource log (Result.EachWrite) of n entries.
type resourceLog struct {
	res *analysis.Result
	n   int
}

// runLog finds res's resource log.
func runLog(res *analysis.Result) (resourceLog, error) {
	if len(res.Writes) > 0 || res.Dir == "" {
		return resourceLog{res, len(res.Writes)}, nil
	}
	n, err := history.CountLines(filepath.Join(res.Dir, store.WritesFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return resourceLog{}, fmt.Errorf("reports: %w", err)
	}
	return resourceLog{res, n}, nil
}

// readLog reads the resource log once: the kept history's entries, and
// fencing.png's points into s.fenceLog.
func (s *runScan) readLog(l resourceLog) (entries []resource.Write, err error) {
	f := &logFences{fenceSample: newFenceSample[fencePoint](l.n), highest: map[string]int64{}}
	s.fenceLog = f
	if l.n == 0 {
		return nil, nil
	}
	n := make([]int, len(s.read))
	err = l.res.EachWrite(func(w *resource.Write) {
		f.add(w)
		if s.whole {
			entries = append(entries, *w)
			return
		}
		for i, r := range s.read {
			if w.Time >= r.from && w.Time <= r.to && n[i] < maxSpanRecords {
				n[i]++
				entries = append(entries, *w)
				break
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	return entries, nil
}
