package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/reports"
)

func analyzeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "analyze RUN_DIR",
		Short: "re-check a stored run (also a partial one) and rewrite its results and report",
		Long: `analyze re-checks the history stored in RUN_DIR (a run folder of the store, also one cut
short: a truncated last line is a warning) with every checker, and rewrites results.json,
the plots and index.html. A history of a million records or more (an hour-long soak) is not
loaded: it is checked and reported in streamed passes over history.jsonl, in bounded memory,
and index.html says which parts of the report cover the whole run and which only the
records read around its first anomalies.

Exit status: 0 valid, 1 invalid, 2 bad input (no such run, unreadable history), 3 unknown.` + coverageHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var pass *reports.Pass // the report's pass rides on the check's read
			res, warns, err := analysis.AnalyzeWith(cmd.Context(), args[0], func(res *analysis.Result) analysis.Rider {
				pass = reports.NewPass(res)
				return pass
			})
			for _, w := range warns {
				fmt.Fprintf(os.Stderr, "lockstorm: warning: %s: %s\n", store.HistoryFile, plain(fmt.Sprint(w)))
			}
			if err != nil {
				return setupError(err)
			}
			return summarize(res, reports.WriteFrom(res, pass))
		},
	}
}
