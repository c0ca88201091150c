package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/catalog"
	"github.com/lockstorm/lockstorm/config"
)

func catalogCommand() *cobra.Command {
	var (
		o catalog.Options
		f config.Campaign
	)
	cmd := newCommand("catalog", "run the anomaly catalogue and compare expected with observed verdicts",
		func(cmd *cobra.Command) error {
			given := cmd.Flags().Changed
			if err := f.Check(given); err != nil {
				return setupError(err)
			}
			o.Only = nil
			for _, s := range f.Only {
				n, err := strconv.Atoi(s)
				if err != nil {
					return usage("--only must be a comma-separated list of row numbers like 2,9,11, got %q", s)
				}
				o.Only = append(o.Only, n)
			}
			rows, err := catalog.Select(o)
			if err != nil {
				return setupError(err)
			}
			timeLimit := f.TimeLimit()
			if !given("time-limit") {
				timeLimit = 0 // each row's own
			}
			fmt.Printf("running %d catalogue rows, seeds 1..%d\n", len(rows), f.Seeds)
			rep, err := catalog.Run(cmd.Context(), rows, f, timeLimit, nil, os.Stdout)
			if err != nil {
				return setupError(err)
			}
			return finishCampaign(rep, f, nil, nil)
		})
	cmd.Long = `catalog runs each row of the anomaly catalogue (the README's table) with its scripted faults as
a campaign: each row a cell claiming each of its expectations, seeds 1..--seeds; --quick runs the
quick rows, --only the rows named. Each row runs for its own length unless --time-limit is given.

Exit status: 0 when every row agrees with its expectation (also an expected invalid),
1 when a row disagrees, 2 on bad input, 3 if interrupted.`
	fl := cmd.Flags()
	fl.BoolVar(&o.Quick, "quick", false, "run the quick subset (under 3 minutes)")
	config.AddCampaignFlags(fl, &f, "row numbers, e.g. 2,9,11,")
	fl.Lookup("time-limit").Usage = "length of each row's run (default: the row's own, which its scripted faults need)"
	fl.Lookup("time-limit").DefValue = "0s"
	return cmd
}
