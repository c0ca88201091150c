package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/reports"
)

// runCommand is `lockstorm run`: the settings' flags (config.Settings),
// a YAML plan under them, and how many runs.
func runCommand() *cobra.Command {
	return runCommandWith(func(cmd *cobra.Command, cfg config.Config, o runOptions) error {
		cfg.OnProgress = reports.NewProgress(os.Stderr).Update
		cfg.StopAtViolation = o.untilInvalid
		if err := o.campaign.Check(cmd.Flags().Changed); err != nil {
			return setupError(err)
		}
		if o.runs == 1 && !o.campaign.Shard.Set() {
			return runOnce(cmd.Context(), cfg, o.campaign.JUnit)
		}
		return repeat(cmd.Context(), cfg, o.runs, o.untilInvalid, o.campaign)
	})
}

// runOptions are run's flags that are not settings: --runs,
// --until-invalid, and the campaign flags --shard and --junit (from the
// campaign flags' table, as every campaign's).
type runOptions struct {
	runs         int
	untilInvalid bool
	campaign     config.Campaign
}

// runCommandWith is `lockstorm run` that hands the configuration its
// command line asks for (config.CommandLine) to do; tests replace do.
func runCommandWith(do func(cmd *cobra.Command, cfg config.Config, o runOptions) error) *cobra.Command {
	var (
		flags config.Config
		plan  string
		o     runOptions
	)
	cmd := newCommand("run", "run one test: a lock, a workload and faults; check it and write the report",
		func(cmd *cobra.Command) error {
			cfg, err := config.CommandLine(flags, cmd.Flags().Changed, plan)
			if err != nil {
				return setupError(err)
			}
			return do(cmd, cfg, o)
		})
	f := cmd.Flags()
	config.AddFlags(f, &flags)
	f.StringVar(&plan, "config", "", "YAML test plan; flags given explicitly override it")
	f.IntVar(&o.runs, "runs", 1, "run N seeded runs as a campaign of one cell (progress line, summary table, --junit and --shard as every campaign's), each in its own folder: run 1 uses --seed, run i ≥ 2 the seed 1 + splitmix64(seed + i - 1) mod 2^53; without --seed a base seed is drawn and printed; exit status follows the aggregate (invalid if any run is, else unknown if any is)")
	f.BoolVar(&o.untilInvalid, "until-invalid", false, "stop each run at its first violation (the live counter's), and with --runs stop at the first invalid run")
	config.AddSomeCampaignFlags(f, &o.campaign, "shard", "junit")
	f.Lookup("shard").Usage += " (with --runs: needs --seed)"
	f.Lookup("junit").Usage = "also write the JUnit XML to this file, besides junit.xml in the run folder: one run's checkers, or with --runs the campaign's, one test case per run passing when its verdict is valid (default none)"
	cmd.Long = `run starts Redis nodes (--provider), runs the workload's clients on the lock under the
faults of --nemesis (or of a --config plan) for --time-limit, heals every fault, checks the
history with every checker, and writes the run folder and its report to the store.

Exit status: 0 valid, 1 invalid, 2 bad input or setup error (nothing left running),
3 unknown (interrupted, cut short, or the faults proved nothing).` + coverageHelp
	return cmd
}

// setupError maps a harness error to exit status 2 with one line.
func setupError(err error) error { return oneLineUsage(err, config.ErrConfig) }

// oneLineUsage maps err to exit status 2 with its first line, without
// the sentinel's prefix when err wraps it (config.ErrConfig,
// sweep.ErrSpec).
func oneLineUsage(err, sentinel error) error {
	msg := err.Error()
	if errors.Is(err, sentinel) {
		msg = strings.TrimPrefix(msg, sentinel.Error()+": ")
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return &exitError{code: exitUsage, err: errors.New(msg)}
}

// runOnce runs cfg with lockstorm.Run, prints the summary and picks the
// exit status.
// A --junit file that cannot be written is exit status 2, after the
// summary.
func runOnce(ctx context.Context, cfg config.Config, junit string) error {
	res, err := lockstorm.Run(ctx, cfg)
	var rerr *lockstorm.ReportError
	if errors.As(err, &rerr) {
		err = summarize(res, rerr.Err)
	} else if err != nil {
		return setupError(err)
	} else {
		err = summarize(res, nil)
	}
	return writeJUnit(junit, err, reports.RunSuite(res))
}

// writeJUnit writes the --junit file (nothing when path is empty) of the
// suites and returns status, the command's outcome so far; a file that
// cannot be written is exit status 2.
func writeJUnit(path string, status error, suites ...reports.JUnitSuite) error {
	if path == "" {
		return status
	}
	if err := reports.WriteJUnitFile(path, reports.JUnitDocument(suites...)); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	return status
}

// summarize prints the summary of res, whose report was written unless
// reportErr says why not, and picks the exit status. The verdict of a run
// cut short (a full disk) is printed even when its report cannot be
// written; a complete run whose report fails is a setup error.
func summarize(res *analysis.Result, reportErr error) error {
	if reportErr != nil {
		if res.Incomplete == "" {
			return &exitError{code: exitUsage, err: reportErr}
		}
		fmt.Fprintf(os.Stderr, "lockstorm: report not written: %v\n", reportErr)
	}
	reports.Summary(os.Stdout, res)
	return exitFor(res.Verdict.Valid)
}

// exitFor is the exit status of a verdict: 0 valid, 1 invalid, 3 unknown.
func exitFor(v checker.Validity) error {
	switch v {
	case checker.Valid:
		return nil
	case checker.Invalid:
		return &exitError{code: exitInvalid}
	}
	return &exitError{code: exitUnknown}
}

// repeat runs `run --runs n` as a campaign (campaign.Repeat): each run's
// summary is printed as it ends, besides the campaign's progress line,
// then the campaign's summary table, --junit and (sharded) manifest; the
// exit status follows the runs' claims (a valid verdict each). A
// campaign without --seed prints its drawn base seed first.
func repeat(ctx context.Context, cfg config.Config, n int, untilInvalid bool, f config.Campaign) error {
	if n < 1 {
		return usage("--runs must be at least 1, got %d", n)
	}
	base, drawn, err := campaign.RepeatBase(cfg, n, untilInvalid, f.Shard)
	if err != nil {
		return setupError(err)
	}
	if drawn {
		fmt.Fprintf(os.Stderr, "lockstorm: base seed %d (run 1 uses it, run i a seed derived from it; replay the campaign with --seed %d)\n", base, base)
	}
	opt := campaign.Options{Progress: os.Stderr, OnResult: func(o *campaign.Outcome, res *analysis.Result) {
		reports.RunHeader(os.Stdout, o.Index+1, n, res)
		reports.Summary(os.Stdout, res)
	}}
	if untilInvalid {
		opt.StopAfter = campaign.UntilInvalid
	}
	rep, err := campaign.Run(ctx, campaign.Repeat(cfg, n, base, f), opt)
	if err != nil {
		return setupError(err)
	}
	return finishCampaign(rep, f, nil, nil)
}
