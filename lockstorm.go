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
// Test runs the test as `lockstorm run` does (real redis-server processes
// behind toxiproxy) and fails it when the verdict is not valid. A lock
// plugs in through lockimpl.Locker: see package lockimpl/adapters.
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

// Run runs one test and writes its report, as `lockstorm run` does; a
// report not written is a *ReportError beside the result.
func Run(ctx context.Context, cfg Config) (*Result, error) { return campaign.RunReported(ctx, cfg) }

// ReportError is the error of a run whose report could not be written.
type ReportError = reports.WriteError

// StoreEnv names the environment variable that gives Test a store folder
// when the Config sets none.
const StoreEnv = "LOCKSTORM_STORE"

// Test runs cfg inside a Go test, storing in cfg.Store, else StoreEnv's
// folder, else a temp folder. It fails t, with the run's summary, when the
// run cannot start or its verdict is not valid, and skips t without
// redis-server.
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
	if errors.As(err, new(*ReportError)) {
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

// Campaign is Repeat's outcome: the campaign's report with what a
// repeat's caller reads besides.
type Campaign struct {
	*campaign.Report
	Base int64 // the seed the runs' seeds derive from (harness.RunSeed)
	// Runs are the results of the runs that ran, in order (a run that
	// failed to start is an outcome with its Error, not a run).
	Runs []*Result
	// StoppedEarly is true when untilInvalid stopped the campaign before
	// its last run.
	StoppedEarly bool
	// Verdict is the campaign's status (campaign.Report.Status), the one
	// `lockstorm run --runs` exits with.
	Verdict checker.Validity
}

// Repeat is `lockstorm run --runs n` (campaign.Repeat): run i with seed
// harness.RunSeed(base, i), base cfg.Seed or drawn. untilInvalid stops at
// the first invalid run. A report not written is the error after the
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
	return c, cmp.Or(err, werr) // err: the campaign's folder not written
}

// Option tunes Repeat.
type Option func(*options)

type options struct {
	onBase func(base int64)
	onRun  func(i int, res *Result, reportErr error)
	shard  shard.Shard
}

// InShard has Repeat run only shard k of n of the campaign (`--shard
// k/n`, k from 0); it needs a base seed.
func InShard(k, n int) Option { return func(o *options) { o.shard = shard.Shard{K: k, N: n} } }

// OnBaseSeed has Repeat call f with the base seed before the first run.
func OnBaseSeed(f func(base int64)) Option { return func(o *options) { o.onBase = f } }

// OnRun has Repeat call f after run i (1-based) and its report.
func OnRun(f func(i int, res *Result, reportErr error)) Option {
	return func(o *options) { o.onRun = f }
}
