package reports

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
)

// timeline.html, like Jepsen's: a row per client slot, a box per
// operation by outcome, fault bands, anomalies' boxes marked; #op=N
// highlights record N. A small script draws the embedded JSON.

//go:embed timeline.html.tmpl
var timelineSrc string

var timelineTmpl = template.Must(template.New("timeline").Funcs(template.FuncMap{"count": page.Count[int]}).Parse(timelineSrc))

// maxTimelineBoxes is the most boxes timeline.html draws (okStride).
const maxTimelineBoxes = 20000

// Outcome codes of timeline boxes (tlBox.Outcome).
const (
	tlOK = iota
	tlFail
	tlInfo
	tlOpen // info: never completed
)

// tlBox is one operation's box, encoded as a JSON array; times in ms.
type tlBox struct {
	Row     int
	Start   float64
	End     float64
	Outcome int
	Index   int64
	Process int
	F       string
	Detail  string
	// Comp is the completion record's index, -1 when it never completed.
	Comp int64
	// Label is what the box says: f, then the value or the short token.
	Label string
	// Anomalies names the anomalies of the operation's records ("" for
	// none): the box is marked.
	Anomalies string
}

// MarshalJSON encodes the box as an array.
func (b tlBox) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{b.Row, b.Start, b.End, b.Outcome, b.Index, b.Process, b.F, b.Detail, b.Comp, b.Label, b.Anomalies})
}

// tlFault is one fault window's band.
type tlFault struct {
	Label    string  `json:"label"`
	Kind     string  `json:"kind"`
	Colour   string  `json:"colour"`
	Start    float64 `json:"start"` // ms
	End      float64 `json:"end"`   // ms
	Unhealed bool    `json:"unhealed,omitempty"`
	Ops      string  `json:"ops"`
	// StartOp and StopOp are the records that start and end the fault
	// (StopOp -1 when never healed): "#op=N" to one lands on the band.
	StartOp int64 `json:"start_op"`
	StopOp  int64 `json:"stop_op"`
	// Rows are the rows of the clients the fault touched (clientRows),
	// shaded fully, the others lightly; empty: every row fully.
	Rows []int `json:"rows,omitempty"`
}

// Opacities of timeline.html's fault bands: full, and light across the
// rows of the clients a client fault did not touch.
const (
	tlBandOpacity  = 0.35
	tlLightOpacity = 0.07
)

// tlData is everything the page's script draws.
type tlData struct {
	Rows   []string  `json:"rows"` // row labels, top to bottom
	End    float64   `json:"end"`  // ms, the time axis' right end
	Boxes  []tlBox   `json:"boxes"`
	Faults []tlFault `json:"faults"`
	Colour [4]string `json:"colour"` // by outcome code
	Band   float64   `json:"band"`   // tlBandOpacity
	Light  float64   `json:"light"`  // tlLightOpacity
}

// tlPage is the template's data.
type tlPage struct {
	Title, Verdict, Note string
	Total, Shown         int
	Data                 template.JS
}

// buildTimeline lays out dt's rows, boxes (at most maxBoxes, never
// dropping one of marks' records) and fault bands, the axis to end (ns).
func buildTimeline(dt *detail, end int64, maxBoxes int, marks map[int64]string) (d tlData, total int) {
	h, ws, sm := dt.h, dt.ws, dt.sm
	d.Rows = sm.Rows
	d.End = millis(end)
	d.Colour = [4]string{hexColour(colOK), hexColour(colFail), hexColour(colInfo), hexColour(colInfo)}
	d.Band, d.Light = tlBandOpacity, tlLightOpacity
	total = len(dt.sp)
	keepOK := okStride(dt, maxBoxes, marks)
	okSeen := 0
	for _, s := range dt.sp {
		b := spanBox(h, s, sm, d.End, marks)
		if b.Outcome == tlOK && b.Anomalies == "" {
			okSeen++
			if keepOK == 0 || (okSeen-1)%keepOK != 0 {
				continue
			}
		}
		if len(d.Boxes) >= maxBoxes {
			break
		}
		d.Boxes = append(d.Boxes, b)
	}
	rows := clientRows(h, ws, sm)
	for i, w := range ws {
		ops := fmt.Sprintf("ops %d..%d", w.StartOp, w.StopOp)
		if w.Unhealed {
			ops = fmt.Sprintf("op %d, never healed", w.StartOp)
		}
		d.Faults = append(d.Faults, tlFault{Label: w.Label(), Kind: w.Fault, Colour: hexColour(faultColour(w.Fault)),
			Start: millis(w.Start), End: millis(w.End), Unhealed: w.Unhealed, Ops: ops, Rows: rows[i],
			StartOp: w.StartOp, StopOp: w.StopOp})
	}
	return d, total
}

// okStride is k to keep one in k of the ok operations no anomaly names,
// all others kept, for at most maxBoxes (0: no ok one fits).
func okStride(dt *detail, maxBoxes int, marks map[int64]string) int {
	total := len(dt.sp)
	if total <= maxBoxes {
		return 1
	}
	notOK := 0
	for _, s := range dt.sp {
		if !s.Completed || s.Type != history.OK || marks[dt.h[s.Inv].Index] != "" || marks[dt.h[s.Comp].Index] != "" {
			notOK++
		}
	}
	if room := maxBoxes - notOK; room > 0 {
		return (total - notOK + room - 1) / room
	}
	return 0 // only fail and info fit (and even those are capped)
}

// spanBox is s's box (never completed: to end, ms), marked with marks'
// anomalies of its records.
func spanBox(h history.History, s clientOp, sm slotMap, end float64, marks map[int64]string) tlBox {
	inv := &h[s.Inv]
	b := tlBox{Row: sm.Row[inv.Process], Start: millis(inv.Time), End: end, Outcome: tlOpen,
		Index: inv.Index, Process: inv.Process, F: inv.F, Comp: -1}
	var c *history.Op
	if s.Completed {
		c = &h[s.Comp]
		b.End, b.Comp = millis(c.Time), c.Index
		switch c.Type {
		case history.OK:
			b.Outcome = tlOK
		case history.Fail:
			b.Outcome = tlFail
		default:
			b.Outcome = tlInfo
		}
	}
	b.Detail, b.Label = opDetail(inv, c), boxLabel(inv, c)
	var as []string
	for _, i := range []int64{b.Index, b.Comp} {
		if m := marks[i]; m != "" && i >= 0 && !slices.Contains(as, m) {
			as = append(as, m)
		}
	}
	b.Anomalies = strings.Join(as, "; ")
	return b
}

// boxLabel is a box's text: f, then the value or the short token.
func boxLabel(inv, c *history.Op) string {
	r := cmp.Or(c, inv)
	switch {
	case r.F == history.FRead && c != nil && c.Type == history.OK, r.F == history.FWrite:
		return fmt.Sprintf("%s %d", r.F, r.Value)
	case r.Token != "":
		return r.F + " " + page.ShortToken(r.Token)
	}
	return r.F
}

// anomalyMarks maps each record v's anomalies name to what the box
// says of them: "exclusion write-after-validity (fatal)", joined by "; ".
func anomalyMarks(v checker.Result) map[int64]string {
	marks := map[int64]string{}
	for _, r := range checkerParts(v) {
		for _, a := range r.Anomalies {
			what := r.Name + " " + a.Kind
			if a.Fatal {
				what += " (fatal)"
			}
			for _, o := range a.Ops {
				if m := marks[o]; m == "" {
					marks[o] = what
				} else if !strings.Contains(m, what) {
					marks[o] = m + "; " + what
				}
			}
		}
	}
	return marks
}

// opDetail is a box's hover text besides index, type and times.
func opDetail(inv, c *history.Op) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	r := cmp.Or(c, inv)
	if r.Key != "" {
		add("key %s", r.Key)
	}
	if r.Token != "" {
		add("token %s", r.Token)
	}
	if r.Fence != 0 {
		add("fence %d", r.Fence)
	}
	if r.F == history.FRead || r.F == history.FWrite || r.Value != 0 {
		add("value %d", r.Value)
	}
	if r.Error != "" {
		add("error: %s", r.Error)
	}
	if c != nil {
		add("completion op %d", c.Index)
	} else {
		add("never completed")
	}
	return strings.Join(parts, ", ")
}

// hexColour is c as CSS "#rrggbb".
func hexColour(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// writeTimelineFile writes timeline.html into res.Dir, or a note page for
// a history not kept whole; pages records the anomalies' ops it draws.
func writeTimelineFile(res *analysis.Result, s *runScan, end int64, pages *opPages) error {
	if !s.whole {
		return writeNotePage(res.Dir, store.TimelineFile, fmt.Sprintf("Timeline — %s, lock %s: not drawn", res.Config.Name, res.Config.Lock),
			fmt.Sprintf("This history has %d client operations in %d records, more than the %d records up to which the report keeps a history whole to draw this page; history.jsonl has them all, and index.html's plots cover them (holders.png draws the records around the anomalies in detail).", s.ops.len(), s.records, maxWholeRecords))
	}
	d, total := buildTimeline(s.d, end, maxTimelineBoxes, anomalyMarks(res.Verdict))
	for _, b := range d.Boxes {
		pages.add(store.TimelineFile, b.Index)
		pages.add(store.TimelineFile, b.Comp)
	}
	for _, f := range d.Faults {
		pages.add(store.TimelineFile, f.StartOp)
		pages.add(store.TimelineFile, f.StopOp)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("reports: %s: %w", store.TimelineFile, err)
	}
	cfg := res.Config
	p := tlPage{
		Title:   fmt.Sprintf("Timeline — %s, lock %s", cfg.Name, cfg.Lock),
		Verdict: strings.ToUpper(res.Verdict.Valid.String()),
		Total:   total, Shown: len(d.Boxes), Data: template.JS(b),
	}
	if len(d.Boxes) < total {
		p.Note = fmt.Sprintf("This history has %d operations; the timeline draws %d of them, above its limit of %d boxes: every fail and info operation and every operation an anomaly names (up to the limit) and an even sample of the other ok ones. history.jsonl has them all.",
			total, len(d.Boxes), maxTimelineBoxes)
	}
	var buf bytes.Buffer
	if err := timelineTmpl.Execute(&buf, p); err != nil {
		return fmt.Errorf("reports: %s: %w", store.TimelineFile, err)
	}
	return writeFile(res.Dir, store.TimelineFile, buf.Bytes())
}
