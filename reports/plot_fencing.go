package reports

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// fencePoint is one write as fencing.png sees it.
type fencePoint struct {
	t        int64
	fence    int64
	accepted bool // the resource took it
	stale    bool // its token was below the highest accepted before it
	unknown  bool // history fallback only: outcome unknown (info)
	read     bool // a fenced read, not a write
}

// fencePoints takes the resource's own log (writes and fenced reads) when
// there is one, else the history's completed writes and fenced reads (ok =
// accepted; fail = rejected as stale; info = unknown; staleness is then
// unknown too).
func fencePoints(h history.History, writes []resource.Write) (pts []fencePoint, source string) {
	if len(writes) > 0 {
		for _, w := range writes {
			pts = append(pts, fencePoint{t: w.Time, fence: w.Fence, accepted: w.Accepted, stale: w.Stale, read: w.Read})
		}
		return pts, "the resource's write log"
	}
	for _, s := range spans(h) {
		r := h[s.Inv]
		read := s.F == history.FRead && r.Fence != 0
		if s.F != history.FWrite && s.F != history.FEnter && !read {
			continue
		}
		pts = append(pts, fencePoint{t: s.Call, fence: r.Fence, accepted: s.Type == history.OK,
			stale: s.Type == history.Fail, unknown: s.Type == history.Info, read: read})
	}
	return pts, "the history's write records"
}

// fencingPNG draws fencing.png: the fencing token of every write over time
// (accepted, accepted although stale, rejected), of every stale fenced read
// (rejected, or served by a resource that does not fence), and the tokens
// the lock issued on each successful acquire. Accepted fresh reads are
// left out: they would double the points and show nothing new.
func fencingPNG(h history.History, writes []resource.Write, ws []checker.Window, end int64) ([]byte, error) {
	pts, source := fencePoints(h, writes)
	p := newPlot("Fencing tokens of writes at the resource (from "+source+")", "time since start (s)", "fencing token")
	p.X.Min, p.X.Max = 0, xMax(end)
	p.Add(faultBands{ws}, lightGrid())
	legend := faultLegend(ws)
	var issued plotter.XYs
	anyFence := false
	for i := range h {
		if h[i].F == history.FAcquire && h[i].Type == history.OK && h[i].Fence != 0 {
			issued = append(issued, plotter.XY{X: seconds(h[i].Time), Y: float64(h[i].Fence)})
		}
	}
	groups := []struct {
		name  string
		match func(fencePoint) bool
		glyph draw.GlyphStyle
	}{
		{"issued on acquire", nil, draw.GlyphStyle{Color: alpha(colGrey, 0x90), Radius: vg.Points(1.5), Shape: draw.RingGlyph{}}},
		{"write accepted", func(f fencePoint) bool { return !f.read && f.accepted && !f.stale && !f.unknown },
			draw.GlyphStyle{Color: colOK, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}},
		{"stale write ACCEPTED (no fencing)", func(f fencePoint) bool { return !f.read && f.accepted && f.stale },
			draw.GlyphStyle{Color: colOverlap, Radius: vg.Points(3.2), Shape: draw.TriangleGlyph{}}},
		{"stale write rejected", func(f fencePoint) bool { return !f.read && !f.accepted && !f.unknown },
			draw.GlyphStyle{Color: colInfo, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}},
		{"stale read rejected", func(f fencePoint) bool { return f.read && !f.accepted && !f.unknown },
			draw.GlyphStyle{Color: colInfo, Radius: vg.Points(3), Shape: draw.PlusGlyph{}}},
		{"stale read served (reads not fenced)", func(f fencePoint) bool { return f.read && f.accepted && f.stale },
			draw.GlyphStyle{Color: colOverlap, Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}},
		{"write outcome unknown", func(f fencePoint) bool { return !f.read && f.unknown },
			draw.GlyphStyle{Color: colGrey, Radius: vg.Points(2.5), Shape: draw.BoxGlyph{}}},
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range groups {
		xys := issued
		if g.match != nil {
			xys = nil
			for _, f := range pts {
				if g.match(f) {
					xys = append(xys, plotter.XY{X: seconds(f.t), Y: float64(f.fence)})
				}
			}
		}
		if len(xys) == 0 {
			continue
		}
		for _, xy := range xys {
			lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
			anyFence = anyFence || xy.Y != 0
		}
		n := len(xys)
		if len(xys) > maxRawPoints {
			xys = thinLinear(xys, p.X.Min, p.X.Max)
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = g.glyph
		p.Add(sc)
		legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", g.name, n), Thumb: sc})
	}
	switch {
	case len(pts) == 0 && len(issued) == 0:
		p.Y.Min, p.Y.Max = 0, 1
		p.Add(emptyNote{"no writes reached the resource"})
	case !anyFence:
		p.Y.Min, p.Y.Max = -0.5, 2 // the note sits above the row of zeros
		p.Add(emptyNote{"this lock issues no fencing tokens: every write carried token 0"})
	default:
		// at least one token, and enough that lo-pad < hi+pad in float64
		// even for tokens beyond 2^53 (gonum panics on an empty range)
		pad := math.Max(math.Max((hi-lo)*0.05, 1), math.Max(math.Abs(lo), math.Abs(hi))*1e-9)
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
	}
	return renderPNG(p, legend, figWidth, figHeight)
}

// thinLinear keeps the first point per cell of a 1200 x 400 grid over a
// linear y range.
func thinLinear(xys plotter.XYs, xmin, xmax float64) plotter.XYs {
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, pt := range xys {
		ymin, ymax = math.Min(ymin, pt.Y), math.Max(ymax, pt.Y)
	}
	const nx, ny = 1200, 400
	seen := map[int64]bool{}
	out := xys[:0:0]
	for _, pt := range xys {
		cx := int64((pt.X - xmin) / (xmax - xmin + 1e-12) * nx)
		cy := int64((pt.Y - ymin) / (ymax - ymin + 1e-12) * ny)
		if k := cx*(ny+1) + cy; !seen[k] {
			seen[k] = true
			out = append(out, pt)
		}
	}
	return out
}
