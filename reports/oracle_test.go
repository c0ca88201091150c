package reports

// The report's in-memory code before its one streamed pass, kept as test
// oracles: the data the pass draws from must be these.

import (
	"gonum.org/v1/plot/plotter"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// oldFencePoints took fencing.png's points from the resource's log when
// there was one, else from the history's writes and fenced reads.
func oldFencePoints(h history.History, writes []resource.Write) (pts []fencePoint) {
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
		return pts
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
	return pts
}

// oldIssued are the tokens issued on acquire as fencing.png drew them
// from the history in memory.
func oldIssued(h history.History) plotter.XYs {
	var issued plotter.XYs
	for i := range h {
		if h[i].F == history.FAcquire && h[i].Type == history.OK && h[i].Fence != 0 {
			issued = append(issued, plotter.XY{X: seconds(h[i].Time), Y: float64(h[i].Fence)})
		}
	}
	return issued
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
