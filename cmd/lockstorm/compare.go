package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/compare"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/reports"
)

func compareCommand() *cobra.Command {
	var (
		spec  compare.Spec
		junit string
	)
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "run the same seed and client pauses without and with a fencing resource; write a side-by-side page",
		Long: `compare runs one counter test twice with the same lock, seed and schedule of pauses of the
lock holder (default: lock fenced, TTL 500ms, pauses of 2 x TTL): first the resource ignores
fencing tokens, then it rejects stale ones. It writes store/compare/TIMESTAMP/index.html with
both holders plots, lost updates, stale writes accepted and rejected, and both verdicts.
Exit status: 0 when the comparison shows it (without fencing: lost updates or invalid; with
fencing: valid, stale writes rejected), 1 otherwise, 2 on bad input, 3 if interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := spec.WithDefaults()
			if err != nil {
				return specError(err)
			}
			progress := reports.NewProgress(os.Stderr)
			fmt.Printf("compare: lock %s, ttl %v, pauses of %v at %v, seed %d\n", s.Lock, s.TTL, s.Pause, s.PauseTimes(), s.Seed)
			cmp, err := compare.Run(cmd.Context(), s, compare.Options{
				Progress: func(_ bool, p config.Progress) { progress.Update(p) }})
			if junit != "" && cmp != nil {
				if jerr := reports.WriteJUnitFile(junit, cmp.JUnit(err)); jerr != nil {
					return usage("%v", jerr)
				}
			}
			if err != nil {
				return specError(err)
			}
			if cmp.Interrupted {
				return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted")}
			}
			for _, l := range cmp.Findings() {
				fmt.Println(l)
			}
			fmt.Printf("page: %s\n", filepath.Join(cmp.Dir, store.IndexFile))
			if !cmp.Shows() {
				return &exitError{code: exitInvalid, err: fmt.Errorf("the comparison does not show what fencing should change")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&spec.Lock, "lock", "fenced", "lock under test (it must issue fencing tokens)")
	f.DurationVar(&spec.TTL, "ttl", 0, "lease time-to-live (default 500ms)")
	f.DurationVar(&spec.Pause, "pause", 0, "length of each pause of the holder (default 2 x ttl)")
	f.DurationVar(&spec.TimeLimit, "time-limit", config.DefaultScheduleTimeLimit, "length of each run")
	f.Int64Var(&spec.Seed, "seed", 1, "seed of both runs")
	f.IntVar(&spec.Clients, "clients", config.DefaultClients, "concurrent clients, 2..64")
	f.StringVar(&spec.Store, "store", "store", "folder of the run store")
	f.StringVar(&junit, "junit", "", "write a JUnit XML file: both runs as suites, and a case for the comparison's claim")
	return cmd
}
