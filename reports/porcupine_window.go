package reports

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// A long history's porcupine pages are drawn per failing segment: porcupine's
// visualiser gets only the records of a window of time around the failing
// operations of one group of anomalies (anomalyWindows), widened to the
// nearest quiescent points (no operation in flight and no lease that could
// still be alive) when that keeps it within maxSegmentOps operations.
const (
	// maxPorcupineSegments bounds the segments drawn per porcupine page
	// kind (lock, counter); the first is porcupine.html, the next
	// porcupine-2.html and so on.
	maxPorcupineSegments = 3
	// maxSegmentOps bounds the client operations of one segment.
	maxSegmentOps = 2000
)

// segment is one failing segment of a long history, drawn on its own page.
type segment struct {
	timeWindow
	// File is the page's file name.
	File string
	// Sub is the segment's records, in history order, each keeping its
	// index in the whole history (so "ops 12,15" and #op=N still name the
	// whole history's records).
	Sub history.History
	// First and Last are the smallest and largest record index in Sub.
	First, Last int64
	// Quiescent says both ends are quiescent points; otherwise the
	// segment was cut mid-activity (only whole operations and whole
	// leases of the window are in it) and its check may differ from the
	// whole history's.
	Quiescent bool
	// OpCount is how many client operations Sub holds.
	OpCount int
	// Rows says which process each of the page's rows is (renumber).
	Rows []string
}

// maxRowNames bounds the rows a segment's note names.
const maxRowNames = 24

// renumber gives the client processes of sub the ids 0, 1, ... in the
// order of their client slot (sm), then process id, and returns what each
// new id was: "p981 (c1)".
func renumber(sub history.History, sm slotMap) []string {
	var procs []int
	seen := map[int]bool{}
	for i := range sub {
		if r := &sub[i]; !r.IsNemesis() && !seen[r.Process] {
			seen[r.Process] = true
			procs = append(procs, r.Process)
		}
	}
	slot := func(p int) int {
		if r, ok := sm.Row[p]; ok {
			return r
		}
		return len(sm.Rows)
	}
	slices.SortFunc(procs, func(a, b int) int {
		if c := cmp.Compare(int64(slot(a)), int64(slot(b))); c != 0 {
			return c
		}
		return cmp.Compare(int64(a), int64(b))
	})
	id := map[int]int{}
	names := make([]string, len(procs))
	for i, p := range procs {
		id[p] = i
		names[i] = fmt.Sprintf("p%d", p)
		if r, ok := sm.Row[p]; ok {
			names[i] += fmt.Sprintf(" (c%d)", r+1)
		}
	}
	for i := range sub {
		if r := &sub[i]; !r.IsNemesis() {
			r.Process = id[r.Process]
		}
	}
	return names
}

// Note is the page's sentence saying what part of the history it shows.
func (s segment) Note(total int) string {
	how := "cut at quiescent points (no operation in flight, no lease alive), so this segment is checked as the whole history is"
	if !s.Quiescent {
		how = "cut mid-activity (no quiescent point near enough): only the operations and leases reaching into the window are here, so its verdict may differ from the whole history's"
	}
	var rows strings.Builder
	for i, r := range s.Rows {
		if i == maxRowNames {
			fmt.Fprintf(&rows, ", …")
			break
		}
		if i > 0 {
			rows.WriteString(", ")
		}
		fmt.Fprintf(&rows, "%d = %s", i, r)
	}
	return fmt.Sprintf("This page shows one segment of a history of %d client operations: records %d..%d (%.3f–%.3f s, %d operations) around %s; it was %s. Rows and p numbers here renumber the processes: %s.",
		total, s.First, s.Last, seconds(s.From), seconds(s.To), s.OpCount, s.timeWindow.Label(), how, rows.String())
}

// segmentFile is the file of the i-th (0-based) segment page of base
// ("porcupine.html" -> "porcupine.html", "porcupine-2.html", ...).
func segmentFile(base string, i int) string {
	if i == 0 {
		return base
	}
	return fmt.Sprintf("%s-%d.html", base[:len(base)-len(".html")], i+1)
}

// interval is a busy stretch [a, b] ns.
type interval struct{ a, b int64 }

// aliveUntil is until when the lease of ho could still be held (ns): its
// release's invoke when it was released (the release itself is an
// operation in flight after that), else the later of the belief's end and
// the validity.
func aliveUntil(ho hold) int64 {
	if ho.Ended == "release" {
		return ho.End
	}
	return max(ho.End, ho.Validity)
}

// busyBlocks merges the times operations were in flight (invoke to
// completion, to the end of the history when never completed; failed
// acquires, which took nothing and which the checks leave out, aside) and
// leases could be alive (aliveUntil) into disjoint blocks, in time order; the gaps between blocks
// are the quiescent points.
func busyBlocks(sp []span, hs []hold, end int64) []interval {
	iv := make([]interval, 0, len(sp)+len(hs))
	for _, s := range sp {
		if s.F == history.FAcquire && s.Completed && s.Type == history.Fail {
			continue // took nothing: the checks leave it out
		}
		b := end
		if s.Completed {
			b = s.Done
		}
		iv = append(iv, interval{s.Call, b})
	}
	for _, ho := range hs {
		iv = append(iv, interval{ho.Start, aliveUntil(ho)})
	}
	slices.SortFunc(iv, func(x, y interval) int { return cmp.Compare(x.a, y.a) })
	var out []interval
	for _, v := range iv {
		if n := len(out); n > 0 && v.a <= out[n-1].b {
			out[n-1].b = max(out[n-1].b, v.b)
			continue
		}
		out = append(out, v)
	}
	return out
}

// widen widens [lo, hi] to the quiescent points around it: the start of
// the busy block holding lo and the end of the one holding hi (blocks
// from busyBlocks).
func widen(blocks []interval, lo, hi int64) (int64, int64) {
	i := sort.Search(len(blocks), func(i int) bool { return blocks[i].b >= lo })
	if i < len(blocks) && blocks[i].a < lo {
		lo = blocks[i].a
	}
	j := sort.Search(len(blocks), func(j int) bool { return blocks[j].a > hi }) - 1
	if j >= 0 && blocks[j].b > hi {
		hi = blocks[j].b
	}
	return lo, hi
}

// segmenter holds what cutting a detail's history into segments needs,
// computed once for the lock and the counter pages.
type segmenter struct {
	*detail
	// orig maps the detail's records to the history's indices when it is
	// a window history (nil: the whole history).
	orig   []int64
	end    int64
	blocks []interval
}

// newSegmenter prepares the cutting of d's history (orig: see segmenter).
func newSegmenter(d *detail, orig []int64) *segmenter {
	g := &segmenter{detail: d, orig: orig, end: endTime(d.h)}
	g.blocks = busyBlocks(g.sp, g.hs, g.end)
	return g
}

// segments picks the failing segments to draw for the anomalies as (at
// most maxPorcupineSegments, fatal ones first; see anomalyWindows),
// naming their pages after base. left is how many were not drawn.
//
// Each segment's processes are renumbered 0, 1, ... (renumber): porcupine
// draws one row per process id from 0 up, and a long run's processes
// number in the thousands. The anomalies' ops, and the segments' records,
// are the history's indices; a window history's segments are cut
// mid-activity (its windows' ends are no quiescent points of the whole
// history).
func (g *segmenter) segments(as []checker.Anomaly, pad int64, base string) (segs []segment, left int) {
	timeOf := timeIn(g.h)
	if g.orig != nil {
		timeOf = func(i int64) (int64, bool) {
			if j, ok := slices.BinarySearch(g.orig, i); ok {
				return g.h[j].Time, true
			}
			return 0, false
		}
	}
	wins, left := anomalyWindows(timeOf, as, pad, g.end, maxPorcupineSegments)
	for i, w := range wins {
		lo, hi := widen(g.blocks, w.From, w.To)
		quiet := opsCalledIn(g.sp, lo, hi) <= maxSegmentOps
		if !quiet {
			lo, hi = w.From, w.To
		}
		sub, n := g.cut(lo, hi)
		if g.orig != nil {
			quiet = false
			for k := range sub {
				sub[k].Index = g.orig[sub[k].Index]
			}
		}
		rows := renumber(sub, g.sm)
		w.From, w.To = lo, hi
		s := segment{timeWindow: w, File: segmentFile(base, i), Sub: sub, Quiescent: quiet, OpCount: n, Rows: rows}
		if len(sub) > 0 {
			s.First, s.Last = sub[0].Index, sub[len(sub)-1].Index
		}
		segs = append(segs, s)
	}
	return segs, left
}

// opsCalledIn counts the operations invoked in [lo, hi].
func opsCalledIn(sp []span, lo, hi int64) int {
	n := 0
	for _, s := range sp {
		if s.Call >= lo && s.Call <= hi {
			n++
		}
	}
	return n
}

// cut returns the records of the segmenter's history for the window
// [lo, hi] ns: every client operation (invoke and completion) in flight
// during it, every operation of a process between the acquire and the
// end of a lease reaching into it (so that no release or extend is cut
// from its acquire), the acquires of those leases, and the nemesis
// records of the fault windows reaching into it. Records keep their
// Index; n counts the client operations.
func (g *segmenter) cut(lo, hi int64) (sub history.History, n int) {
	h := g.h
	keep := make([]bool, len(h))
	type rng struct{ a, b int64 }
	leases := map[int][]rng{} // process -> lease stretches reaching into the window
	for _, ho := range g.hs {
		if ho.Start <= hi && max(ho.End, ho.Validity) >= lo && ho.AcqOp >= 0 && ho.AcqOp < int64(len(h)) {
			leases[ho.Proc] = append(leases[ho.Proc], rng{h[ho.AcqOp].Time, ho.End})
			keep[ho.AcqOp] = true // with its invoke, below: the acquire started before its ok
		}
	}
	for _, s := range g.sp {
		done := g.end
		if s.Completed {
			done = s.Done
		}
		in := s.Call <= hi && done >= lo
		for _, l := range leases[s.Proc] {
			in = in || s.Call >= l.a-int64(1) && s.Call <= l.b
		}
		if !in {
			keep[s.Inv] = keep[s.Inv] || s.Completed && keep[s.Comp] // a lease's acquire, not counted
			continue
		}
		n++
		keep[s.Inv] = true
		if s.Completed {
			keep[s.Comp] = true
		}
	}
	for _, w := range g.ws {
		if w.Start > hi || w.End < lo {
			continue
		}
		for _, i := range []int64{w.StartOp, w.StopOp} {
			if i >= 0 && i < int64(len(h)) {
				keep[i] = true
				markNemesisPartner(h, keep, int(i))
			}
		}
	}
	for i := range h {
		if keep[i] {
			sub = append(sub, h[i])
		}
	}
	return sub, n
}

// markNemesisPartner marks the other record of the nemesis action at
// record i: its completion when i is an invoke, else its invoke (within
// 64 records).
func markNemesisPartner(h history.History, keep []bool, i int) {
	r := &h[i]
	step := 1
	if r.Type != history.Invoke {
		step = -1
	}
	for j, k := i+step, 0; j >= 0 && j < len(h) && k < 64; j, k = j+step, k+1 {
		if o := &h[j]; o.IsNemesis() && o.F == r.F && o.Fault == r.Fault {
			keep[j] = true
			return
		}
	}
}

// writeSegmentPages writes the porcupine pages of a history of n client
// operations, too many for one page, from d, the detail of its records
// (the whole history, or its window history, whose records orig maps to
// the history's indices, as res.Verdict's ops are): porcupine.html
// (porcupine-2.html, ...) for the failing segments of every checker's
// anomalies but the resource checker's, and for the counter workload
// porcupine-counter.html (...) for the resource checker's. With no
// anomaly naming an operation, porcupine.html is a short page saying so.
// note tells index.html which pages show which segment.
func writeSegmentPages(res *analysis.Result, d *detail, orig []int64, opt Options, n int, pages *opPages) (note string, err error) {
	pad := windowPad(res.Config.TTL)
	counterRun := counterRun(res, d.h)
	var lockAs, counterAs []checker.Anomaly
	for _, r := range checkerParts(res.Verdict) {
		if r.Name == "resource" && counterRun {
			counterAs = append(counterAs, r.Anomalies...)
		} else {
			lockAs = append(lockAs, r.Anomalies...)
		}
	}
	g := newSegmenter(d, orig)
	cSegs, cLeft := g.segments(counterAs, pad, store.PorcupineCounterFile)
	counter := len(cSegs) > 0
	if !counter {
		lockAs = append(lockAs, counterAs...) // their links go to porcupine.html
	}
	lSegs, lLeft := g.segments(lockAs, pad, store.PorcupineFile)
	if len(lSegs) == 0 {
		reason := fmt.Sprintf("porcupine.html shows no segment: the history has %d client operations, more than the %d porcupine's visualisation is built for, and no anomaly of the lock check (or of the checkers linking to its page) names an operation to draw a segment around; the lock check itself ran on all of them (see results.json).", n, opt.PorcupineMaxOps)
		if err := writeNotePage(res.Dir, store.PorcupineFile, porcupineTitle(res, "Lock check (porcupine): not built", nil), reason); err != nil {
			return reason, err
		}
		note = reason
	} else if err := writeSegments(res, n, lSegs, lLeft, "Lock check (porcupine)", func(w io.Writer, sub history.History) (checker.Validity, error) {
		return drawLock(w, sub, opt)
	}, pages); err != nil {
		return "", err
	} else {
		note = segmentsNote(n, lSegs, lLeft)
	}
	if counter {
		if err := writeSegments(res, n, cSegs, cLeft, "Counter's critical sections (porcupine)", func(w io.Writer, sub history.History) (checker.Validity, error) {
			return checker.WriteCounterHTML(w, sub, opt.PorcupineTimeout)
		}, pages); err != nil {
			return note, err
		}
		note += " " + segmentsNote(0, cSegs, cLeft)
	}
	return note, nil
}

// writeSegments writes one page per segment with draw (porcupine's
// visualisation of the segment's records), titled with what and the
// segment's number and the verdict of the segment's own search, noting
// which part of the history it shows; pages records the anomalies' ops
// each draws.
func writeSegments(res *analysis.Result, n int, segs []segment, left int, what string, draw func(io.Writer, history.History) (checker.Validity, error), pages *opPages) error {
	refs := make([]segmentRef, len(segs))
	for i, s := range segs {
		refs[i] = segmentRef{File: s.File, First: s.First, Last: s.Last}
	}
	for i, s := range segs {
		note := s.Note(n)
		if left > 0 {
			note += fmt.Sprintf(" %d more failing segments are not drawn.", left)
		}
		title := fmt.Sprintf("%s, failing segment %d of %d", what, i+1, len(segs))
		if err := writePorcupinePage(res, s.File, title, func(w io.Writer) (checker.Validity, error) { return draw(w, s.Sub) },
			func(page []byte) []byte { return markSegment(page, note, s.File, refs) }, pages); err != nil {
			return err
		}
	}
	return nil
}

// segmentsNote is index.html's sentence on the segment pages, starting
// with the history's size n (left out when 0).
func segmentsNote(n int, segs []segment, left int) string {
	var b strings.Builder
	if n > 0 {
		fmt.Fprintf(&b, "The history has %d client operations, too many for one porcupine page: ", n)
	}
	for i, s := range segs {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s shows records %d..%d (%.3f–%.3f s)", s.File, s.First, s.Last, seconds(s.From), seconds(s.To))
	}
	b.WriteString(".")
	if left > 0 {
		fmt.Fprintf(&b, " %d more failing segments are not drawn.", left)
	}
	return b.String()
}
