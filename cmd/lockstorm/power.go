package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/power"
)

func powerCommand() *cobra.Command {
	var (
		spec      = power.Spec{Seeds: power.DefaultSeeds, TimeLimit: power.DefaultTimeLimit, Store: power.DefaultStore, Parallel: 1}
		only      string
		fromStore string
	)
	cmd := &cobra.Command{
		Use:   "power",
		Short: "measure detection power: broken locks caught, how fast, and false alarms on correct locks",
		Long: `power runs every scenario of issue 12's table under random faults, seeds 1..N, and prints
for each broken lock the fraction of runs found invalid and the median and p90 time to detect
(when the first fatal anomaly's evidence was complete), and for each correct lock its valid
runs, false alarms (invalid) and unknown runs, each row marked PASS or MISS against the
targets (detected >= 95%, median <= 5s, 0 false alarms). Runs go to --store, one test per
scenario; power.json and power.md are written there. --from-store DIR builds the same table
from runs already stored in DIR (by test name) without running anything, and writes its
files into DIR unless --store is given.
Scenarios: ` + strings.Join(power.Names(), ", ") + `.
Exit status: 0 when the table is complete (whatever its marks), 2 on bad input, 3 if interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var names []string
			for _, s := range strings.Split(only, ",") {
				if s = strings.TrimSpace(s); s != "" {
					names = append(names, s)
				}
			}
			scen, err := power.Select(names)
			if err != nil {
				return setupError(err)
			}
			spec.Scenarios = scen
			changed := cmd.Flags().Changed
			switch {
			case spec.Seeds <= 0:
				return usage("--seeds must be positive, got %d", spec.Seeds)
			case spec.TimeLimit <= 0:
				return usage("--time-limit must be positive, got %v", spec.TimeLimit)
			case spec.Parallel <= 0:
				return usage("--parallel must be positive, got %d", spec.Parallel)
			}
			var rep *power.Report
			out := spec.Store
			if fromStore != "" {
				seeds := 0
				if changed("seeds") {
					seeds = spec.Seeds
				}
				if rep, err = power.FromStore(fromStore, scen, seeds, power.DefaultTargets); err != nil {
					return setupError(err)
				}
				if !changed("store") {
					out = fromStore
				}
			} else {
				fmt.Fprintf(os.Stderr, "power: %d scenarios x %d seeds x %v, %d at once (about %.0f minutes), store %s\n",
					len(scen), spec.Seeds, spec.TimeLimit, spec.Parallel,
					float64(len(scen)*spec.Seeds)*(spec.TimeLimit+4*time.Second).Minutes()/float64(spec.Parallel), spec.Store)
				rep, err = power.Run(cmd.Context(), spec, power.Options{Progress: progressLine})
				if err != nil {
					return setupError(err)
				}
			}
			if err := rep.WriteText(os.Stdout); err != nil {
				return err
			}
			if err := rep.WriteFiles(out); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Printf("written: %s/%s, %s/%s\n", out, power.JSONFile, out, power.MarkdownFile)
			if rep.Interrupted {
				return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted: the table holds the finished runs only")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&spec.Seeds, "seeds", spec.Seeds, "seeds per scenario (1..N); with --from-store, keep seeds 1..N only")
	f.DurationVar(&spec.TimeLimit, "time-limit", spec.TimeLimit, "length of each run")
	f.StringVar(&only, "only", "", "comma-separated scenario names to run (default all)")
	f.IntVar(&spec.Parallel, "parallel", spec.Parallel, "runs at once (each run uses its own nodes and clients; mind the cores)")
	f.StringVar(&spec.Store, "store", spec.Store, "folder of the runs, power.json and power.md")
	f.StringVar(&fromStore, "from-store", "", "build the table from the runs stored in this folder, running nothing")
	return cmd
}

// progressLine prints one finished run on stderr.
func progressLine(e power.Event) {
	o := e.Outcome
	what := o.Verdict.String()
	switch {
	case o.Error != "":
		what = "error: " + o.Error
	case o.DetectKnown:
		what += fmt.Sprintf(", detectable at %.1fs", o.Detect.Seconds())
	}
	if e.ReportError != "" {
		what += " (report: " + e.ReportError + ")"
	}
	fmt.Fprintf(os.Stderr, "[%d/%d] %s seed %d: %s  %s\n", e.Done, e.Total, e.Scenario, o.Seed, what, o.Dir)
}
