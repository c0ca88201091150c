package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/catalog"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/reports"
)

func catalogCommand() *cobra.Command {
	var (
		o     catalog.Options
		only  string
		junit string
		share string
	)
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "run the anomaly catalogue and compare expected with observed verdicts",
		Long: `catalog runs each row of the anomaly catalogue (the README's table) with its scripted faults and
prints expected against observed; --quick runs the quick rows, --only the rows named.

Exit status: 0 when every row agrees with its expectation (also an expected invalid),
1 when a row disagrees, 2 on bad input, 3 if interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, s := range strings.Split(only, ",") {
				if s = strings.TrimSpace(s); s == "" {
					continue
				}
				n, err := strconv.Atoi(s)
				if err != nil {
					return usage("--only must be a comma-separated list of row numbers like 2,9,11, got %q", only)
				}
				o.Only = append(o.Only, n)
			}
			rows, err := catalog.Select(o)
			if err != nil {
				return setupError(err)
			}
			s, err := shard.Parse(share)
			if err != nil {
				return usage("%v", err)
			}
			o.Progress = os.Stdout
			started := time.Now()
			var out []catalog.Outcome
			if s.Set() {
				all := len(rows)
				fmt.Printf("running shard %s of the catalogue: %d of %d rows (seed %d)\n", s, s.Count(all), all, o.Seed)
				var manifest string
				rows, out, manifest, err = catalog.RunShard(cmd.Context(), rows, s, o)
				if err != nil {
					return usage("%v", err)
				}
				fmt.Printf("shard manifest: %s (lockstorm merge combines the shards)\n", manifest)
			} else {
				fmt.Printf("running %d catalogue rows (seed %d)\n", len(rows), o.Seed)
				out = catalog.Run(cmd.Context(), rows, o)
			}
			if junit != "" {
				if err := reports.WriteJUnitFile(junit, catalog.JUnit(rows, out, o.Seed, started)); err != nil {
					return usage("%v", err)
				}
			}
			bad := 0
			for _, oc := range out {
				if !oc.Agree {
					bad++
				}
			}
			if len(out) < len(rows) {
				return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted after %d of %d rows", len(out), len(rows))}
			}
			if bad > 0 {
				return &exitError{code: exitInvalid, err: fmt.Errorf("%d of %d catalogue rows disagree with their expectation", bad, len(out))}
			}
			fmt.Printf("all %d rows agree\n", len(out))
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Quick, "quick", false, "run the quick subset (under 3 minutes)")
	f.StringVar(&only, "only", "", "comma-separated row numbers to run, e.g. 2,9,11")
	f.Int64Var(&o.Seed, "seed", 1, "seed of every row's run")
	f.StringVar(&o.Store, "store", "store", "folder of the run store")
	f.StringVar(&share, "shard", "", "run shard K of N (K counts from 0: 0/N ... N-1/N, like Kubernetes' JOB_COMPLETION_INDEX): row i of the selection runs on shard i mod N; the store gets a manifest in shards/ for lockstorm merge")
	f.StringVar(&junit, "junit", "", "write a JUnit XML file with one test case per row: it passes when the row agrees with its expectation (also an expected invalid)")
	return cmd
}
