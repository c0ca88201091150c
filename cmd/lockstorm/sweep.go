package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/sweep"
)

func sweepCommand() *cobra.Command {
	var (
		raw   = sweep.DefaultRaw()
		plan  string
		fresh bool
		camp  config.Campaign
	)
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "run a grid of TTL x renewal x fencing x client-pause settings; recommend a TTL and renewal from the measured cells",
		Long: `sweep runs counter tests over a grid (TTL x renewal interval, plus the fenced lock
with --fencing on, x length of client pauses of the lock holder), --runs seeded runs per
cell, one after another, and writes store/sweeps/NAME/: table.md, table.csv,
violations.png (k/N runs invalid per cell), availability.png and index.html linking every
run's report. The page and the terminal end with one recommendation line computed from the
cells: the smallest TTL and renewal with 0 of N invalid up to the longest pause any
unfenced setting bore, and how far fencing went beyond it. Unknown runs count as neither
valid nor invalid. A rerun with the same --name skips the runs already finished (--fresh
reruns all). The default grid takes about 6 minutes.
--junit PATH writes one test case per cell: it fails when some of its runs were invalid.
That is the point of a sweep: CI shows which settings break.
Exit status: 0 when every cell ran (whatever the verdicts), 2 on bad input or a run that
could not start, 3 if interrupted (finished runs are kept).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := camp.Check(cmd.Flags().Changed); err != nil {
				return setupError(err)
			}
			raw.Store = camp.Store()
			junit, sh := camp.JUnit, camp.Shard
			r := raw
			if plan != "" {
				fromFile, err := sweep.LoadRaw(plan)
				if err != nil {
					return specError(err)
				}
				r = fromFile.Merge(raw, cmd.Flags().Changed).FillDefaults()
			}
			spec, err := r.Spec()
			if err != nil {
				return specError(err)
			}
			spec.Fresh = fresh
			if junit != "" {
				if st, err := os.Stat(filepath.Dir(junit)); err != nil || !st.IsDir() {
					return usage("--junit %s: no folder %s to write it in", junit, filepath.Dir(junit))
				}
			}
			runs := len(spec.Grid.Cells(spec.Runs))
			mine := sh.Count(runs)
			part := ""
			if sh.Set() {
				part = fmt.Sprintf(", shard %s: %d of the %d runs", sh, mine, runs)
			}
			// About 1.5 s of set-up and checks per run on two cores.
			fmt.Printf("sweep %s: %d cells x %d runs of %v each%s (about %.0f minutes), folder %s\n", spec.Name, runs/spec.Runs, spec.Runs,
				spec.TimeLimit, part, float64(mine)*(spec.TimeLimit.Seconds()+1.5)/60, sweep.Dir(spec.Store, spec.Name))
			bar := sweep.NewBar(os.Stderr, reports.IsTerminal(os.Stderr) && os.Getenv("CI") == "")
			res, err := sweep.Run(cmd.Context(), spec, sweep.Options{Progress: bar.Update, Shard: sh})
			if res != nil && res.Manifest != "" {
				fmt.Printf("shard manifest: %s (lockstorm merge combines the shards)\n", res.Manifest)
			}
			if res != nil && len(res.Cells) > 0 {
				fmt.Println()
				fmt.Print(sweep.PointsMarkdown(spec.Grid, spec.Runs, sweep.Aggregate(spec.Grid, res.Cells)))
				fmt.Printf("\ntable: %s\nindex: %s\n", filepath.Join(res.Dir, sweep.TableMDFile), filepath.Join(res.Dir, sweep.IndexFile))
			}
			if res != nil && junit != "" {
				if jerr := writeSweepJUnit(junit, res); jerr != nil {
					err = errors.Join(err, jerr)
				}
			}
			if res != nil && len(res.Cells) > 0 {
				fmt.Printf("\nrecommendation: %s\n", res.Recommendation.Text)
				if sh.Set() {
					fmt.Printf("(shard %s holds %d of the %d runs: its table and recommendation cover its share only; lockstorm merge of every shard gives the sweep's)\n", sh, mine, runs)
				}
			}
			switch {
			case err != nil:
				return specError(err)
			case res.Interrupted || !res.Complete():
				return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted after %d of %d cells; rerun the same command to resume", len(res.Cells), res.Total)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&raw.Name, "name", raw.Name, "sweep name: folder store/sweeps/NAME (a rerun resumes it)")
	f.StringVar((*string)(&raw.TTL), "ttl", string(raw.TTL), "comma-separated lease TTLs")
	f.StringVar((*string)(&raw.Renew), "renew", string(raw.Renew), "comma-separated renewal intervals: none, ttl/N or durations")
	f.StringVar((*string)(&raw.Pause), "pause", string(raw.Pause), "comma-separated client-pause lengths (0: no faults)")
	f.StringVar((*string)(&raw.Fencing), "fencing", string(raw.Fencing), "comma-separated fencing values: off (the lock of each --renew value) and on (the fenced lock, no watchdog, stale writes rejected)")
	f.IntVar(&raw.Runs, "runs", raw.Runs, "seeded runs per cell (run k uses seed+k-1); the page shows k/N invalid per cell")
	f.Var((*durationText)(&raw.TimeLimit), "time-limit", "length of each run")
	f.Int64Var(&raw.Seed, "seed", raw.Seed, "seed of run 1 of every cell (run k: seed+k-1)")
	f.IntVar(&raw.Clients, "clients", raw.Clients, "concurrent clients")
	f.Var((*durationText)(&raw.HoldMin), "hold-min", "shortest time a holder keeps the lock between read and write")
	f.Var((*durationText)(&raw.HoldMax), "hold-max", "longest time a holder keeps the lock between read and write")
	f.StringVar(&raw.Topology, "topology", raw.Topology, "standalone (one Redis node, process clients paused with SIGSTOP) or cluster (a 3-master Redis Cluster, in-process clients, links frozen)")
	f.StringVar(&plan, "config", "", "YAML sweep plan with keys named like these flags; flags given explicitly override it")
	f.BoolVar(&fresh, "fresh", false, "rerun every cell, even those finished before")
	config.AddSomeCampaignFlags(f, &camp, "shard", "store", "junit")
	f.Lookup("shard").Usage += "; a sweep's runs are its (cell, run) pairs in grid order"
	f.Lookup("junit").Usage = "write JUnit XML to this file: one test case per cell, failing when some of its runs were invalid (default none)"
	return cmd
}

// writeSweepJUnit writes the sweep's JUnit XML to path.
func writeSweepJUnit(path string, res *sweep.Result) error {
	b, err := sweep.JUnit(res)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("--junit %s: %w", path, err)
	}
	return nil
}

// specError maps a sweep error to exit status 2 with one line.
func specError(err error) error { return oneLineUsage(err, sweep.ErrSpec) }

// durationText is a duration flag kept as the text it was given (a sweep
// plan's value is text too): Set refuses what is not a Go duration, so
// --time-limit soon fails as any duration flag does, and the help says
// "duration".
type durationText string

func (d *durationText) String() string { return string(*d) }
func (d *durationText) Type() string   { return "duration" }

func (d *durationText) Set(s string) error {
	if _, err := time.ParseDuration(s); err != nil {
		return fmt.Errorf("%q is not a duration like 8s or 300ms", s)
	}
	*d = durationText(s)
	return nil
}
