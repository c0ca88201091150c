package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/workloads"
)

// runFlags binds `lockstorm run`'s flags; defaults live in harness.
func runFlags(fs *pflag.FlagSet, c *harness.Config, nem *string, persistence *string, plan *string) {
	fs.StringVar(&c.Name, "name", "", "test name in the store (default <lock>-<workload>)")
	fs.StringVar(&c.Lock, "lock", "single", "lock under test: "+strings.Join(lockimpl.Names(), ", "))
	fs.StringVar(&c.Workload, "workload", "counter", "workload: "+strings.Join(workloads.Names(), ", "))
	fs.StringVar(nem, "nemesis", "", "comma-separated faults: "+strings.Join(nemesis.Kinds, ", ")+"; none (the default) means no faults")
	fs.IntVar(&c.Nodes, "nodes", 0, "Redis nodes, 1..15 (default 1; 5 for redlock, fenced-redlock, redsync, which need at least 3)")
	fs.IntVar(&c.Clients, "clients", 4, "concurrent clients, 1..64")
	fs.DurationVar(&c.TTL, "ttl", 0, "lease time-to-live (default 1s)")
	fs.DurationVar(&c.RenewEvery, "renew-every", 0, "watchdog renewal interval of renewable locks (default ttl/3)")
	fs.BoolVar(&c.Fencing, "fencing", false, "the resource rejects writes with stale fencing tokens (needs a lock that issues them: fenced, fenced-redlock)")
	fs.StringVar(persistence, "persistence", "none", "Redis persistence: none, aof-everysec, aof-always")
	fs.DurationVar(&c.TimeLimit, "time-limit", 0, "length of the run (default 20s)")
	fs.DurationVar(&c.FaultInterval, "fault-interval", 0, "mean time between faults (default 3s)")
	fs.Int64Var(&c.Seed, "seed", 0, "seed of the run's random source (default: drawn, and printed)")
	fs.StringVar(&c.Store, "store", "store", "folder of the run store")
	fs.StringVar(&c.Provider, "provider", "local", "where Redis runs: local (redis-server processes), docker (containers), external (given endpoints)")
	fs.StringVar(&c.DockerImage, "docker-image", "", "Redis image of the docker provider (default redis:7; make docker-image builds lockstorm/redis:7)")
	fs.BoolVar(&c.KeepClusterDir, "keep", false, "keep the nodes' data folders (local) or containers (docker) after the run")
	fs.StringSliceVar(&c.External.RedisAddrs, "redis-addrs", nil, "external provider: Redis endpoints host:port,host:port,...")
	fs.StringVar(&c.External.Toxiproxy, "toxiproxy", "", "external provider: toxiproxy server API host:port")
	fs.StringVar(&c.External.ListenHost, "toxiproxy-listen-host", "", "external provider: host the toxiproxy proxies listen on (default: the API's host)")
	fs.StringVar(&c.External.PasswordEnv, "redis-password-env", "", "external provider: environment variable holding the Redis password")
	fs.BoolVar(&c.External.TLS, "redis-tls", false, "external provider: the endpoints speak TLS")
	fs.BoolVar(&c.External.AllowNonLoopback, "allow-non-loopback", false, "external provider: allow endpoints off this host's loopback (faults disrupt whatever they touch)")
	fs.IntVar(&c.MinCoverage, "min-coverage", harness.DefaultMinCoverage, "faults of each requested kind that must touch a lock holder or waiter for a valid verdict; 0 turns the bar off")
	fs.Float64Var(&c.TargetHolder, "target-holder", harness.DefaultTargetHolder, "probability that a random fault is aimed at the lock holder or a waiter, timed against its lease; 0 never")
	fs.StringVar(plan, "config", "", "YAML test plan; flags given explicitly override it")
}

// repeatFlags binds the flags that repeat a run.
func repeatFlags(fs *pflag.FlagSet, runs *int, untilInvalid *bool) {
	fs.IntVar(runs, "runs", 1, "run N seeded runs, each in its own folder: run 1 uses --seed, run i ≥ 2 the seed 1 + splitmix64(seed + i - 1) mod 2^53; without --seed a base seed is drawn and printed; exit status follows the aggregate (invalid if any run is, else unknown if any is)")
	fs.BoolVar(untilInvalid, "until-invalid", false, "with --runs, stop at the first invalid run")
}

func runCommand() *cobra.Command {
	var (
		cfg                   harness.Config
		nem, persistence, pln string
		runs                  int
		untilInvalid          bool
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "run one test: a lock, a workload and faults; check it and write the report",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			final, err := mergePlan(cmd.Flags(), cfg, nem, persistence, pln)
			if err != nil {
				return err
			}
			if err := final.CheckGiven(cmd.Flags().Changed); err != nil {
				return usage("%v", strings.TrimPrefix(err.Error(), harness.ErrConfig.Error()+": "))
			}
			if _, err := final.WithDefaults(); err != nil {
				return usage("%v", strings.TrimPrefix(err.Error(), harness.ErrConfig.Error()+": "))
			}
			if runs < 1 {
				return usage("--runs must be at least 1, got %d", runs)
			}
			progress := reports.NewProgress(os.Stderr)
			final.OnProgress = progress.Update
			if runs == 1 {
				res, err := harness.Run(cmd.Context(), final)
				if err != nil {
					return setupError(err)
				}
				return finish(res)
			}
			return repeat(cmd.Context(), final, runs, untilInvalid)
		},
	}
	runFlags(cmd.Flags(), &cfg, &nem, &persistence, &pln)
	repeatFlags(cmd.Flags(), &runs, &untilInvalid)
	return cmd
}

// mergePlan applies a YAML plan, then every flag given explicitly.
func mergePlan(fs *pflag.FlagSet, flags harness.Config, nem, persistence, planPath string) (harness.Config, error) {
	flags.Persistence = cluster.Persistence(persistence)
	if fs.Changed("min-coverage") {
		flags.MinCoverage = harness.GivenMinCoverage(flags.MinCoverage)
	}
	if fs.Changed("target-holder") {
		flags.TargetHolder = harness.GivenTargetHolder(flags.TargetHolder)
	}
	if nem != "" {
		flags.Nemesis = strings.Split(nem, ",")
	}
	if planPath == "" {
		return flags, nil
	}
	c, err := harness.LoadPlan(planPath)
	if err != nil {
		return c, usage("%v", strings.TrimPrefix(err.Error(), harness.ErrConfig.Error()+": "))
	}
	set := func(name string, apply func()) {
		if fs.Changed(name) {
			apply()
		}
	}
	set("name", func() { c.Name = flags.Name })
	set("lock", func() { c.Lock = flags.Lock })
	set("workload", func() { c.Workload = flags.Workload })
	set("nemesis", func() { c.Nemesis = flags.Nemesis })
	set("nodes", func() { c.Nodes = flags.Nodes })
	set("clients", func() { c.Clients = flags.Clients })
	set("ttl", func() { c.TTL = flags.TTL })
	set("renew-every", func() { c.RenewEvery = flags.RenewEvery })
	set("fencing", func() { c.Fencing = flags.Fencing })
	set("persistence", func() { c.Persistence = flags.Persistence })
	set("time-limit", func() { c.TimeLimit = flags.TimeLimit })
	set("fault-interval", func() { c.FaultInterval = flags.FaultInterval })
	set("seed", func() { c.Seed = flags.Seed })
	set("store", func() { c.Store = flags.Store })
	set("provider", func() { c.Provider = flags.Provider })
	set("docker-image", func() { c.DockerImage = flags.DockerImage })
	set("keep", func() { c.KeepClusterDir = flags.KeepClusterDir })
	set("redis-addrs", func() { c.External.RedisAddrs = flags.External.RedisAddrs })
	set("toxiproxy", func() { c.External.Toxiproxy = flags.External.Toxiproxy })
	set("toxiproxy-listen-host", func() { c.External.ListenHost = flags.External.ListenHost })
	set("redis-password-env", func() { c.External.PasswordEnv = flags.External.PasswordEnv })
	set("redis-tls", func() { c.External.TLS = flags.External.TLS })
	set("allow-non-loopback", func() { c.External.AllowNonLoopback = flags.External.AllowNonLoopback })
	set("min-coverage", func() { c.MinCoverage = flags.MinCoverage })
	set("target-holder", func() { c.TargetHolder = flags.TargetHolder })
	return c, nil
}

// setupError maps a harness error to exit status 2 with one line.
func setupError(err error) error {
	msg := err.Error()
	if errors.Is(err, harness.ErrConfig) {
		msg = strings.TrimPrefix(msg, harness.ErrConfig.Error()+": ")
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return &exitError{code: exitUsage, err: errors.New(msg)}
}

// finish writes the report, prints the summary and picks the exit status.
// The verdict of a run cut short (a full disk) is printed even when its
// report cannot be written.
func finish(res *harness.Result) error {
	if err := reports.Write(res); err != nil {
		if res.Incomplete == "" {
			return &exitError{code: exitUsage, err: err}
		}
		fmt.Fprintf(os.Stderr, "lockstorm: report not written: %v\n", err)
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

// repeat runs a campaign of n seeded runs (harness.Repeat): each run's
// report is written and its summary printed as it ends, then the
// campaign's summary; the exit status follows the aggregate verdict. A
// campaign without --seed draws its base seed and prints it first.
func repeat(ctx context.Context, cfg harness.Config, n int, untilInvalid bool) error {
	if cfg.Seed == 0 {
		cfg.Seed = harness.DrawSeed()
		fmt.Fprintf(os.Stderr, "lockstorm: base seed %d (run 1 uses it, run i a seed derived from it; replay the campaign with --seed %d)\n", cfg.Seed, cfg.Seed)
	}
	c, err := harness.Repeat(ctx, cfg, n, untilInvalid, func(i int, res *harness.Result) {
		reports.RunHeader(os.Stdout, i, n, res)
		if werr := reports.Write(res); werr != nil {
			fmt.Fprintf(os.Stderr, "lockstorm: run %d: report not written: %v\n", i, werr)
		}
		reports.Summary(os.Stdout, res)
	})
	if c != nil && len(c.Runs) > 0 {
		reports.RepeatSummary(os.Stdout, c)
	}
	if err != nil {
		return setupError(err)
	}
	return exitFor(c.Verdict)
}
