package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
)

// summaryAnomalies is how many anomalies the summary lists.
const summaryAnomalies = 5

// Summary writes the verdict summary printed at the end of a run: the
// verdicts, the first anomalies, the coverage, the replay, the report.
func Summary(w io.Writer, res *analysis.Result) {
	v := res.Verdict
	fmt.Fprintf(w, "verdict: %s\n", verdictWord(v.Valid))
	if line := bannerLine(res); line != "" {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if v.Error != "" {
		fmt.Fprintf(w, "  %s\n", v.Error)
	}
	if res.Incomplete != "" && !strings.Contains(v.Error, res.Incomplete) {
		fmt.Fprintf(w, "  incomplete run: %s\n", res.Incomplete)
	}
	for _, c := range v.Results {
		line := fmt.Sprintf("  %-10s %s", c.Name, verdictWord(c.Valid))
		if c.NotApplicable != "" {
			line = fmt.Sprintf("  %-10s not applicable  (%s)", c.Name, c.NotApplicable)
		}
		if c.Error != "" {
			line += "  (" + c.Error + ")"
		}
		fmt.Fprintln(w, line)
	}
	for i, a := range orderedAnomalies(v) {
		if !a.Fatal || i == summaryAnomalies {
			break // fatal ones come first
		}
		if i == 0 {
			fmt.Fprintln(w, "anomalies:")
		}
		during := ""
		if len(a.Faults) > 0 {
			during = " during " + strings.Join(a.Faults, ", ")
		}
		fmt.Fprintf(w, "  [%s] %s: %s (ops %s)%s\n", a.Checker, a.Kind, a.Text, opList(a.Ops), during)
	}
	coverageSummary(w, res.Coverage)
	if o := res.Overhead; o != nil && o.Records > 0 {
		line := fmt.Sprintf("harness: %d records, %.0f records/s", o.Records, o.RecordsPerSec)
		if o.Completions > 0 {
			line += fmt.Sprintf(", %.1f%% of completions unknown", 100*float64(o.Unknown)/float64(o.Completions))
		}
		if o.ProxiedP50 > 0 {
			line += fmt.Sprintf("; proxies added p50 %.0f µs, p99 %.0f µs per op", o.ProxyAddedP50, o.ProxyAddedP99)
		}
		fmt.Fprintln(w, line)
	}
	if v.Valid != checker.Valid {
		if configEmpty(res.Config) {
			fmt.Fprintf(w, "replay: %s\n", unknownReplay)
		} else if note := replayNote(ReplayConfig(res)); note != "" {
			fmt.Fprintf(w, "seed: %d  (%s)\n", res.Config.Seed, note)
		} else {
			fmt.Fprintf(w, "seed: %d  (replay: %s)\n", res.Config.Seed, ReplayCommand(ReplayConfig(res)))
		}
	}
	if res.Dir != "" {
		fmt.Fprintf(w, "report: %s\n", filepath.Join(res.Dir, store.IndexFile))
	}
}

func verdictWord(v checker.Validity) string {
	switch v {
	case checker.Valid:
		return "valid"
	case checker.Invalid:
		return "INVALID"
	}
	return "unknown"
}

func opList(ops []int64) string {
	parts := make([]string, 0, len(ops))
	for i, o := range ops {
		if i == 8 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprint(o))
	}
	return strings.Join(parts, ",")
}

// coverageSummary writes the coverage block: one line per fault kind,
// then the shortfall lines. Nothing for a run without faults.
func coverageSummary(w io.Writer, c *coverage.Report) {
	if c == nil {
		return
	}
	fmt.Fprintln(w, "coverage:")
	width := 0
	for _, k := range c.Kinds {
		width = max(width, len(k.Kind))
	}
	for _, k := range c.Kinds {
		fmt.Fprintf(w, "  %-*s  planned %d  applied %d  holder %d (%d at start)  waiter %d  write %d\n",
			width, k.Kind, k.Planned, k.Applied, k.TouchedHolder, k.HolderAtStart, k.TouchedWaiter, k.TouchedWrite)
	}
	if c.Unjudged != "" {
		fmt.Fprintf(w, "  %s\n", c.Unjudged)
	}
	for _, g := range c.Gaps {
		fmt.Fprintf(w, "  shortfall: %s\n", g)
	}
}

// bannerLine is the line under the verdict: a valid run's provenParts, an
// invalid one's first fatal anomaly, "" for unknown.
func bannerLine(res *analysis.Result) string {
	switch res.Verdict.Valid {
	case checker.Invalid:
		a, ok := firstFatalAnomaly(res.Verdict)
		if !ok {
			return ""
		}
		return fmt.Sprintf("first fatal anomaly: %s (%s checker) at %s %s", a.Kind, a.Checker,
			page.Plural(len(a.Ops), "op", "ops"), indexList(a.Ops, 4))
	case checker.Valid:
		return strings.Join(provenParts(res), " · ")
	}
	return ""
}

// provenParts are the parts of a valid run's banner line, in this order:
// the faults, the leases, the counter, the stale writes rejected.
func provenParts(res *analysis.Result) []string {
	var leases, counter, fenced string
	for _, r := range checkerParts(res.Verdict) {
		switch d := r.Details.(type) {
		case checker.ExclusionDetails:
			leases = fmt.Sprintf("%s, %s within validity", page.Count(d.Leases, "lease", "leases"), page.Count(d.Overlaps, "overlap", "overlaps"))
		case checker.ResourceDetails:
			counter = counterPart(d)
		case checker.FencingStats:
			if n := d.Rejected + d.ReadsRejected; r.NotApplicable == "" && n > 0 {
				fenced = page.Count(n, "stale write rejected", "stale writes rejected")
			}
		}
	}
	return slices.DeleteFunc([]string{faultsPart(res.Coverage), leases, counter, fenced}, func(p string) bool { return p == "" })
}

// faultsPart is "3 of 3 faults hit a holder" ("no faults" for a run
// without any; "" when the coverage cannot say).
func faultsPart(c *coverage.Report) string {
	if c == nil {
		return "no faults"
	}
	if c.Unjudged != "" {
		return ""
	}
	var applied, holder, waiter int
	for _, k := range c.Kinds {
		applied += k.Applied
		holder += k.TouchedHolder
		waiter += k.Exercised - k.TouchedHolder
	}
	s := fmt.Sprintf("%d of %s hit a holder", holder, page.Count(applied, "fault", "faults"))
	if waiter > 0 {
		s += fmt.Sprintf(", %d more a waiter", waiter)
	}
	return s
}

// counterPart is "counter exact 93/93" (acked less lost over acked); ""
// without a counter or a final value.
func counterPart(d checker.ResourceDetails) string {
	if len(d.Counter) == 0 {
		return ""
	}
	var acked int
	var lost int64
	for _, c := range d.Counter {
		if c.Lost < 0 {
			return ""
		}
		acked += c.Acked
		lost += c.Lost
	}
	word := "exact"
	if lost > 0 {
		word = "lost updates"
	}
	return fmt.Sprintf("counter %s %d/%d", word, int64(acked)-lost, acked)
}

// ReplayCommand is the lockstorm run command line replaying cfg
// (config.ReplayArgs).
func ReplayCommand(cfg config.Config) string {
	return strings.Join(append([]string{"lockstorm run"}, config.ReplayArgs(cfg)...), " ")
}

// ReplayConfig is res's configuration as its replay command states it: a
// scripted fault plan read from config.FaultPlanFile next to its report.
func ReplayConfig(res *analysis.Result) config.Config {
	cfg := res.Config
	if cfg.Plan != nil && res.Dir != "" {
		cfg.PlanFile = filepath.Join(res.Dir, config.FaultPlanFile)
	}
	return cfg
}

// Replay is the replay command of res (ReplayConfig), or a sentence saying
// why no command line can repeat it (replayNote).
func Replay(res *analysis.Result) string {
	cfg := ReplayConfig(res)
	switch note := replayNote(cfg); {
	case note != "":
		return note
	case configEmpty(cfg):
		return unknownReplay
	}
	return ReplayCommand(cfg)
}

// writeFaultPlan writes res's scripted fault plan for --fault-plan.
func writeFaultPlan(res *analysis.Result) error {
	if res.Config.Plan == nil {
		return nil
	}
	return config.WriteFaultPlan(filepath.Join(res.Dir, config.FaultPlanFile), res.Config.Plan)
}

// replayNote says why ReplayCommand cannot repeat a run, "" when it can.
func replayNote(cfg config.Config) string {
	switch {
	case cfg.Lock == "custom" || cfg.NewLock != nil:
		return "The lock under test was supplied from Go code (config.Config.NewLock): replay with the same Go test and seed."
	case cfg.Plan != nil && cfg.PlanFile == "":
		return "The faults were a scripted plan (see the fault plan below) and no fault-plan.json was written: replay with the same Go code and seed."
	}
	return ""
}

// unknownReplay is said instead of a replay line when the stored
// configuration is empty (configEmpty).
const unknownReplay = "unknown, the stored configuration is empty"

// configEmpty reports whether cfg names none of the settings a replay
// needs (test.json's config {} or missing).
func configEmpty(cfg config.Config) bool {
	return cfg.Lock == "" && cfg.Workload == "" && cfg.Nodes == 0 && cfg.Clients == 0 && cfg.TimeLimit == 0 && cfg.NewLock == nil
}

// Progress renders harness progress: a bar on a terminal, else (or under
// CI) a line every few seconds and when the active faults change.
type Progress struct {
	w      io.Writer
	tty    bool
	mu     sync.Mutex
	calls  int
	faults string // the active faults of the last snapshot
}

// NewProgress returns a renderer writing to w (normally os.Stderr).
func NewProgress(w io.Writer) *Progress {
	f, ok := w.(*os.File)
	var st os.FileInfo
	if ok {
		st, _ = f.Stat()
	}
	return &Progress{w: w, tty: st != nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("CI") == ""}
}

// The bar is barWidth characters wide; a plain line is written every
// plainEvery snapshots (at ~2 per second).
const barWidth, plainEvery = 30, 10

// Update draws one snapshot.
func (p *Progress) Update(s config.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	faults := strings.Join(s.Faults, ",")
	changed := faults != p.faults
	p.faults = faults
	if !p.tty {
		if s.Done || changed || p.calls%plainEvery == 1 {
			fmt.Fprintf(p.w, "lockstorm: %s\n", s)
		}
		return
	}
	frac := 0.0
	if s.TimeLimit > 0 {
		frac = min(1, float64(s.Elapsed)/float64(s.TimeLimit))
	}
	n := int(frac * barWidth)
	bar := strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n)
	if faults == "" {
		faults = "-"
	}
	fmt.Fprintf(p.w, "\r\033[K[%s] %5.1fs/%v  ops %d  faults %s  violations %d%s",
		bar, s.Elapsed.Seconds(), s.TimeLimit, s.Ops, faults, s.Violations, s.KindsText())
	if s.Done {
		fmt.Fprintln(p.w)
	}
}

// RunHeader is the line printed before each run's summary in a campaign:
// "run 2/5  seed 123".
func RunHeader(w io.Writer, i, n int, res *analysis.Result) {
	fmt.Fprintf(w, "\n== run %d/%d  seed %d ==\n", i, n, res.Config.Seed)
}
