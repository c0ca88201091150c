package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/sweep"
)

func sweepCommand() *cobra.Command {
	var (
		raw   = sweep.DefaultRaw()
		plan  string
		fresh bool
	)
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "run a grid of TTL x renewal x client-pause settings; write a table, heat maps and an index page",
		Long: `sweep runs one counter test per cell of a grid (TTL x renewal interval x length of
client pauses of the lock holder), one cell after another, and writes store/sweeps/NAME/:
table.md, table.csv, violations.png, availability.png and index.html linking every cell's
report. A rerun with the same --name skips the cells already finished (--fresh reruns all).
Exit status: 0 when every cell ran, 2 on bad input or a run that could not start, 3 if
interrupted (finished cells are kept).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			cells := len(spec.Grid.Cells(spec.Runs))
			fmt.Printf("sweep %s: %d cells of %v each (about %.0f minutes), folder %s\n", spec.Name, cells, spec.TimeLimit,
				float64(cells)*(spec.TimeLimit.Seconds()+3)/60, sweep.Dir(spec.Store, spec.Name))
			bar := sweep.NewBar(os.Stderr, reports.IsTerminal(os.Stderr) && os.Getenv("CI") == "")
			res, err := sweep.Run(cmd.Context(), spec, sweep.Options{Progress: bar.Update})
			if res != nil && len(res.Cells) > 0 {
				fmt.Println()
				fmt.Print(sweep.Markdown(res.Cells))
				fmt.Printf("\nindex: %s\n", filepath.Join(res.Dir, sweep.IndexFile))
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
	f.StringVar(&raw.Store, "store", raw.Store, "folder of the run store")
	f.IntVar(&raw.Clients, "clients", raw.Clients, "concurrent clients")
	f.Var((*durationText)(&raw.HoldMin), "hold-min", "shortest time a holder keeps the lock between read and write")
	f.Var((*durationText)(&raw.HoldMax), "hold-max", "longest time a holder keeps the lock between read and write")
	f.StringVar(&raw.Topology, "topology", raw.Topology, "standalone (one Redis node, process clients paused with SIGSTOP) or cluster (a 3-master Redis Cluster, in-process clients, links frozen)")
	f.StringVar(&plan, "config", "", "YAML sweep plan with keys named like these flags; flags given explicitly override it")
	f.BoolVar(&fresh, "fresh", false, "rerun every cell, even those finished before")
	return cmd
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
