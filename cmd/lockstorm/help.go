package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/coverage"
)

// helpCommand is `lockstorm help [command]`: cobra's, except that an
// unknown topic is bad input (exit status 2, one line), as an unknown
// subcommand is.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(_ *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || (cmd == root && len(args) > 0) {
				return usage("unknown help topic %q: lockstorm help lists the commands", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

// coverageHelp ends the help of the commands that print a run's summary:
// what each coverage column counts (coverage.Columns, the report page's
// legend too).
var coverageHelp = "\n\nThe coverage lines of the summary (and the coverage table of index.html) count, per fault kind:\n" + strings.TrimRight(coverage.Legend("  "), "\n")
