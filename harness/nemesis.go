package harness

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
)

// phases splits the time limit: a warm-up without faults, the faults, and
// a recovery after the final heal in which clients must acquire again.
func phases(cfg config.Config) (warm, faults, recovery time.Duration) {
	warm = min(cfg.TimeLimit/10, 2*time.Second)
	recovery = max(cfg.TimeLimit/5, min(3*cfg.TTL, cfg.TimeLimit/3))
	faults = cfg.TimeLimit - warm - recovery
	return warm, faults, recovery
}

// plan draws the run's fault schedule from the seed (or takes the scripted
// one). Nil means no faults.
func plan(cfg config.Config, set nemesis.Set, clients, nodes []string) (*nemesis.Plan, error) {
	if cfg.Plan != nil {
		if err := cfg.Plan.Validate(set); err != nil {
			return nil, fmt.Errorf("%w: plan: %v", config.ErrConfig, err)
		}
		return cfg.Plan, nil
	}
	if len(cfg.Nemesis) == 0 {
		return nil, nil
	}
	warm, faults, recovery := phases(cfg)
	if faults <= 0 {
		return nil, fmt.Errorf("%w: --time-limit %v leaves no time for faults", config.ErrConfig, cfg.TimeLimit)
	}
	o := nemesis.Options{
		Kinds: cfg.Nemesis,
		Topology: nemesis.Topology{Nodes: nodes, Clients: clients, TTL: cfg.TTL, Resource: resourceTarget,
			NodeTimeout:  lockOptions(cfg).WithDefaults(len(nodes)).NodeTimeout,
			RedisCluster: cfg.Topology == config.TopologyCluster, Renews: cfg.Workloads.TrustLostSignal,
			Queues:         cfg.Fair,
			AcquireTimeout: cfg.Workloads.AcquireTimeout},
		WarmUp:       warm,
		Faults:       faults,
		Recovery:     recovery,
		MinInterval:  cfg.FaultInterval / 2,
		MaxInterval:  cfg.FaultInterval * 3 / 2,
		TargetHolder: cfg.TargetHolder,
	}
	if cfg.Provider == "external" { // clients reach the resource directly
		o.Topology.Resource = ""
	}
	if err := fitsTimeLimit(cfg, set, o); err != nil {
		return nil, err
	}
	p, err := nemesis.Schedule(nemesis.NewRand(uint64(cfg.Seed)), set, o)
	if err != nil {
		return nil, fmt.Errorf("%w: nemesis: %v", config.ErrConfig, err)
	}
	return &p, nil
}

// MinTimeLimit returns the shortest time limit whose fault phase (see
// phases) holds one fault of each of kinds, at millisecond resolution,
// for cfg's TTL and fault interval and the given topology.
func MinTimeLimit(cfg config.Config, set nemesis.Set, o nemesis.Options, kinds ...string) (time.Duration, error) {
	need, err := nemesis.MinFaultPhase(set, o, kinds...)
	if err != nil {
		return 0, err
	}
	fits := func(ms int) bool {
		c := cfg
		c.TimeLimit = time.Duration(ms) * time.Millisecond
		_, f, _ := phases(c)
		return f >= need && f > 0
	}
	hi := 1
	for !fits(hi) {
		if hi *= 2; hi > 1e9 { // 11 days: nothing fits
			return 0, fmt.Errorf("%w: no time limit holds %v of faults", config.ErrConfig, need)
		}
	}
	ms := sort.Search(hi, func(i int) bool { return fits(i + 1) }) + 1
	return time.Duration(ms) * time.Millisecond, nil
}

// fitsTimeLimit refuses a time limit too short for one fault of every
// requested kind, naming the kind and the time limit it needs.
func fitsTimeLimit(cfg config.Config, set nemesis.Set, o nemesis.Options) error {
	all, err := MinTimeLimit(cfg, set, o, cfg.Nemesis...)
	if err != nil {
		return fmt.Errorf("%w: nemesis: %v", config.ErrConfig, err)
	}
	if cfg.TimeLimit >= all {
		return nil
	}
	// Name the kind that needs the longest run on its own.
	worst, worstNeed := "", time.Duration(0)
	for _, k := range cfg.Nemesis {
		d, err := MinTimeLimit(cfg, set, o, k)
		if err != nil {
			return fmt.Errorf("%w: nemesis: %v", config.ErrConfig, err)
		}
		if d > worstNeed {
			worst, worstNeed = k, d
		}
	}
	if len(cfg.Nemesis) == 1 || cfg.TimeLimit < worstNeed {
		msg := fmt.Sprintf("--time-limit %v is too short for a %s fault: it needs --time-limit %v or more", cfg.TimeLimit, worst, worstNeed)
		if len(cfg.Nemesis) > 1 {
			msg += fmt.Sprintf(" (one fault of each of %s: %v)", strings.Join(cfg.Nemesis, ","), all)
		}
		return fmt.Errorf("%w: %s", config.ErrConfig, msg)
	}
	return fmt.Errorf("%w: --time-limit %v is too short for one fault of each of %s: it needs --time-limit %v or more",
		config.ErrConfig, cfg.TimeLimit, strings.Join(cfg.Nemesis, ","), all)
}

// FailoverDetect is how long a failover waits, once the master is cut or
// killed, before the replica is promoted (sentinel's down-after).
const FailoverDetect = time.Second

// newNemesisSet returns every fault kind acting on env.
func newNemesisSet(env nemesis.Env) nemesis.Set {
	set := nemesis.New(env)
	if f, ok := set[nemesis.KindFailover].(*nemesis.Failover); ok {
		f.Detect = FailoverDetect
	}
	return set
}

// runNemesis executes the plan until it is done, finish is closed (the
// fault in flight completes) or ctx ends; the runner heals on every path.
func (r *run) runNemesis(ctx context.Context, finish <-chan struct{}) error {
	if r.plan == nil {
		return nil
	}
	runner := &nemesis.Runner{Set: r.nemSet, Cluster: r.cluster, Rec: r.rec, Logf: r.logf,
		Resolve: r.tgt.resolve, Finish: finish}
	return runner.Run(ctx, *r.plan)
}
