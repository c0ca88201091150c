package reports

import (
	"fmt"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
)

// Every picture of the report is drawn from one pass over the run's
// history, res.Source() (its file, or its records in memory), whatever its
// length: riding on the check's read (Analyze), else a read of its own
// (scanRun). The pass keeps
//
//   - per client operation its type, outcome and times (opLog): latency-raw.png,
//     latency-quantiles.png and rate.png are drawn from them, exactly;
//   - per lease its process and times (leaseLog): the holders overview and
//     fencing.png's issued tokens;
//   - the fault windows and where it was in the history every
//     checkpointEvery records, from which, once the check has named the
//     anomalies, the records index.html lists (each anomaly's first
//     records, the coverage's evidence) and the times of the anomalies'
//     records are read again (resolve);
//   - the window history (wh), from which timeline.html, the client-pause
//     stories, the detailed holders chart, the porcupine pages and
//     fencing.png's send times are drawn: up to maxWholeRecords records the
//     whole history, every record kept; past that, the records read again
//     around the anomalies (at most maxHolderWindows windows of at most
//     maxWindowRecords records), from positions the pass noted, and the
//     page says which pictures are windows or samples (notes).
//
// Its memory is the window history and about 20 bytes per client
// operation (opLog, leaseLog).

// maxWholeRecords is the longest history whose report is drawn whole: up
// to it the pass keeps every record, so that timeline.html, the
// client-pause stories, the detailed holders chart and porcupine.html
// show the whole run, as they always have. Drawing them from the whole
// history costs about 1 KB a record besides the rest of the report (the
// records, and the leases, pairs, slot map, arrivals and boxes derived
// from them; measured: 190 MB peak at 100k records, where a longer
// history's report, drawn from windows, takes 95 MB), and a run this long
// is already past what those pictures show whole (timeline.html draws
// 20000 boxes, porcupine.html 20000 operations, holders.png's chart 2000
// leases). So past it the report draws them from windows around the
// anomalies, and says so, in memory that no longer grows with the
// records but by 10 bytes an operation. Tests lower it.
var maxWholeRecords int64 = 100_000

// checkpointEvery is how many records apart the pass notes where it is in
// the history, for the anomaly windows to be read again from there.
const checkpointEvery = 4096

// runScan is what the pass over a run's history keeps (see above).
type runScan struct {
	records int64
	end     int64 // the latest record's time, ns
	last    history.Op
	nem     history.History  // nemesis records
	faults  []checker.Window // fault windows (the history's indices)

	ops    *opLog
	leases *leaseFollower
	slots  *slotTracker
	// fences are the history's resource operations (their index in ops
	// and their token), for fencing.png when the run has no resource log.
	fences     chunks[histFence]
	keepFences bool

	wantTime, wantRec map[int64]bool
	times             map[int64]int64      // anomaly records' times
	recs              map[int64]history.Op // records the page lists

	// whole says wh is the whole history, its records' indices the
	// history's; else wh is the records read around the anomaly windows,
	// renumbered: wh's record j is the history's orig[j] (orig nil for a
	// whole history).
	whole bool
	wh    history.History
	orig  []int64
	marks []checkpoint

	// d is wh's detail, with the resource log's entries of wh; fenceLog
	// is fencing.png's points of the log (readLog).
	d           *detail
	fenceLog    *logFences
	windows     []timeWindow // anomaly windows read (their ops the history's indices)
	windowsLeft int
	read        []windowRead // what was read for each window
}

// histFence is a resource operation of the history: its index in the
// opLog and the fencing token it carried.
type histFence struct {
	op    int32
	fence int64
}

// checkpoint is where a record starts in the history, and its time.
type checkpoint struct {
	pos  history.Pos
	time int64
}

// scanRun reads res's history in one pass (see above) and then its
// resource log (readLog), and derives the window history's detail; a run
// without a resource log keeps the history's resource operations for
// fencing.png.
func scanRun(res *analysis.Result) (*runScan, error) {
	lg, err := runLog(res)
	if err != nil {
		return nil, err
	}
	s := newScan(res, lg.n == 0)
	src := res.Source()
	c, err := src.Open(history.Pos{})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	defer c.Close()
	for c.Next() {
		s.add(c.Op(), c)
	}
	if err := c.Err(); err != nil {
		return nil, fmt.Errorf("reports: history: %w", err)
	}
	s.finish(res)
	if !s.whole {
		if err := s.readWindows(src, res); err != nil {
			return nil, fmt.Errorf("reports: history: %w", err)
		}
	}
	writes, err := s.readLog(lg)
	if err != nil {
		return nil, err
	}
	s.d = detailOf(s.wh, s.slots.slotMap(s.wh), s.windowFaults(), writes, lostPairs(s.wh, res.Verdict, s.inWindow), analysis.LeaseOptions(res.Config))
	return s, nil
}

// newScan prepares the pass over res's history; one of more than
// maxWholeRecords records (res.Records, when known) is not kept whole.
func newScan(res *analysis.Result, keepFences bool) *runScan {
	s := &runScan{ops: newOpLog(), slots: newSlotTracker(max(res.Config.Clients, 0)), keepFences: keepFences,
		times: map[int64]int64{}, recs: map[int64]history.Op{}, whole: int64(res.Records) <= maxWholeRecords}
	s.leases = newLeaseFollower(analysis.LeaseOptions(res.Config))
	s.wantTime, s.wantRec = wanted(res)
	if s.whole && res.Records > 0 {
		s.wh = make(history.History, 0, res.Records)
	}
	return s
}

// add follows one record; c is the cursor that read it.
func (s *runScan) add(o *history.Op, c history.Cursor) {
	if s.records%checkpointEvery == 0 {
		s.marks = append(s.marks, checkpoint{c.Pos(), o.Time})
	}
	s.records++
	s.end = max(s.end, o.Time)
	s.last = *o
	if s.whole {
		if s.records > maxWholeRecords {
			s.whole, s.wh = false, nil
		} else {
			s.wh = append(s.wh, *o)
		}
	}
	if len(s.wantTime) > 0 && s.wantTime[o.Index] {
		s.times[o.Index] = o.Time
	}
	if len(s.wantRec) > 0 && s.wantRec[o.Index] {
		s.recs[o.Index] = *o
	}
	s.slots.add(o)
	if o.IsNemesis() {
		s.nem = append(s.nem, *o)
		return
	}
	if i := s.ops.add(o); i >= 0 && s.keepFences && (o.F == history.FWrite || o.F == history.FEnter || o.F == history.FRead && o.Fence != 0) {
		s.fences.add(histFence{op: int32(i), fence: o.Fence})
	}
	s.leases.add(o)
}

// finish closes the pass: the leases still held, the fault windows, and
// for a history not kept whole the anomaly windows to read.
func (s *runScan) finish(res *analysis.Result) {
	s.leases.finish()
	s.ops.ops = history.Pairer{} // the operations never completed stay open
	if s.records > 0 {
		end := history.Op{Index: s.records, Time: s.end} // ends the unhealed windows
		s.faults = checker.FaultWindows(append(s.nem, end))
	}
	s.nem = nil
	if !s.whole {
		s.windows, s.windowsLeft = anomalyWindows(s.timeOf, allAnomalies(res.Verdict), windowPad(res.Config.TTL), s.end, maxHolderWindows)
	}
}

// wanted are the records whose times the pass keeps (the anomalies', at
// most maxAnomalyOps) and the records the page lists (each anomaly's
// first maxRecordsShown, the coverage's evidence).
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

// maxAnomalyOps bounds the anomaly records whose times the pass keeps (to
// place the windows and the overview's anomaly marks).
const maxAnomalyOps = 50000

// timeOf is the time of anomaly record i of a history not kept whole,
// false when unknown: from the anomaly records' times the pass kept.
func (s *runScan) timeOf(i int64) (int64, bool) {
	t, ok := s.times[i]
	return t, ok
}

// recordAt is record i of the history among those the page lists.
func (s *runScan) recordAt(i int64) (history.Op, bool) {
	o, ok := s.recs[i]
	return o, ok
}

// overview is the holders overview of the run's leases to end (ns): the
// leases the pass followed (leaseFollower) on the slots it followed
// (slotTracker).
func (s *runScan) overview(end int64) *occupancy {
	return occupancyOf(&s.leases.log, s.slots.clients, s.slots.slot, xMax(end))
}
