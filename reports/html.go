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
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
)

//go:embed index.html.tmpl
var indexTemplate string

var indexTmpl = template.Must(template.New("index").Funcs(template.FuncMap{
	"secs":  func(ns int64) string { return fmt.Sprintf("%.3f", seconds(ns)) },
	"dur":   func(d time.Duration) string { return d.String() },
	"count": page.Count[int],
}).Parse(indexTemplate))

// figure is one embedded plot.
type figure struct {
	File    string
	Title   string
	Caption string
	Data    template.URL // data:image/png;base64,...
}

// recordRow is one history record shown under an anomaly.
type recordRow struct {
	history.Op
	Seconds string
	Short   string // the token, shortened
}

// anomalyView is one anomaly on the page.
type anomalyView struct {
	checker.Anomaly
	Checker string
	OpsText string
	// Link is a page drawing one of its ops (opPages.link), or "".
	Link    string
	Records []recordRow
	More    int // records not shown
}

// checkerView is one checker's row.
type checkerView struct {
	Name    string
	Verdict string
	// NotApplicable says why the checker had nothing to check; the page
	// shows it instead of the verdict.
	NotApplicable string
	Fatal         int
	NonFatal      int
	Error         string
	Details       string // indented JSON
}

// pageData is everything index.html shows.
type pageData struct {
	Name, Dir, Verdict, VerdictError string
	// Proof is the banner's line under the verdict (bannerLine).
	Proof                string
	Seed                 int64
	Replay, ReplayNote   string
	Generated            string
	Duration             string
	Ops, Records, Faults int
	Checkers             []checkerView
	FatalCount           int
	// Anomalies are in orderedAnomalies' order.
	Anomalies  []anomalyView
	Plan       []planRow
	HealAt     string
	PlanOrigin string // "scripted" or "drawn from the seed before the run"
	Windows    []checker.Window
	Coverage   *coverageView // nil: no faults
	Figures    []figure
	Config     string
	Clients    string // what the clients were and the pause model
	Files      []fileLink
	Porcupine  string // note when porcupine.html was not built
	// PauseStories are pauseStories' sentences, by the holders chart.
	PauseStories []string
	// Incomplete says why the run was cut short: its verdict is at best
	// unknown.
	Incomplete  string
	Interrupted bool
	// PlanLeft and WindowsLeft are the fault plan's steps and the fault
	// windows not listed (trimPage).
	PlanLeft, WindowsLeft int
	// Big is notes' account of a history too long to keep whole.
	Big []string
	// Cell is the sweep or comparison cell of the run (config.Config.Cell).
	Cell string
}

type planRow struct{ At, Kind, Fault, Duration string }

type fileLink struct{ Name, About string }

// maxRecordsShown bounds the history records listed under one anomaly.
const maxRecordsShown = 16

// buildPage gathers the page's data from res and the pass s; figs are
// the rendered plots, files the run folder's files worth linking.
func buildPage(res *analysis.Result, s *runScan, figs []figure, files []fileLink, pages *opPages, porcNote string) pageData {
	cfg := res.Config
	d := pageData{Name: cfg.Name, Cell: cfg.Cell, Dir: res.Dir, Verdict: res.Verdict.Valid.String(), VerdictError: res.Verdict.Error,
		Seed: cfg.Seed, Generated: time.Now().Format(time.RFC3339), Records: int(s.records), Ops: s.ops.len(),
		Duration: time.Duration(s.end).Round(time.Millisecond).String(),
		Faults:   len(s.faults), Windows: s.faults, Figures: figs, Files: files, Porcupine: porcNote,
		Coverage:   coverageSection(res.Coverage),
		Incomplete: res.Incomplete, Interrupted: res.Interrupted, Big: s.notes()}
	rcfg := cfg
	if c, err := cfg.WithDefaults(); err == nil {
		rcfg = c // a hand-made config: show the flags' real values
	}
	rcfg.PlanFile = ReplayConfig(res).PlanFile
	d.Replay, d.ReplayNote = ReplayCommand(rcfg), replayNote(rcfg)
	if configEmpty(cfg) {
		d.Replay, d.ReplayNote = "", "Replay: "+unknownReplay+" (test.json records no settings), so no command line can repeat this run."
	}
	d.Proof = bannerLine(res)
	d.Checkers, d.FatalCount = checkerViews(res.Verdict)
	d.Anomalies = anomalyViews(res.Verdict, s.recordAt, pages)
	if res.Plan != nil {
		for _, st := range res.Plan.Steps {
			d.Plan = append(d.Plan, planRow{At: st.At.String(), Kind: st.Fault.Kind, Fault: st.Fault.String(), Duration: st.Duration.String()})
		}
		d.HealAt = res.Plan.HealAt.String()
		d.PlanOrigin = "drawn from the seed before the run"
		if res.Config.Plan != nil {
			d.PlanOrigin = "scripted"
		}
	}
	if b, err := json.MarshalIndent(cfg, "", "  "); err == nil {
		d.Config = string(b)
	}
	d.Clients = config.ClientsSummary(rcfg)
	if s.whole {
		d.PauseStories = runPauseStories(s.d)
	}
	return d
}

// checkerViews are the rows of v's checkers and the number of fatal
// anomalies.
func checkerViews(v checker.Result) (out []checkerView, fatal int) {
	parts := v.Results
	if len(parts) == 0 && (v.Name != "" || len(v.Anomalies) > 0) {
		parts = []checker.Result{v}
	}
	for _, r := range parts {
		cv := checkerView{Name: r.Name, Verdict: r.Valid.String(), NotApplicable: r.NotApplicable, Error: r.Error}
		if r.Details != nil {
			if b, err := json.MarshalIndent(r.Details, "", "  "); err == nil {
				cv.Details = string(b)
			}
		}
		for _, a := range r.Anomalies {
			if a.Fatal {
				cv.Fatal++
				fatal++
			} else {
				cv.NonFatal++
			}
		}
		out = append(out, cv)
	}
	return out, fatal
}

// anomalyViews are the anomaly cards of v in orderedAnomalies' order,
// each with its first records (recordAt) and its link (pages).
func anomalyViews(v checker.Result, recordAt func(i int64) (history.Op, bool), pages *opPages) []anomalyView {
	var out []anomalyView
	for _, a := range orderedAnomalies(v) {
		av := anomalyView{Anomaly: a.Anomaly, Checker: a.Checker, OpsText: indexList(a.Ops, 60), Link: pages.link(a.Checker, a.Ops)}
		shown := a.Ops[:min(len(a.Ops), maxRecordsShown)]
		av.More = len(a.Ops) - len(shown)
		for _, o := range shown {
			if op, ok := recordAt(o); ok {
				av.Records = append(av.Records, recordRow{Op: op, Seconds: fmt.Sprintf("%.4f", seconds(op.Time)), Short: page.ShortToken(op.Token)})
			}
		}
		out = append(out, av)
	}
	return out
}

// maxIndexBytes is the size index.html keeps under (renderIndex links the
// largest figures instead of inlining them past it).
const maxIndexBytes = 1_900_000

// renderIndex renders index.html from page, inlining as many of its
// figures as fit under maxIndexBytes (fitInline) and linking the others.
func renderIndex(page pageData) ([]byte, error) {
	linked := slices.Clone(page.Figures)
	for i := range linked {
		linked[i].Data = template.URL(linked[i].File)
	}
	var buf bytes.Buffer
	render := func(figs []figure) error {
		p := page
		p.Figures = figs
		buf.Reset()
		if err := indexTmpl.Execute(&buf, p); err != nil {
			return fmt.Errorf("reports: index.html: %w", err)
		}
		return nil
	}
	if err := render(linked); err != nil {
		return nil, err
	}
	if buf.Len() > maxIndexBytes/2 {
		trimPage(&page)
		if err := render(linked); err != nil {
			return nil, err
		}
	}
	fitInline(page.Figures, maxIndexBytes-buf.Len())
	if err := render(page.Figures); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// A page whose text alone takes more than half of maxIndexBytes has its
// long tables cut to maxPageRows rows and checker details to
// maxDetailsBytes (trimPage), saying so.
const (
	maxPageRows     = 200
	maxDetailsBytes = 16 << 10
)

// trimPage cuts page's fault plan, fault windows, coverage windows and
// checker details to the bounds above.
func trimPage(page *pageData) {
	if n := len(page.Plan); n > maxPageRows {
		page.Plan, page.PlanLeft = page.Plan[:maxPageRows], n-maxPageRows
	}
	if n := len(page.Windows); n > maxPageRows {
		page.Windows, page.WindowsLeft = page.Windows[:maxPageRows], n-maxPageRows
	}
	if c := page.Coverage; c != nil && len(c.Windows) > maxPageRows {
		cut := *c
		cut.Windows, cut.WindowsLeft = c.Windows[:maxPageRows], len(c.Windows)-maxPageRows
		page.Coverage = &cut
	}
	checkers := slices.Clone(page.Checkers)
	for i, c := range checkers {
		if len(c.Details) > maxDetailsBytes {
			cut := c.Details[:maxDetailsBytes]
			if j := strings.LastIndexByte(cut, '\n'); j > 0 {
				cut = cut[:j] // whole lines
			}
			checkers[i].Details = cut + fmt.Sprintf("\n… cut here: %d more bytes; results.json has the whole details", len(c.Details)-len(cut))
		}
	}
	page.Checkers = checkers
}

// fitInline turns the largest figures (holders.png last) into links
// until their inline data fits budget bytes; it returns how many.
func fitInline(figs []figure, budget int) int {
	total := 0
	for _, f := range figs {
		total += inlineBytes(f)
	}
	order := make([]int, len(figs))
	for i := range order {
		order[i] = i
	}
	holders := func(i int) int { return oneIf(figs[i].File == store.HoldersFile) } // the main figure, linked last
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(holders(a)-holders(b), len(figs[b].Data)-len(figs[a].Data))
	})
	n := 0
	for _, i := range order {
		if total <= budget {
			break
		}
		total -= inlineBytes(figs[i])
		figs[i].Data = template.URL(figs[i].File)
		n++
	}
	return n
}

// inlineBytes is what inlining f adds to index.html over linking it (the
// template writes each '+' and '=' as a 5-byte character reference).
func inlineBytes(f figure) int {
	d := string(f.Data)
	return len(d) + 4*(strings.Count(d, "+")+strings.Count(d, "=")) - len(f.File)
}

// coverageView is the report's coverage section: what the run's faults
// touched, per kind and per window, and why it falls short of the bar.
type coverageView struct {
	Requested string
	Min       int
	Unjudged  string
	Kinds     []coverage.KindCount
	// Legend says what each column counts (coverage.Columns).
	Legend  []coverage.Column
	Windows []coverageWindow
	// WindowsLeft is how many windows are not listed (trimPage).
	WindowsLeft int
	Gaps        []string
}

// coverageWindow is one fault window's row.
type coverageWindow struct {
	Kind, Detail          string
	Start, End, Ops       string
	Applied, Unhealed     bool
	Clients, Nodes        string
	Holder, Waiter, Write string
}

// coverageSection builds the section from res's coverage (nil: no faults).
func coverageSection(c *coverage.Report) *coverageView {
	if c == nil {
		return nil
	}
	v := &coverageView{Requested: strings.Join(c.Requested, ", "), Min: c.Min, Unjudged: c.Unjudged,
		Kinds: c.Kinds, Gaps: c.Gaps, Legend: coverage.Columns}
	for _, w := range c.Windows {
		ops := fmt.Sprint(w.StartOp)
		if w.StopOp >= 0 {
			ops += ".." + fmt.Sprint(w.StopOp)
		}
		v.Windows = append(v.Windows, coverageWindow{Kind: w.Kind, Detail: w.Detail,
			Start: fmt.Sprintf("%.3f", seconds(w.Start)), End: fmt.Sprintf("%.3f", seconds(w.End)), Ops: ops,
			Applied: w.Applied, Unhealed: w.Unhealed,
			Clients: strings.Join(w.Clients, ","), Nodes: strings.Join(w.Nodes, ","),
			Holder: touchText(w.Holder), Waiter: touchText(w.Waiter), Write: touchText(w.Write)})
	}
	return v
}

// touchText is "c1 at start: op 12 (acquire ok at 1.234 s)", or "" when
// the window touched no client in that state.
func touchText(t *coverage.Touch) string {
	if t == nil {
		return ""
	}
	s := fmt.Sprintf("%s %s: op %d", t.Client, map[string]string{coverage.AtStart: "at start", coverage.During: "during"}[t.When], t.Op)
	if t.F != "" {
		s += fmt.Sprintf(" (%s %s at %.3f s)", t.F, t.Type, seconds(t.Time))
	}
	return s
}
