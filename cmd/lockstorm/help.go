package main

import (
	"strings"

	"github.com/spf13/cobra"
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
