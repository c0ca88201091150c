package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/store"
)

func analyzeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "analyze RUN_DIR",
		Short: "re-check a stored run (also a partial one) and rewrite its results and report",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, warns, err := harness.Analyze(cmd.Context(), args[0])
			for _, w := range warns {
				fmt.Fprintf(os.Stderr, "lockstorm: warning: %s: %s\n", store.HistoryFile, w)
			}
			if err != nil {
				return setupError(err)
			}
			return finish(res)
		},
	}
}
