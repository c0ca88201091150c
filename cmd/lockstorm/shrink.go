package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/repro"
	"github.com/lockstorm/lockstorm/zoo"
)

func shrinkCommand() *cobra.Command {
	var o repro.Options
	cmd := &cobra.Command{
		Use:   "shrink RUN_FOLDER",
		Short: "shrink an invalid run to a short, reliable reproduction of its anomaly",
		Long: `shrink looks for a smaller configuration than the invalid run in RUN_FOLDER (from run, a
campaign cell or a zoo cell) that still shows its first fatal anomaly's kind from the same
checker: fewer faults (delta debugging over the run's fault plan, replayed as a scripted
--fault-plan), the faults moved together and the run cut short, fewer clients, shorter faults.
Runs are not deterministic, so each candidate runs --tries times (seeds from the run's seed
on) and is kept only when at least --keep of them show the anomaly. The search is bounded by
--budget, prints a line per candidate, and on Ctrl-C keeps the best candidate found.

It writes RUN_FOLDER/repro/: fault-plan.json, replay.txt (the replay line), repro.json (the
measured rates, before and after), history-excerpt.jsonl (the records around the anomaly)
and REPORT.md, in the form of an upstream bug report (library and version from the zoo
manifest when the run was a zoo cell). The candidates' runs are in RUN_FOLDER/repro/runs/.

Exit status: 0 a smaller reproduction was found, 1 none was (or the run's anomaly no longer
reproduces in --keep of --tries runs), 2 bad input (a valid run, a folder that is not a run),
3 interrupted before any candidate was measured.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return usage("%s is not a run folder", dir)
			}
			o.Runner, o.Out = lockstorm.Run, os.Stdout
			res, err := repro.Shrink(cmd.Context(), dir, o)
			if err != nil {
				if errors.Is(err, config.ErrConfig) {
					return usage("%s", plain(err.Error()))
				}
				return setupError(err)
			}
			if res.Measured == 0 || (res.Interrupted && res.Before.Tries == 0) {
				return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted before any candidate was measured")}
			}
			about, _ := zoo.About(res.Base)
			out, err := repro.Write(res, about)
			if err != nil {
				return setupError(err)
			}
			fmt.Printf("\nbefore: %s, %s runs show %s\nafter:  %s, %s runs (%d candidates, %s)\nreproduction: %s\n",
				res.Before, res.Before.Rate(), res.Target, res.Best, res.Best.Rate(), res.Measured, (time.Duration(res.Seconds) * time.Second).String(), filepath.Join(out, repro.ReportFile))
			switch {
			case !res.Reproduces:
				return &exitError{code: exitInvalid, err: fmt.Errorf("the run's anomaly (%s) no longer reproduces: %s runs of its configuration showed it, --keep is %d", res.Target, res.Before.Rate(), o.Keep)}
			case !res.Smaller:
				return &exitError{code: exitInvalid, err: fmt.Errorf("no smaller configuration reproduces %s in %d of %d runs", res.Target, o.Keep, o.Tries)}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.Tries, "tries", 5, "runs per candidate (seeds from the run's seed on)")
	fl.IntVar(&o.Keep, "keep", 3, "runs of --tries that must show the anomaly for a candidate to be kept")
	fl.DurationVar(&o.Budget, "budget", 10*time.Minute, "longest the whole search may take; then the best candidate so far is the result")
	return cmd
}
