package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/merge"
)

// mergeCommand is `lockstorm merge DIR...`: the shards of a catalogue,
// sweep or run campaign, run on many machines with --shard K/N, as one
// store, report and JUnit.
func mergeCommand() *cobra.Command {
	var o merge.Options
	var junit string
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "combine the stores of a campaign's shards (--shard K/N on many machines) into one report and one JUnit",
		Long: `merge reads the shard manifests (shards/*.json) in the stores given (each DIR is a shard's
--store, or a folder whose subfolders are: the layout of downloaded CI artifacts), checks that
they are every shard 0/N ... N-1/N of one campaign (catalog, compare, power, zoo, sweep or
run --runs), each once and with the same settings, copies their run folders into --out and writes
the report the unsharded command writes there: the campaign's folder and summary table, and for a
sweep its folder with table, heat maps, index.html and recommendation; each run's replay line
reads the fault plan copied into --out. --junit PATH writes the JUnit XML the unsharded command's
--junit would.

Exit status: as the unsharded command's (1 when a claim does not hold), 2 when the inputs cannot
be merged (a shard missing or given twice, different settings: the merged verdict cannot be valid
without every shard), 3 when some shard was interrupted or a claim could not be judged.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage("merge needs the shards' store folders: lockstorm merge DIR...")
			}
			o.Inputs, o.Stdout = args, os.Stdout
			res, err := merge.Merge(o)
			if err != nil {
				return oneLineUsage(err, merge.ErrMerge)
			}
			if junit != "" {
				if err := writeFileIn(junit, res.JUnit); err != nil {
					return usage("--junit %s: %v", junit, err)
				}
			}
			fmt.Printf("%s\nreport: %s\n", res.Summary, res.Report)
			switch res.Status {
			case checker.Valid:
				return nil
			case checker.Invalid:
				return &exitError{code: exitInvalid, err: errors.New(res.Summary)}
			}
			return &exitError{code: exitUnknown, err: errors.New(res.Summary)}
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", "merged", "folder of the merged store (the run folders are copied into it)")
	f.StringVar(&junit, "junit", "", "write the merged JUnit XML to this file (as the unsharded command's --junit)")
	return cmd
}

// writeFileIn writes b to path, creating its folder.
func writeFileIn(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
