package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/zoo"
)

func zooCommand() *cobra.Command {
	var (
		f     config.Campaign
		dir   string
		known bool
	)
	cmd := &cobra.Command{
		Use:   "zoo",
		Short: "judge real lock libraries (zoo entries) against what their documentation promises",
		Long: `zoo runs the lock zoo: every entry of --dir (a folder with a zoo.yaml manifest and a small
adapter that speaks the client line protocol, docs/client-protocol.md) is built when its folder
changed since its last build, then every cell of it (a fault and the verdict its documentation
leads one to expect) runs for every seed. It writes zoo.json, zoo.md and a scoreboard page
(index.html) to STORE/zoo/<time>/. zoo/README.md is the manifest's contract.

A zoo folder is code: an entry's build and client are shell commands, run as make runs a
Makefile. zoo prints each entry's build and client commands before it runs them.

Exit status: 0 when every cell agrees with its expectation, 1 when any disagrees (a finding, or
an expected failure that did not show: missed),
2 on bad input, 3 when a cell is unknown (and none disagrees) or the run was interrupted.
An entry whose runtime is missing is skipped: shown as skipped, never as passed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Check(cmd.Flags().Changed); err != nil {
				return setupError(err)
			}
			o := zoo.Options{Only: f.Only, Seeds: f.Seeds, TimeLimit: f.TimeLimit(), Parallel: f.Parallel, Store: f.Store(), Shard: f.Shard}
			entries, err := zooEntries(dir, known, o)
			if err != nil {
				return err
			}
			o.Out = os.Stdout
			cells := 0
			for _, e := range entries {
				cells += len(e.Cells)
			}
			fmt.Printf("zoo: %d entries, %d cells, %d seed(s) each, %v per run, %d at once\n", len(entries), cells, o.Seeds, o.TimeLimit, o.Parallel)
			board, rep, err := zoo.Run(cmd.Context(), entries, o)
			if err != nil {
				return setupError(err)
			}
			out, err := zoo.Write(board, o.Store)
			if err != nil {
				return setupError(err)
			}
			if f.JUnit != "" {
				if err := reports.WriteJUnitFile(f.JUnit, rep.JUnit()); err != nil {
					return setupError(err)
				}
			}
			if rep.Manifest != "" {
				fmt.Printf("shard manifest: %s (lockstorm merge combines the shards)\n", rep.Manifest)
			}
			fmt.Println()
			fmt.Print(zoo.Markdown(board))
			fmt.Printf("\n%s\nscoreboard: %s\n", zoo.SummaryLine(board.Summary), filepath.Join(out, zoo.PageFile))
			return zooExit(board)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "dir", "zoo", "folder of zoo entries (each a folder with a zoo.yaml), or one entry's folder")
	fl.BoolVar(&known, "known", false, "run only the cells that carry known: (an upstream bug the entry must show) or fixed: (its fixed twin)")
	config.AddCampaignFlags(fl, &f, "entry names, or single cells as NAME/COLUMN (e.g. redis-py-lock/client-crash),")
	return cmd
}

// zooEntries loads the entries of dir, keeps those o.Only selects (and
// with known only their cells that carry known: or fixed:) and checks
// them against o; an error is a usage error.
func zooEntries(dir string, known bool, o zoo.Options) ([]zoo.Entry, error) {
	entries, err := zoo.Load(dir)
	if err != nil {
		return nil, usage("%v", err)
	}
	if entries, err = zoo.Select(entries, o.Only); err != nil {
		return nil, usage("%v", err)
	}
	if known {
		if entries = zoo.KnownCells(entries); len(entries) == 0 {
			return nil, usage("--known: no cell of the selected entries carries known: or fixed:")
		}
	}
	if err := zoo.Check(entries, o); err != nil {
		return nil, usage("%v", err)
	}
	return entries, nil
}

// zooExit is the zoo command's outcome on its board: exit 1 when a cell
// disagrees, 3 when the run was interrupted or a cell is unknown, else
// nil after a line saying every cell that ran agrees.
func zooExit(board *zoo.Board) error {
	n := board.Count()
	if n[string(zoo.Skipped)] > 0 {
		fmt.Println("skipped entries lack their runtime: scripts/install-deps.sh --with-zoo (make zoo runs it) installs python3-redis, php-cli, php-redis and php-malkusch-lock")
	}
	switch {
	case n[string(zoo.Finding)]+n[string(zoo.Missed)] > 0:
		return &exitError{code: exitInvalid, err: fmt.Errorf("%d zoo cells disagree with their expectation (%d findings, %d missed)", n[string(zoo.Finding)]+n[string(zoo.Missed)], n[string(zoo.Finding)], n[string(zoo.Missed)])}
	case board.Interrupted:
		return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted before every cell ran")}
	case n[string(zoo.Unknown)] > 0:
		return &exitError{code: exitUnknown, err: fmt.Errorf("%d zoo cells are unknown", n[string(zoo.Unknown)])}
	}
	fmt.Printf("every cell that ran agrees (%d agree, %d skipped)\n", n[string(zoo.Agree)], n[string(zoo.Skipped)])
	return nil
}
