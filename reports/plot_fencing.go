package reports

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
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
	// highest is the key's highest accepted token when it arrived (from
	// the resource's log only; 0 otherwise).
	highest int64
	// send is when the client sent it, -1 when unknown (a read, or the
	// log entry matched no history write).
	send int64
	key  string // the resource key (log entries only)
}

// logFences builds fencing.png's points from the resource's log, entry
// by entry, into a fenceSample whose rare points are the stale entries.
type logFences struct {
	fenceSample[fencePoint]
	highest map[string]int64
}

// maxFenceSample bounds each fenceSample of fencing.png. Tests lower it.
var maxFenceSample = 100_000

// fenceSample is the points fencing.png keeps of a sequence of n: all up
// to maxFenceSample, else every every-th common one and the first
// maxExactGroup rare ones (rare counts them). total counts the offered.
type fenceSample[T any] struct {
	every, total, rare int
	pts                []T
}

// newFenceSample samples a sequence of n points.
func newFenceSample[T any](n int) fenceSample[T] {
	return fenceSample[T]{every: max((n+maxFenceSample-1)/maxFenceSample, 1)}
}

// add offers the next point.
func (f *fenceSample[T]) add(pt T, rare bool) {
	switch {
	case f.every == 1:
		f.pts = append(f.pts, pt)
	case rare && f.rare < maxExactGroup:
		f.rare++
		f.pts = append(f.pts, pt)
	case !rare && f.total%f.every == 0:
		f.pts = append(f.pts, pt)
	}
	f.total++
}

// add reads the next entry.
func (f *logFences) add(w *resource.Write) {
	hi, seen := f.highest[w.Key]
	if !seen || w.Accepted && w.Fence > hi {
		f.highest[w.Key] = w.Fence
	}
	f.fenceSample.add(fencePoint{t: w.Time, fence: w.Fence, accepted: w.Accepted, stale: w.Stale, read: w.Read, highest: hi, send: -1, key: w.Key}, w.Stale)
}

// title is fencing.png's title.
func (f *logFences) title() string {
	if f.every == 1 {
		return fencingTitle(f.pts, "from the resource's log")
	}
	t := fmt.Sprintf("Fencing tokens at the resource — a sample: every %d%s of %d log entries and every stale one", f.every, ordinalSuffix(f.every), f.total)
	if f.rare == maxExactGroup {
		t += fmt.Sprintf(" (the first %d)", maxExactGroup)
	}
	return t
}

// ordinalSuffix is "th", "nd", ... for n.
func ordinalSuffix(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return "th"
	case n%10 == 1:
		return "st"
	case n%10 == 2:
		return "nd"
	case n%10 == 3:
		return "rd"
	}
	return "th"
}

// fencePoints are fencing.png's points and title: the resource log's,
// with the send times of the kept history's arrivals, else the history's.
func (s *runScan) fencePoints() (pts []fencePoint, title string) {
	f := s.fenceLog
	if f.total == 0 {
		return s.historyFences()
	}
	type wkey struct {
		t, fence int64
		key      string
	}
	sent := map[wkey]int64{}
	for _, a := range s.d.marks {
		if a.Known {
			sent[wkey{a.Arrive, a.Fence, a.Key}] = a.Call
		}
	}
	pts = f.pts
	for i := range pts {
		if send, ok := sent[wkey{pts[i].t, pts[i].fence, pts[i].key}]; ok && !pts[i].read {
			pts[i].send = send
		}
	}
	return pts, f.title()
}

// historyFences are fencing.png's points from the history's writes and
// fenced reads (ok accepted, fail stale, info unknown); rare: not ok.
func (s *runScan) historyFences() (pts []fencePoint, title string) {
	n := s.fences.len()
	f := newFenceSample[fencePoint](n)
	s.ops.each("", false, func(i int, sp clientOp) {
		if k := f.total; k < n && int(s.fences.at(k).op) == i {
			f.add(fencePoint{t: sp.Call, fence: s.fences.at(k).fence, accepted: sp.Type == history.OK, stale: sp.Type == history.Fail,
				unknown: sp.Type == history.Info, read: sp.F == history.FRead, send: -1}, sp.Type != history.OK)
		}
	})
	if f.every == 1 {
		return f.pts, fencingTitle(f.pts, "from the history: arrivals unknown")
	}
	return f.pts, fmt.Sprintf("Fencing tokens of the history's writes — a sample: every %d%s accepted one of %d and every other one (up to %d)", f.every, ordinalSuffix(f.every), n, maxExactGroup)
}

// issued are the tokens issued on acquire (every lease's with a token),
// for fencing.png: a fenceSample of them, none rare.
func (s *runScan) issued() plotter.XYs {
	log := &s.leases.log
	n := 0
	for i := range log.fence.len() {
		if *log.fence.at(i) != 0 {
			n++
		}
	}
	f := newFenceSample[plotter.XY](n)
	for i := range log.fence.len() {
		if fence := *log.fence.at(i); fence != 0 {
			f.add(plotter.XY{X: seconds(*log.start.at(i)), Y: float64(fence)}, false)
		}
	}
	return f.pts
}

// Markers of stale writes on fencing.png: large, so that the difference
// between a fencing and a non-fencing resource shows at a glance.
var (
	colRejected     = rgb(0x1a, 0x7f, 0x37) // the report's "valid" green: fencing did its job
	glyphStaleOK    = draw.GlyphStyle{Color: colOverlap, Radius: vg.Points(7), Shape: draw.PyramidGlyph{}}
	glyphStaleNo    = draw.GlyphStyle{Color: colRejected, Radius: vg.Points(6.5), Shape: boldCross{}}
	maxStaleLabels  = 12 // more stale writes than this are marked, not labelled
	staleLabelStyle = draw.TextStyle{Font: font.From(bold, 10), Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
)

// anyToken reports whether a write carried a fencing token or an acquire
// issued one.
func anyToken(pts []fencePoint, issued plotter.XYs) bool {
	return len(issued) > 0 || slices.ContainsFunc(pts, func(p fencePoint) bool { return p.fence != 0 })
}

// fencingTitle says what the plot shows in numbers: how many stale writes
// the resource rejected and how many it accepted.
func fencingTitle(pts []fencePoint, source string) string {
	var acc, rej int
	for _, f := range pts {
		switch {
		case f.read || f.unknown:
		case f.accepted && f.stale:
			acc++
		case !f.accepted:
			rej++
		}
	}
	var what string
	switch {
	case acc == 0 && rej == 0:
		what = "no stale write reached the resource"
	case acc == 0:
		what = staleWrites(rej) + " rejected, none accepted"
	case rej == 0:
		what = staleWrites(acc) + " ACCEPTED, none rejected"
	default:
		what = fmt.Sprintf("%s ACCEPTED, %d rejected", staleWrites(acc), rej)
	}
	return "Fencing tokens at the resource: " + what + " (" + source + ")"
}

// staleWrites is "1 stale write" or "3 stale writes".
func staleWrites(n int) string { return page.Count(n, "stale write", "stale writes") }

// staleMarks draws for each stale write a dotted line up to the highest
// token before it, a line back to its send, and a label "rejected 55 < 56".
type staleMarks struct{ pts []fencePoint }

// Plot draws the lines and labels.
func (s staleMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := 0
	for _, f := range s.pts {
		if f.read || f.unknown || !f.stale {
			continue
		}
		n++
		col := colRejected
		label := fmt.Sprintf("rejected %d < %d", f.fence, f.highest)
		if f.accepted {
			col, label = colOverlap, fmt.Sprintf("ACCEPTED %d < %d", f.fence, f.highest)
		}
		x, y := trX(seconds(f.t)), trY(float64(f.fence))
		line := draw.LineStyle{Color: alpha(col, 0xa0), Width: vg.Points(1)}
		if f.highest > f.fence {
			dotted := line
			dotted.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2)}
			c.StrokeLines(dotted, c.ClipLinesXY([]vg.Point{{X: x, Y: y}, {X: x, Y: trY(float64(f.highest))}})...)
		}
		if f.send >= 0 && f.send < f.t {
			x0 := trX(seconds(f.send))
			c.StrokeLines(line, c.ClipLinesXY([]vg.Point{{X: x0, Y: y}, {X: x, Y: y}})...)
			c.StrokeLines(line, c.ClipLinesXY([]vg.Point{{X: x0, Y: y - vg.Points(4)}, {X: x0, Y: y + vg.Points(4)}})...)
		}
		if n <= maxStaleLabels && f.highest > 0 {
			sty := staleLabelStyle
			sty.Color = col
			pt := vg.Point{X: x + vg.Points(9), Y: y}
			if pt.X+sty.Width(label) > c.Max.X {
				// no room on the right (a write at the end of the run)
				sty.XAlign, pt.X = draw.XRight, x-vg.Points(9)
				pt.Y += vg.Points(10)
			}
			if c.Contains(pt) {
				c.FillText(sty, pt, label)
			}
		}
	}
}

// fencingPNG draws fencing.png: the tokens of writes, stale reads and
// acquires by outcome (fenceGroups), stale writes marked (staleMarks).
func (s *runScan) fencingPNG(ws []checker.Window, end int64) ([]byte, error) {
	pts, title := s.fencePoints()
	issued := s.issued()
	if !anyToken(pts, issued) {
		// "no stale write reached the resource" would claim what a run
		// without tokens cannot show: its stale writes carry no token
		title = "Fencing tokens: not applicable — this lock issues no fencing tokens"
	}
	p, legend, _, err := fencingPlotFrom(title, pts, issued, ws, end)
	if err != nil {
		return nil, err
	}
	return renderPNG(p, legend, figWidth, figHeight)
}

// fencingPlotFrom builds fencing.png's plot titled title from its points
// and the tokens issued on acquire.
func fencingPlotFrom(title string, pts []fencePoint, issued plotter.XYs, ws []checker.Window, end int64) (p *plot.Plot, legend []legendItem, heated []string, err error) {
	p = timePlot(newPlot(title, "time since start (s)", "fencing token"), ws, end)
	p.Add(staleMarks{pts})
	legend = faultLegend(ws)
	groups := fenceGroups
	sets, lo, hi, anyFence, total := fenceSets(pts, issued)
	if len(pts) > 0 || len(issued) > 0 {
		// at least one token, and enough that lo-pad < hi+pad in float64
		// even for tokens beyond 2^53 (gonum panics on an empty range)
		pad := math.Max(math.Max((hi-lo)*0.05, 1), math.Max(math.Abs(lo), math.Abs(hi))*1e-9)
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
		if !anyFence {
			p.Y.Min, p.Y.Max = -0.5, 2 // the note sits above the row of zeros
		}
	}
	var glyphs []plot.Plotter // exact points, drawn over every density layer
	for gi, g := range groups {
		xys := sets[gi]
		if len(xys) == 0 {
			continue
		}
		if dense(total) && len(xys) > maxExactGroup {
			col := opaque(g.glyph.Color)
			p.Add(newHeat(xys, fenceHeatRows, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max, false, col))
			legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d): per cell, darker = more", g.name, len(xys)), Thumb: heatThumb{col}})
			heated = append(heated, g.name)
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, nil, nil, err
		}
		sc.GlyphStyle = g.glyph
		glyphs = append(glyphs, sc)
		legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", g.name, len(xys)), Thumb: sc})
	}
	p.Add(glyphs...)
	if slices.ContainsFunc(pts, func(f fencePoint) bool { return f.stale && f.send >= 0 }) {
		legend = append(legend, legendItem{"a stale write's flight, from its send (tick); dotted: up to the highest token accepted before it", tickThumb{line: draw.LineStyle{Color: colGrey, Width: vg.Points(1)}}})
	}
	switch {
	case len(pts) == 0 && len(issued) == 0:
		p.Y.Min, p.Y.Max = 0, 1
		p.Add(emptyNote{"no writes reached the resource"})
	case !anyFence:
		p.Add(emptyNote{"this lock issues no fencing tokens: every write carried token 0"})
	}
	return runAxis(p, end), legend, heated, nil
}

// fenceGroups are fencing.png's groups of points in drawing order: the
// tokens issued (match nil), then the points by what became of them.
var fenceGroups = []struct {
	name  string
	match func(fencePoint) bool
	glyph draw.GlyphStyle
}{
	{"issued on acquire", nil, draw.GlyphStyle{Color: alpha(colGrey, 0x90), Radius: vg.Points(1.5), Shape: draw.RingGlyph{}}},
	{"write accepted", func(f fencePoint) bool { return !f.read && f.accepted && !f.stale && !f.unknown },
		draw.GlyphStyle{Color: colOK, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}},
	{"stale write ACCEPTED (no fencing)", func(f fencePoint) bool { return !f.read && f.accepted && f.stale }, glyphStaleOK},
	{"stale write rejected", func(f fencePoint) bool { return !f.read && !f.accepted && !f.unknown }, glyphStaleNo},
	{"stale read rejected", func(f fencePoint) bool { return f.read && !f.accepted && !f.unknown },
		draw.GlyphStyle{Color: colRejected, Radius: vg.Points(4), Shape: draw.PlusGlyph{}}},
	{"stale read served (reads not fenced)", func(f fencePoint) bool { return f.read && f.accepted && f.stale },
		draw.GlyphStyle{Color: colOverlap, Radius: vg.Points(4), Shape: draw.RingGlyph{}}},
	{"write outcome unknown", func(f fencePoint) bool { return !f.read && f.unknown },
		draw.GlyphStyle{Color: colGrey, Radius: vg.Points(2.5), Shape: draw.BoxGlyph{}}},
}

// fenceSets are the points of each of fenceGroups, the range of their
// tokens, whether any is not 0, and how many there are.
func fenceSets(pts []fencePoint, issued plotter.XYs) (sets []plotter.XYs, lo, hi float64, anyFence bool, total int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	sets = make([]plotter.XYs, len(fenceGroups))
	for gi, g := range fenceGroups {
		xys := issued
		if g.match != nil {
			xys = nil
			for _, f := range pts {
				if g.match(f) {
					xys = append(xys, plotter.XY{X: seconds(f.t), Y: float64(f.fence)})
				}
			}
		}
		for _, xy := range xys {
			lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
			anyFence = anyFence || xy.Y != 0
		}
		sets[gi] = xys
		total += len(xys)
	}
	return sets, lo, hi, anyFence, total
}

// boldCross is a ✕ glyph drawn with thick strokes (gonum's CrossGlyph is
// hairline thin), for rejected writes.
type boldCross struct{}

// DrawGlyph draws the cross centred on pt.
func (boldCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 0.8
	line := draw.LineStyle{Color: sty.Color, Width: vg.Points(2.2)}
	c.StrokeLine2(line, pt.X-r, pt.Y-r, pt.X+r, pt.Y+r)
	c.StrokeLine2(line, pt.X-r, pt.Y+r, pt.X+r, pt.Y-r)
}
