package zoo

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/workpool"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/power"
	"github.com/lockstorm/lockstorm/reports"
)

// Options configure a zoo run.
type Options struct {
	// Only selects entries by name, or single cells as NAME/COLUMN
	// (redis-py-lock/client-crash); empty means all.
	Only []string
	// Seeds is how many seeds (1..Seeds) each cell runs. Default 1.
	Seeds int
	// TimeLimit is each run's length. Default config.DefaultTimeLimit.
	TimeLimit time.Duration
	// Parallel is how many runs go on at once. Default 1.
	Parallel int
	Store    string
	// Shard is the share of the runs to run here (--shard K/N).
	Shard shard.Shard
	// Runner runs one cell's seed and writes its report. Default
	// lockstorm.Run (campaign.RunReported).
	Runner harness.RunFunc
	// Out receives the commands before they run and a line per finished run.
	Out io.Writer
}

// EntryOutcome is an entry and its cells' outcomes.
type EntryOutcome struct {
	Name     string `json:"name"`
	Dir      string `json:"dir"`
	Language string `json:"language"`
	Library  string `json:"library"`
	Version  string `json:"version"`
	Upstream string `json:"upstream"`
	Claims   string `json:"claims"`
	Build    string `json:"build,omitempty"`
	Client   string `json:"client"`
	Nodes    int    `json:"nodes"`
	TTL      string `json:"ttl"`
	Renewal  string `json:"renewal"`
	Fencing  bool   `json:"fencing"`
	// Skipped says why the entry did not run (its runtime is missing).
	Skipped string `json:"skipped,omitempty"`
	// BuildError says why its build failed: its cells are unknown.
	BuildError string        `json:"build_error,omitempty"`
	Cells      []CellOutcome `json:"cells"`
}

// Board is a zoo run's result: zoo.json, and the source of zoo.md and
// the scoreboard page.
type Board struct {
	Started   time.Time      `json:"started"`
	Seconds   float64        `json:"seconds"`
	Seeds     int            `json:"seeds"`
	TimeLimit string         `json:"time_limit"`
	Dir       string         `json:"dir"`
	Columns   []string       `json:"columns"`
	Entries   []EntryOutcome `json:"entries"`
	// Interrupted: the run was stopped before every cell ran.
	Interrupted bool `json:"interrupted,omitempty"`
	// Summary is what the scoreboard starts with: libraries, entries,
	// known bugs reproduced, fixed twins clean, new findings.
	Summary Summary `json:"summary"`
}

// Count is how many cells have each status.
func (b *Board) Count() map[string]int {
	n := map[string]int{}
	for _, e := range b.Entries {
		for _, c := range e.Cells {
			n[string(c.Status)]++
		}
	}
	return n
}

// Select keeps the entries and cells Only names, or an error naming an
// unknown one.
func Select(entries []Entry, only []string) ([]Entry, error) {
	if len(only) == 0 {
		return entries, nil
	}
	var out []Entry
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	for _, o := range only {
		name, column, _ := strings.Cut(o, "/")
		i := slices.IndexFunc(entries, func(e Entry) bool { return e.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("--only: no zoo entry %q (entries: %s)", name, strings.Join(names, ", "))
		}
		e := entries[i]
		if column != "" {
			j := slices.IndexFunc(e.Cells, func(c Cell) bool { return c.Column() == column })
			if j < 0 {
				var cols []string
				for _, c := range e.Cells {
					cols = append(cols, c.Column())
				}
				return nil, fmt.Errorf("--only: entry %s has no cell %q (cells: %s)", name, column, strings.Join(cols, ", "))
			}
			e.Cells = []Cell{e.Cells[j]}
		}
		k := slices.IndexFunc(out, func(x Entry) bool { return x.Name == name })
		if k < 0 {
			out = append(out, e)
		} else if column != "" && !slices.ContainsFunc(out[k].Cells, func(c Cell) bool { return c.Column() == column }) {
			out[k].Cells = append(out[k].Cells, e.Cells...)
		} else if column == "" {
			out[k] = entries[i]
		}
	}
	return out, nil
}

// Config is the run of one seed of a cell: the entry's client command in
// its folder, on its nodes and TTL, under the cell's faults.
func (e Entry) Config(c Cell, seed int64, o Options) config.Config {
	cfg := config.Config{
		Name: "zoo-" + e.Name + "-" + slug(c.Column()), Lock: e.Name,
		ClientCmd: e.Client, ClientDir: e.Dir,
		Workload: c.Workload, Nemesis: strings.Split(strings.ReplaceAll(c.Nemesis, " ", ""), ","),
		Nodes: e.Nodes, Clients: e.Clients, TTL: e.TTLDuration(), NodeTimeout: e.nodeTimeout, Fencing: c.Fencing,
		Fair:      e.Fair,
		TimeLimit: o.TimeLimit, Seed: seed, Store: o.Store,
	}
	if slices.ContainsFunc(cfg.Nemesis, func(k string) bool { return k == nemesis.KindCrash || k == nemesis.KindClockJump }) {
		// Holds of about two thirds of the TTL keep the lease held while
		// a restarted node forgets it or a jumped clock expires it.
		cfg.Workloads.HoldMin, cfg.Workloads.HoldMax = 3*e.TTLDuration()/5, 2*e.TTLDuration()/3
	}
	if c.plan != nil {
		// A scripted cell: these faults at these times, for the plan's length.
		p := *c.plan
		cfg.Plan, cfg.PlanFile, cfg.TimeLimit = &p, c.planPath, p.End
	}
	if e.Renewal == RenewalWatchdog {
		// Renewals every TTL/3 for holds of one to two TTLs; holders
		// trust the lock's word that a lease is lost.
		cfg.RenewEvery = e.TTLDuration() / 3
		cfg.Workloads.HoldMin, cfg.Workloads.HoldMax = e.TTLDuration(), 2*e.TTLDuration()
		cfg.Workloads.TrustLostSignal = true
	}
	if c.holdMax > 0 {
		cfg.Workloads.HoldMin, cfg.Workloads.HoldMax = c.holdMin, c.holdMax
	}
	return cfg
}

func slug(s string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, s), "-")
}

func (o Options) withDefaults() (Options, error) {
	o.Seeds, o.TimeLimit, o.Parallel = cmp.Or(o.Seeds, 1), cmp.Or(o.TimeLimit, config.DefaultTimeLimit), cmp.Or(o.Parallel, 1)
	switch {
	case o.Seeds < 0:
		return o, fmt.Errorf("--seeds must be positive, got %d", o.Seeds)
	case o.Parallel < 0:
		return o, fmt.Errorf("--parallel must be positive, got %d", o.Parallel)
	case o.TimeLimit < 0:
		return o, fmt.Errorf("--time-limit must be positive, got %v", o.TimeLimit)
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return o, nil
}

// Check refuses options or entries that no run could carry out (a cell
// the harness refuses as badly configured), before anything runs.
func Check(entries []Entry, o Options) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	for _, e := range entries {
		for _, c := range e.Cells {
			if _, err := e.Config(c, 1, o).WithDefaults(); err != nil {
				return fmt.Errorf("%s %s: %s", e.Name, c.Column(), strings.TrimPrefix(err.Error(), config.ErrConfig.Error()+": "))
			}
		}
	}
	return nil
}

// Run builds what is missing and runs every cell of the entries for every
// seed, at most Parallel at once, printing the commands first. When ctx
// ends the board holds what finished, Interrupted.
func Run(ctx context.Context, entries []Entry, o Options) (*Board, *campaign.Report, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	start := time.Now()
	b := &Board{Started: start.UTC(), Seeds: o.Seeds, TimeLimit: o.TimeLimit.String()}
	prep := prepare(ctx, entries, o.Parallel)
	for i, e := range entries {
		eo := EntryOutcome{Name: e.Name, Dir: e.Dir, Language: e.Language, Library: e.Library, Version: e.Version,
			Upstream: e.Upstream, Claims: e.Claims, Build: e.Build, Client: e.Client, Nodes: e.Nodes, TTL: e.TTL,
			Renewal: e.Renewal, Fencing: e.Fencing}
		fmt.Fprintf(o.Out, "entry %s (%s)\n", e.Name, e.Dir)
		if e.Requires != "" {
			fmt.Fprintf(o.Out, "  requires: %s\n", e.Requires)
		}
		eo.Skipped = prep[i].skipped
		if eo.Skipped == "" && e.Build != "" {
			fmt.Fprintf(o.Out, "  build:    %s\n", e.Build)
			switch {
			case prep[i].err != nil:
				eo.BuildError = oneLine(prep[i].err.Error())
				fmt.Fprintf(o.Out, "  build failed: %s\n", eo.BuildError)
			case !prep[i].built:
				fmt.Fprintf(o.Out, "  (built already: the folder is unchanged since its last build)\n")
			}
		}
		if eo.Skipped == "" && eo.BuildError == "" {
			// A client program in the folder (bin/client) exists only after the build.
			if p, _ := config.SplitCommand(e.Client); len(p) > 0 && strings.ContainsRune(p[0], '/') && !exists(e.Dir, p[0]) {
				eo.Skipped = p[0] + " does not exist in " + e.Dir
			}
		}
		fmt.Fprintf(o.Out, "  client:   %s\n", e.Client)
		for j, c := range e.Cells {
			eo.Cells = append(eo.Cells, CellOutcome{Cell: c, Column: c.Column()})
			switch {
			case eo.Skipped != "":
				eo.Cells[j].Status, eo.Cells[j].Skipped = Skipped, eo.Skipped
			case eo.BuildError != "":
				eo.Cells[j].Status = Unknown
			}
		}
		if eo.Skipped != "" {
			fmt.Fprintf(o.Out, "  skipped: %s\n", eo.Skipped)
		}
		b.Entries = append(b.Entries, eo)
	}
	runs, rep, err := runCells(ctx, entries, b, o)
	if err != nil {
		return b, rep, err
	}
	b.Interrupted = rep.Interrupted
	for i := range b.Entries {
		for j := range b.Entries[i].Cells {
			co := &b.Entries[i].Cells[j]
			if co.Status != Skipped && b.Entries[i].BuildError == "" {
				rs := runs[cellName(entries[i], entries[i].Cells[j])]
				slices.SortFunc(rs, func(x, y RunOutcome) int { return int(x.Seed - y.Seed) })
				*co = judgeCell(co.Cell, rs)
				if len(rs) < o.Seeds && co.Status == Agree && co.Cell.Expect == ExpectValid {
					co.Status = Unknown // not every seed ran
				}
			}
			co.Class = classOf(co.Cell, co.Status)
		}
	}
	b.Summary = b.Summarize()
	b.Columns = columns(b.Entries)
	b.Seconds = seconds(time.Since(start))
	return b, rep, nil
}

// prepared is an entry's check of its runtime (skipped says why it
// cannot run) and its build.
type prepared struct {
	skipped string
	built   bool
	err     error
}

// prepare checks every entry's runtime and builds those that can run, at
// most parallel at once.
func prepare(ctx context.Context, entries []Entry, parallel int) []prepared {
	out := make([]prepared, len(entries))
	// Every entry is prepared: the pool's context does not end with ctx.
	workpool.Run(context.WithoutCancel(ctx), len(entries), parallel, func(_ context.Context, i int) {
		p, e := &out[i], entries[i]
		if p.skipped = SkipReason(ctx, e); p.skipped == "" && e.Build != "" {
			p.built, p.err = Build(ctx, e)
		}
	})
	return out
}

// cellName is a zoo cell's name in the campaign: NAME/COLUMN, as --only
// names it.
func cellName(e Entry, c Cell) string { return e.Name + "/" + c.Column() }

// runCells runs the entries' cells as campaign cells whose claim is their
// expectation (judgeCell), and returns each run's outcome by cell name.
func runCells(ctx context.Context, entries []Entry, b *Board, o Options) (map[string][]RunOutcome, *campaign.Report, error) {
	var (
		mu     sync.Mutex
		runs   = map[string][]RunOutcome{}
		cells  []campaign.Cell
		byName = map[string]Cell{}
	)
	for i, e := range entries {
		for _, c := range e.Cells {
			cell := campaign.Cell{Name: cellName(e, c), Config: e.Config(c, 0, o), Skip: b.Entries[i].Skipped}
			byName[cell.Name] = c
			if b.Entries[i].BuildError != "" {
				cell.Broken = "build failed: " + b.Entries[i].BuildError
			}
			cell.CellClaims = []campaign.CellClaim{{Name: "expected " + c.Expected(), Judge: func([]campaign.Outcome) (checker.Validity, string) {
				mu.Lock()
				defer mu.Unlock()
				co := judgeCell(c, runs[cell.Name])
				return map[Status]checker.Validity{Agree: checker.Valid, Finding: checker.Invalid, Missed: checker.Invalid}[co.Status], cellText(co)
			}}}
			cells = append(cells, cell)
		}
	}
	f := config.Campaign{Seeds: o.Seeds, Parallel: o.Parallel, Shard: o.Shard}
	f.Run.TimeLimit, f.Run.Store = o.TimeLimit, o.Store
	rep, err := campaign.Run(ctx, campaign.Spec{Kind: "zoo", Cells: cells, Flags: f}, campaign.Options{Runner: o.Runner, Progress: o.Out,
		OnResult: func(co *campaign.Outcome, res *analysis.Result) {
			r := runOutcome(byName[co.Cell], res)
			r.Seconds = seconds(co.Elapsed)
			mu.Lock()
			runs[co.Cell] = append(runs[co.Cell], r)
			mu.Unlock()
		}})
	if rep != nil {
		for _, co := range rep.Outcomes {
			if co.Error != "" && co.Dir == "" && co.Skipped == "" {
				runs[co.Cell] = append(runs[co.Cell], RunOutcome{Seed: co.Seed, Status: Unknown, Verdict: "unknown", Error: co.Error})
			}
		}
	}
	return runs, rep, err
}

// runOutcome is what one finished run of cell c shows.
func runOutcome(c Cell, res *analysis.Result) RunOutcome {
	r := RunOutcome{Seed: res.Config.Seed, Dir: res.Dir, Replay: reports.ReplayCommand(reports.ReplayConfig(res))}
	r.Verdict = res.Verdict.Valid.String()
	r.Status, r.Flagged, r.First = judgeRun(c, res.Verdict)
	r.Detected = detects(c, r.Flagged)
	if d, ok := power.DetectionTime(res.Verdict, res.History); ok {
		s := seconds(d)
		r.DetectedS = &s
	}
	return r
}

func exists(dir, path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	_, err := os.Stat(path)
	return err == nil
}

// columns are the cells' columns: the usual faults first, as
// zoo/README.md lists them, then the others as they appear.
func columns(entries []EntryOutcome) []string {
	var out []string
	for _, e := range entries {
		for _, c := range e.Cells {
			if !slices.Contains(out, c.Column) {
				out = append(out, c.Column)
			}
		}
	}
	order := []string{"partition", "latency", "client-pause", "client-pause+fencing", "client-crash", "crash", "clock-jump"}
	rank := func(s string) int {
		if i := slices.Index(order, s); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}
