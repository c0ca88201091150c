package harness

import (
	"context"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/clockwatch"
	"github.com/redis/go-redis/v9"
)

// clockSource is the machine's clocks as the run's clock watch reads
// them; tests replace it to step a wall clock.
var clockSource clockwatch.Source // nil: clockwatch.System

// watchClocks starts the run's clock watch (the wall clock and every
// node's TIME, on its admin address, against the monotonic clock, within
// the drift allowance per TTL); stop ends it and returns its events.
func (r *run) watchClocks(ctx context.Context) (stop func() []clockwatch.Event) {
	allowance := max(analysis.DriftAllowance(r.cfg), time.Millisecond)
	nodes := map[string]clockwatch.NodeClock{}
	var conns []*redis.Client
	for _, n := range r.cluster.Nodes() {
		addr, err := r.cluster.AdminAddr(n)
		if err != nil {
			continue // a node the harness cannot reach directly is not watched
		}
		rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1})
		conns = append(conns, rc)
		nodes[n] = func(ctx context.Context) (time.Time, error) { return rc.Time(ctx).Result() }
	}
	every := min(max(r.cfg.TTL/10, 10*time.Millisecond), 50*time.Millisecond)
	w, err := clockwatch.Start(ctx, clockwatch.Options{Source: clockSource, Nodes: nodes, Every: every,
		Lookback: r.cfg.TTL, Allowance: allowance})
	if err != nil {
		panic(err) // the lookback and allowance are set above
	}
	return func() []clockwatch.Event {
		events, dropped := w.Stop()
		for _, c := range conns {
			c.Close()
		}
		for _, e := range events {
			r.logf("clock event: %s", e)
		}
		if dropped > 0 {
			r.logf("clock events: %d more not kept", dropped)
		}
		return events
	}
}
