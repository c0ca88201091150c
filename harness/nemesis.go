package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/nemesis"
)

// phases splits the time limit: a warm-up without faults, the fault phase,
// and a recovery phase after the final heal in which clients must be able
// to acquire again.
func phases(cfg Config) (warm, faults, recovery time.Duration) {
	warm = min(cfg.TimeLimit/10, 2*time.Second)
	recovery = max(cfg.TimeLimit/5, min(3*cfg.TTL, cfg.TimeLimit/3))
	faults = cfg.TimeLimit - warm - recovery
	return warm, faults, recovery
}

// plan draws the run's fault schedule from the seed (or takes the scripted
// one). Nil means no faults.
func plan(cfg Config, set nemesis.Set, clients, nodes []string) (*nemesis.Plan, error) {
	if cfg.Plan != nil {
		if err := cfg.Plan.Validate(set); err != nil {
			return nil, fmt.Errorf("%w: plan: %v", ErrConfig, err)
		}
		return cfg.Plan, nil
	}
	if len(cfg.Nemesis) == 0 {
		return nil, nil
	}
	warm, faults, recovery := phases(cfg)
	if faults <= 0 {
		return nil, fmt.Errorf("%w: --time-limit %v leaves no time for faults", ErrConfig, cfg.TimeLimit)
	}
	p, err := nemesis.Schedule(nemesis.NewRand(uint64(cfg.Seed)), set, nemesis.Options{
		Kinds:       cfg.Nemesis,
		Topology:    nemesis.Topology{Nodes: nodes, Clients: clients, TTL: cfg.TTL},
		WarmUp:      warm,
		Faults:      faults,
		Recovery:    recovery,
		MinInterval: cfg.FaultInterval / 2,
		MaxInterval: cfg.FaultInterval * 3 / 2,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: nemesis: %v", ErrConfig, err)
	}
	return &p, nil
}

// FailoverDetect is how long a failover waits, once the master is cut or
// killed, before the replica is promoted (sentinel's down-after, or the
// delay before a manual promotion): the window in which a lock the old
// master grants is not replicated.
const FailoverDetect = time.Second

// newNemesisSet returns every fault kind acting on env.
func newNemesisSet(env nemesis.Env) nemesis.Set {
	set := nemesis.New(env)
	if f, ok := set[nemesis.KindFailover].(*nemesis.Failover); ok {
		f.Detect = FailoverDetect
	}
	return set
}

// runNemesis executes the plan until ctx ends; the runner heals on every
// exit path.
func (r *run) runNemesis(ctx context.Context, res *Result) error {
	if r.plan == nil {
		<-ctx.Done()
		return nil
	}
	runner := &nemesis.Runner{Set: r.nemSet, Cluster: r.cluster, Rec: r.rec, Logf: r.logf, Resolve: r.resolve}
	err := runner.Run(ctx, *r.plan)
	if err == nil {
		<-ctx.Done()
	}
	return err
}
