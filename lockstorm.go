// Package lockstorm runs Jepsen-style lock tests from Go code, so a chaos
// test of your own lock lives in your own `go test` suite:
//
//	func TestMyLockUnderPartitions(t *testing.T) {
//		lockstorm.Test(t, lockstorm.Config{
//			NewLock: func(nodes []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error) {
//				return myAdapter(nodes, opt), nil // your lock behind lockimpl.Locker
//			},
//			Nodes:     5,
//			Nemesis:   []string{"partition"},
//			TimeLimit: 10 * time.Second,
//		})
//	}
//
// Test starts real redis-server processes behind toxiproxy (the local
// provider), runs the workload and the faults, checks the history, writes
// the same store folder and report as `lockstorm run`, and fails the test
// with the anomalies (and the seed to replay) when the verdict is not
// valid. A lock plugs in through lockimpl.Locker (and optionally
// lockimpl.Extender): see the Redsync and Redislock adapters in
// package lockimpl/adapters.
package lockstorm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/reports"
)

// Config is a run's configuration; see config.Config for every field.
type Config = config.Config

// Result is what a run leaves behind; see analysis.Result.
type Result = analysis.Result

// Run runs one test and writes its report into the store folder, as
// `lockstorm run` does. A report that cannot be written is a
// *ReportError, returned with the whole result.
func Run(ctx context.Context, cfg Config) (*Result, error) { return campaign.RunReported(ctx, cfg) }

// ReportError is the error of a run that ran and was checked but whose
// report could not be written, e.g. on a full disk: every error of
// reports.Write is one.
type ReportError = reports.WriteError

// StoreEnv names the environment variable that gives Test a store folder
// when the Config sets none: `LOCKSTORM_STORE=$PWD/store go test ./...`
// keeps every run's folder and report (and its junit.xml) under store/.
const StoreEnv = "LOCKSTORM_STORE"

// Test runs cfg inside a Go test. The store is cfg.Store when set, else
// the folder the environment variable StoreEnv names (CI sets it to keep
// the reports as an artifact), else the test's temp folder. It fails t when the run cannot start, and when the verdict is
// invalid or unknown, with the summary: each checker's verdict, the first
// anomalies with their op indices, the seed and the report's path. It
// skips t when redis-server is not installed and cannot be, saying so.
func Test(t testing.TB, cfg Config) *Result {
	t.Helper()
	cfg.Store = cmp.Or(cfg.Store, os.Getenv(StoreEnv))
	if cfg.Store == "" {
		cfg.Store = t.TempDir()
	}
	cfg.Name = cmp.Or(cfg.Name, strings.ReplaceAll(t.Name(), "/", "_"))
	ctx := context.Background()
	if d, ok := t.(interface{ Context() context.Context }); ok {
		ctx = d.Context()
	}
	res, err := Run(ctx, cfg)
	if errors.Is(err, cluster.ErrNoRedis) {
		t.Skipf("lockstorm: %v", err)
	}
	var rerr *ReportError
	if errors.As(err, &rerr) {
		t.Fatalf("lockstorm: report not written: %v", err)
	}
	if err != nil {
		t.Fatalf("lockstorm: %v", err)
	}
	if res.Verdict.Valid != checker.Valid {
		var b strings.Builder
		reports.Summary(&b, res)
		t.Errorf("lockstorm: %s run:\n%s", res.Verdict.Valid, b.String())
	}
	return res
}

// Campaign is Repeat's outcome: the campaign's report (campaign.Report,
// the one result of every campaign: its outcomes, Planned, Total, Shard,
// Interrupted) with what a repeat's caller reads besides.
type Campaign struct {
	*campaign.Report
	// Base is the seed the runs' seeds derive from (harness.RunSeed).
	Base int64
	// Runs are the results of the runs that ran, in order (fewer than
	// Planned after untilInvalid or an interrupt; a run that failed to
	// start is an outcome with its Error, not a run).
	Runs []*Result
	// StoppedEarly is true when untilInvalid stopped the campaign at an
	// invalid run before its last.
	StoppedEarly bool
	// Verdict is the campaign's status (campaign.Report.Status), the one
	// `lockstorm run --runs` exits with: invalid if a run is invalid,
	// else unknown if a run is unknown, failed to start or to write its
	// report, or ctx ended first, else valid.
	Verdict checker.Validity
}

// Repeat runs cfg n times, run i with seed harness.RunSeed(cfg.Seed, i)
// (run 1 with cfg.Seed itself; a base seed is drawn when cfg.Seed is 0),
// each in its own store folder with its report: it is `lockstorm run
// --runs n`'s campaign (campaign.Repeat) run by campaign.Run, whose
// folder it also writes. untilInvalid stops at the first invalid run. A
// report that cannot be written is returned as the error after the
// campaign (a *ReportError).
func Repeat(ctx context.Context, cfg Config, n int, untilInvalid bool, opts ...Option) (*Campaign, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if n < 1 {
		return nil, fmt.Errorf("%w: --runs must be at least 1, got %d", config.ErrConfig, n)
	}
	base, _, err := campaign.RepeatBase(cfg, n, untilInvalid, o.shard)
	if err != nil {
		return nil, err
	}
	if o.onBase != nil {
		o.onBase(base)
	}
	// The runs go one at a time (no --parallel): the report error of
	// the run that just finished is the one OnResult hands on.
	var werr, last error
	copt := campaign.Options{KeepResults: true,
		Runner: func(ctx context.Context, cfg config.Config) (*Result, error) {
			res, err := campaign.RunReported(ctx, cfg)
			if _, last = reports.SplitError(err); last != nil && werr == nil {
				werr = last
			}
			return res, err
		},
		OnResult: func(out *campaign.Outcome, res *Result) {
			if o.onRun != nil {
				o.onRun(out.Index+1, res, last)
			}
		}}
	if untilInvalid {
		copt.StopAfter = campaign.UntilInvalid
	}
	rep, err := campaign.Run(ctx, campaign.Repeat(cfg, n, base, config.Campaign{Shard: o.shard}), copt)
	if rep == nil {
		return nil, err
	}
	c := &Campaign{Report: rep, Base: base, Verdict: rep.Status()}
	for _, out := range rep.Outcomes {
		if out.Result != nil {
			c.Runs = append(c.Runs, out.Result)
		}
	}
	c.StoppedEarly = rep.Stopped != "" && len(c.Runs) < rep.Planned
	if err != nil { // the campaign's folder not written
		return c, err
	}
	return c, werr
}

// Option tunes Repeat.
type Option func(*options)

type options struct {
	onBase func(base int64)
	onRun  func(i int, res *Result, reportErr error)
	shard  shard.Shard
}

// InShard has Repeat run only shard k of n of the campaign (k counts from
// 0): run i when (i − 1) mod n is k, with the seed the whole campaign
// gives it (`lockstorm run --runs --shard k/n`). It needs a base seed.
func InShard(k, n int) Option { return func(o *options) { o.shard = shard.Shard{K: k, N: n} } }

// OnBaseSeed has Repeat call f with the campaign's base seed (drawn when
// cfg.Seed is 0) once the configuration is checked, before the first run.
func OnBaseSeed(f func(base int64)) Option { return func(o *options) { o.onBase = f } }

// OnRun has Repeat call f after run i (1-based), once its report is
// written (reportErr says why it could not be), before the next run.
func OnRun(f func(i int, res *Result, reportErr error)) Option {
	return func(o *options) { o.onRun = f }
}
