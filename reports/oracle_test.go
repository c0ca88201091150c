package reports

// The report's in-memory drawing code before its one streamed pass,
// kept as test oracles: the pictures the pass draws must be these.

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// oldLatencyRaw drew latency-raw.png from the history in memory.
func oldLatencyRaw(h history.History, ws []checker.Window, end int64) ([]byte, error) {
	sp := clientOps(h)
	title := "Latency of every operation by type (at invoke time; each panel its own scale)"
	legend := faultLegend(ws)
	if len(sp) == 0 {
		p := timePlot(newPlot("", "time since start (s)", "latency (ms)"), ws, end)
		p.Y.Min, p.Y.Max = 0, 1
		p.Add(emptyNote{"no client operations in this history"})
		return renderStack("Latency of every operation", []*plot.Plot{p}, nil, legend, figWidth, figHeight)
	}
	thin := dense(len(sp))
	if thin {
		title += fmt.Sprintf(" — %d ops: crowded outcomes as density", len(sp))
	}
	types, groups := opTypes(sp), byOp(sp)
	var ps []*plot.Plot
	heated := map[string]bool{} // outcomes drawn as density in some panel
	for i, f := range types {
		p, hot, err := oldLatencyRawPanel(f, groups[f], ws, end, thin, i == len(types)-1)
		if err != nil {
			return nil, err
		}
		for _, g := range hot {
			heated[g] = true
		}
		ps = append(ps, p)
	}
	for _, g := range rawGroups {
		if n := oldCountType(sp, g.typ, g.open); n > 0 {
			legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", g.name, n), Thumb: glyphThumb(g.glyph)})
			if heated[g.name] {
				legend = append(legend, legendItem{Label: g.name + ": ops per cell (darker = more)", Thumb: heatThumb{opaque(g.glyph.Color)}})
			}
		}
	}
	return renderStack(title, ps, nil, legend, figWidth, panelsHeight(len(ps)))
}

// oldLatencyRawPanel drew one operation type's panel of oldLatencyRaw.
func oldLatencyRawPanel(f string, sp []clientOp, ws []checker.Window, end int64, dense, last bool) (p *plot.Plot, heated []string, err error) {
	var lo, hi float64 = math.Inf(1), 0
	for _, s := range sp {
		if s.Completed {
			l := math.Max(millis(s.Latency()), minLatencyMs)
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
	}
	d := rawPanel{f: f, ops: len(sp), lo: lo, hi: hi}
	ymin, ymax, capMs := d.yRange()
	for _, g := range rawGroups {
		var xys plotter.XYs
		for _, s := range sp {
			if s.Type != g.typ || s.Completed == g.open {
				continue
			}
			y := capMs
			if s.Completed {
				y = math.Max(millis(s.Latency()), minLatencyMs)
			}
			xys = append(xys, plotter.XY{X: seconds(s.Call), Y: y})
		}
		var l rawLayer
		if dense && len(xys) > maxExactGroup {
			l.heat = newHeat(xys, heatRows, 0, xMax(end), ymin, ymax, true, opaque(g.glyph.Color))
		} else {
			l.xys = xys
		}
		d.groups = append(d.groups, l)
	}
	return drawRawPanel(d, ws, end, last)
}

// oldCountType counted the spans of one outcome; open selects the ones
// that never completed.
func oldCountType(sp []clientOp, t history.Type, open bool) int {
	n := 0
	for _, s := range sp {
		if s.Type == t && s.Completed != open {
			n++
		}
	}
	return n
}

// oldLatencyQuantiles drew latency-quantiles.png from the history in
// memory.
func oldLatencyQuantiles(h history.History, ws []checker.Window, end int64) ([]byte, error) {
	end = max(end, 0)
	legend := faultLegend(ws)
	done := oldCompletedSpans(h)
	if len(done) == 0 {
		return emptyPanels(quantilesTitle, "latency (ms)", noCompleted, ws, end, legend)
	}
	drawn := make([]bool, len(quantileLines))
	ps, err := oldTypePanels(done, func(f string, sp []clientOp, last bool) (*plot.Plot, error) {
		b := &quantileBucketer{per: perPoint(len(sp))}
		for _, s := range sp {
			b.add(s.Call, math.Max(millis(s.Latency()), minLatencyMs))
		}
		b.flush()
		p, d, err := drawQuantiles(quantileTitle(f, len(sp), b.per), b.points, ws, end, bucketWidth(end), last)
		for j := range d {
			drawn[j] = drawn[j] || d[j]
		}
		return p, err
	})
	if err != nil {
		return nil, err
	}
	return renderStack(quantilesTitle, ps, nil, quantilesLegend(legend, drawn), figWidth, panelsHeight(len(ps)))
}

// oldRate drew rate.png from the history in memory.
func oldRate(h history.History, ws []checker.Window, end int64) ([]byte, error) {
	end = max(end, 0)
	width := bucketWidth(end)
	title := fmt.Sprintf("Throughput: completions per second by outcome and operation type (%v buckets)", time.Duration(width))
	legend := faultLegend(ws)
	done := oldCompletedSpans(h)
	if len(done) == 0 {
		return emptyPanels(title, "ops/s", noCompleted, ws, end, legend)
	}
	ps, err := oldTypePanels(done, func(f string, sp []clientOp, last bool) (*plot.Plot, error) {
		return oldRatePanel(f, sp, ws, end, width, last)
	})
	if err != nil {
		return nil, err
	}
	for _, o := range rateOutcomes {
		n := 0
		for _, s := range done {
			if s.Type == o.t {
				n++
			}
		}
		if n == 0 {
			continue
		}
		legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", o.t, n), Thumb: lineThumb(draw.LineStyle{Color: o.col, Width: vg.Points(1.6)})})
	}
	return renderStack(title, ps, nil, legend, figWidth, panelsHeight(len(ps)))
}

// oldRatePanel drew one operation type's panel of oldRate.
func oldRatePanel(f string, sp []clientOp, ws []checker.Window, end, width int64, last bool) (*plot.Plot, error) {
	counts := newRateCounts(end, width)
	for _, s := range sp {
		counts.add(s.Type, s.Done)
	}
	return drawRatePanel(fmt.Sprintf("%s (%d completed)", f, len(sp)), counts, ws, end, last)
}

// oldCompletedSpans are the history's operations that completed.
func oldCompletedSpans(h history.History) []clientOp {
	var done []clientOp
	for _, s := range clientOps(h) {
		if s.Completed {
			done = append(done, s)
		}
	}
	return done
}

// oldTypePanels drew one panel per operation type present in done.
func oldTypePanels(done []clientOp, panel func(f string, sp []clientOp, last bool) (*plot.Plot, error)) ([]*plot.Plot, error) {
	types, groups := opTypes(done), byOp(done)
	ps := make([]*plot.Plot, 0, len(types))
	for i, f := range types {
		p, err := panel(f, groups[f], i == len(types)-1)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// oldFencePoints took fencing.png's points from the resource's log when
// there was one, else from the history's writes and fenced reads.
func oldFencePoints(h history.History, writes []resource.Write) (pts []fencePoint, source string) {
	if len(writes) > 0 {
		type wkey struct {
			t, fence int64
			key      string
		}
		sent := map[wkey]int64{}
		for _, a := range arrivals(h, clientOps(h), writes) {
			if a.Known {
				sent[wkey{a.Arrive, a.Fence, a.Key}] = a.Call
			}
		}
		highest := map[string]int64{}
		for _, w := range writes {
			hi, seen := highest[w.Key]
			if !seen || w.Accepted && w.Fence > hi {
				highest[w.Key] = w.Fence
			}
			send, ok := sent[wkey{w.Time, w.Fence, w.Key}]
			if !ok || w.Read {
				send = -1
			}
			pts = append(pts, fencePoint{t: w.Time, fence: w.Fence, accepted: w.Accepted, stale: w.Stale, read: w.Read, highest: hi, send: send})
		}
		return pts, "from the resource's log"
	}
	for _, s := range clientOps(h) {
		r := h[s.Inv]
		read := s.F == history.FRead && r.Fence != 0
		if s.F != history.FWrite && s.F != history.FEnter && !read {
			continue
		}
		pts = append(pts, fencePoint{t: s.Call, fence: r.Fence, accepted: s.Type == history.OK,
			stale: s.Type == history.Fail, unknown: s.Type == history.Info, read: read, send: -1})
	}
	return pts, "from the history: arrivals unknown"
}

// oldFencingPNG drew fencing.png from the history in memory and the
// resource's log.
func oldFencingPNG(h history.History, writes []resource.Write, ws []checker.Window, end int64) ([]byte, error) {
	p, legend, _, err := oldFencingPlot(h, writes, ws, end)
	if err != nil {
		return nil, err
	}
	return renderPNG(p, legend, figWidth, figHeight)
}

// oldFencingPlot built oldFencingPNG's plot and legend.
func oldFencingPlot(h history.History, writes []resource.Write, ws []checker.Window, end int64) (p *plot.Plot, legend []legendItem, heated []string, err error) {
	pts, source := oldFencePoints(h, writes)
	var issued plotter.XYs
	for i := range h {
		if h[i].F == history.FAcquire && h[i].Type == history.OK && h[i].Fence != 0 {
			issued = append(issued, plotter.XY{X: seconds(h[i].Time), Y: float64(h[i].Fence)})
		}
	}
	title := fencingTitle(pts, source)
	if !anyToken(pts, issued) { // the rule both paths share (issue 27)
		title = noTokensTitle
	}
	return fencingPlotFrom(title, pts, issued, ws, end)
}

// oldNewOccupancy summed the leases of hc into overviewCols columns over
// [0, xmax] s.
func oldNewOccupancy(hc *detail, xmax float64) *occupancy {
	o := emptyOccupancy(len(hc.sm.Rows), xmax)
	for _, ho := range hc.hs {
		r, ok := hc.sm.Row[ho.Process]
		if !ok {
			continue
		}
		o.addHold(r, ho.Start, ho.End, ho.Validity)
	}
	for _, ov := range hc.ovs {
		var rows []int
		for _, i := range []int{ov.A, ov.B} {
			if r, ok := hc.sm.Row[hc.hs[i].Process]; ok {
				rows = append(rows, r)
			}
		}
		o.addClash(rows, ov.Start, ov.End)
	}
	return o
}

// opTypes returns the operation types (F) present among the spans, in
// opOrder: one panel each, so a type that never ran gets none.
func opTypes(sp []clientOp) []string {
	var out []string
	for _, s := range sp {
		if !slices.Contains(out, s.F) {
			out = append(out, s.F)
		}
	}
	return orderTypes(out)
}

// byOp groups the spans by operation type.
func byOp(sp []clientOp) map[string][]clientOp {
	m := map[string][]clientOp{}
	for _, s := range sp {
		m[s.F] = append(m[s.F], s)
	}
	return m
}
