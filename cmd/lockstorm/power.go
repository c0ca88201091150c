package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/power"
)

func powerCommand() *cobra.Command {
	var (
		f         config.Campaign
		fromStore string
	)
	cmd := newCommand("power", "measure detection power: broken locks caught, how fast, and false alarms on correct locks",
		func(cmd *cobra.Command) error {
			if err := f.Check(cmd.Flags().Changed); err != nil {
				return setupError(err)
			}
			scen, err := power.Select(f.Only)
			if err != nil {
				return setupError(err)
			}
			var rep *power.Report
			out := f.Store()
			if fromStore != "" {
				seeds := 0
				if cmd.Flags().Changed("seeds") {
					seeds = f.Seeds
				}
				if rep, err = power.FromStore(fromStore, scen, seeds, power.DefaultTargets); err != nil {
					return setupError(err)
				}
				if !cmd.Flags().Changed("store") {
					out = fromStore
				}
				return writePower(rep, out, nil)
			}
			fmt.Fprintf(os.Stderr, "power: %d scenarios x %d seeds x %v, %d at once (about %.0f minutes), store %s\n",
				len(scen), f.Seeds, f.TimeLimit(), f.Parallel,
				float64(len(scen)*f.Seeds)*(f.TimeLimit()+4*time.Second).Minutes()/float64(f.Parallel), out)
			rep, camp, err := power.Run(cmd.Context(), power.Spec{Scenarios: scen}, f, power.Options{Progress: os.Stderr})
			if err != nil {
				return setupError(err)
			}
			return writePower(rep, out, func() error {
				return finishCampaign(camp, f, nil, func(checker.Validity) error { return nil })
			})
		})
	cmd.Long = `power runs every scenario of the detection-power table (each broken lock under the faults its
catalogue row names, each correct lock under the faults it claims to survive) under random faults as a campaign (each
scenario a cell, seeds 1..--seeds), and prints for each broken lock the fraction of runs found
invalid and the median and p90 time to detect (when the first fatal anomaly's evidence was
complete), and for each correct lock its valid runs, false alarms (invalid) and unknown runs,
each row marked PASS or MISS against the targets (detected >= 95%, median <= 5s, 0 false
alarms; make power runs 20 seeds). Runs go to --store, one test per scenario; power.json and
power.md are written there. --from-store DIR builds the same table from runs already stored in
DIR (by test name) without running anything, and writes its files into DIR unless --store is
given.
Scenarios: ` + strings.Join(power.Names(), ", ") + `.
Exit status: 0 when the table is complete (whatever its marks), 2 on bad input, 3 if interrupted.`
	fl := cmd.Flags()
	config.AddCampaignFlags(fl, &f, "scenario names")
	fl.StringVar(&fromStore, "from-store", "", "build the table from the runs stored in this folder, running nothing (with --seeds: keep seeds 1..N only)")
	return cmd
}

// writePower prints the power table, writes power.json and power.md into
// out, then ends as campaign does (nil: the table is the whole outcome).
func writePower(rep *power.Report, out string, campaign func() error) error {
	if err := rep.WriteText(os.Stdout); err != nil {
		return err
	}
	if err := rep.WriteFiles(out); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fmt.Printf("written: %s/%s, %s/%s\n", out, power.JSONFile, out, power.MarkdownFile)
	if campaign != nil {
		return campaign()
	}
	if rep.Interrupted {
		return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted: the table holds the finished runs only")}
	}
	return nil
}
