package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
)

// latencyRaw draws a big history's latency-raw.png, as latencyRaw does,
// from the panels pass 2 filled.
func (b *bigRun) latencyRaw(ws []checker.Window, end int64) ([]byte, error) {
	if b.ops == 0 {
		return latencyRaw(nil, ws, end)
	}
	title := "Latency of every operation by type (at invoke time; each panel its own scale)"
	if dense(b.ops) {
		title += fmt.Sprintf(" — %d ops: crowded outcomes as density", b.ops)
	}
	legend := faultLegend(ws)
	var ps []*plot.Plot
	heated := map[string]bool{}
	for i, f := range b.order {
		p, hot, err := drawRawPanel(b.types[f].raw, ws, end, i == len(b.order)-1)
		if err != nil {
			return nil, err
		}
		for _, g := range hot {
			heated[g] = true
		}
		ps = append(ps, p)
	}
	for i, g := range rawGroups {
		n := 0
		for _, d := range b.types {
			n += d.groups[i]
		}
		if n > 0 {
			legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", g.name, n), Thumb: glyphThumb(g.glyph)})
			if heated[g.name] {
				legend = append(legend, legendItem{Label: g.name + ": ops per cell (darker = more)", Thumb: heatThumb{opaque(g.glyph.Color)}})
			}
		}
	}
	return renderPanels(title, ps, legend, figWidth, panelsHeight(len(ps)))
}

// completedTypes are the types with completed operations, in order.
func (b *bigRun) completedTypes() []string {
	var out []string
	for _, f := range b.order {
		if b.types[f].completed > 0 {
			out = append(out, f)
		}
	}
	return out
}

// latencyQuantiles draws a big history's latency-quantiles.png from its
// histograms (see latencyHist).
func (b *bigRun) latencyQuantiles(ws []checker.Window, end int64) ([]byte, error) {
	types := b.completedTypes()
	if len(types) == 0 {
		return latencyQuantiles(nil, ws, end)
	}
	width := bucketWidth(max(end, 0))
	title := fmt.Sprintf("Latency quantiles per %v bucket, by operation type (completed ops, by invoke time; p50–p99 from 2%% bins)", time.Duration(width))
	var ps []*plot.Plot
	for i, f := range types {
		d := b.types[f]
		p, err := drawQuantilePanel(fmt.Sprintf("%s (%d completed)", f, d.completed), len(d.hist.n), d.hist.at, ws, end, width, i == len(types)-1)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	legend := faultLegend(ws)
	for _, q := range quantileLines {
		w := vg.Points(1.5)
		if q.q == 1 {
			w = vg.Points(4)
		}
		legend = append(legend, legendItem{Label: q.name, Thumb: lineThumb(draw.LineStyle{Color: q.col, Width: w})})
	}
	return renderPanels(title, ps, legend, figWidth, panelsHeight(len(ps)))
}

// rate draws a big history's rate.png from its counts.
func (b *bigRun) rate(ws []checker.Window, end int64) ([]byte, error) {
	types := b.completedTypes()
	if len(types) == 0 {
		return rate(nil, ws, end)
	}
	width := bucketWidth(max(end, 0))
	title := fmt.Sprintf("Throughput: completions per second by outcome and operation type (%v buckets)", time.Duration(width))
	var ps []*plot.Plot
	for i, f := range types {
		d := b.types[f]
		p, err := drawRatePanel(fmt.Sprintf("%s (%d completed)", f, d.completed), d.counts, ws, end, i == len(types)-1)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	legend := faultLegend(ws)
	for _, o := range rateOutcomes {
		n := 0
		for _, d := range b.types {
			n += d.outcomes[o.t]
		}
		if n > 0 {
			legend = append(legend, legendItem{Label: fmt.Sprintf("%s (%d)", o.t, n), Thumb: lineThumb(draw.LineStyle{Color: o.col, Width: vg.Points(1.6)})})
		}
	}
	return renderPanels(title, ps, legend, figWidth, panelsHeight(len(ps)))
}

// holders draws a big history's holders.png: the streamed overview, then
// the anomaly windows from the window history (wres: its records, the
// resource log entries of the windows, the verdict mapped to it).
func (b *bigRun) holders(res, wres *harness.Result, ws []checker.Window, end int64) ([]byte, error) {
	sm := b.slots.slotMap(b.wh)
	hs := holds(b.wh)
	marks := arrivals(b.wh, wres.Writes)
	lost := lostPairs(b.wh, wres.Verdict)
	hc := holdersChart{hs: hs, ovs: overlaps(hs), slots: sm, h: b.wh, marks: marks, lost: lost}
	title := fmt.Sprintf("Lock holders: %d leases, %d pairs of holders at once", b.occ.leases, b.occ.pairs)
	switch {
	case b.occ.leases == 0:
		title = "Lock holders: nobody held the lock"
	case b.occ.pairs == 0:
		title = fmt.Sprintf("Lock holders: %d leases, never two holders at once", b.occ.leases)
	}
	a := holdersArgs{h: b.wh, writes: wres.Writes, lost: lost, ws: ws, end: end, clients: b.nslots,
		anomalies: allAnomalies(res.Verdict), pad: windowPad(res.Config.TTL),
		overview: b.occ.occupancy, windows: b.windows, windowsLeft: b.windowsLeft,
		timeOf:       func(i int64) (int64, bool) { t, ok := b.times[i]; return t, ok },
		overviewNote: fmt.Sprintf(", streamed over all %d records", b.records),
		windowNote:   " (only the records read around it)"}
	return bigHolders(a, hc, title, end)
}

// lastRecordTime is the time of the last record of the history at path
// (its end, records being in time order), read from the file's tail; 0
// when it cannot be read.
func lastRecordTime(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	const tail = 64 << 10
	off := max(st.Size()-tail, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return 0
	}
	lines := bytes.Split(bytes.TrimSpace(buf), []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		var o history.Op
		if json.Unmarshal(lines[i], &o) == nil {
			return o.Time
		}
	}
	return 0
}
