// Package workloads holds the clients that use a lock to protect a
// resource, each modelled on a use of locks people have: a counter that
// breaks under concurrent writes, a cron job that must run once per tick, a
// one-caller-at-a-time API, and a temporary leader. Every step is recorded
// as a Jepsen op pair (invoke, then ok / fail / info).
package workloads

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Workload drives one client slot until ctx ends. It must honour the
// lease's lost-signal: a holder that learns its lease is lost stops
// touching the resource.
type Workload interface {
	Name() string
	Run(ctx context.Context, w *Worker) error
}

// Options tune the workloads. Zero fields take the defaults noted.
type Options struct {
	// Key is the lock name (and the resource key). Default "lockstorm".
	Key string
	// HoldMin and HoldMax bound the drawn time a holder keeps the lock
	// between its read and its write (counter), inside the API (api) or as
	// leader (leader). Defaults TTL/20 and TTL/4.
	HoldMin, HoldMax time.Duration
	// AcquireTimeout bounds one acquire call. Default 2 x TTL.
	AcquireTimeout time.Duration
	// OpTimeout bounds one resource or release call. Default 4 x TTL: a
	// client's own calls must outlast a client pause (up to 3 x TTL by
	// default), as a paused process does not time out its own requests.
	OpTimeout time.Duration
	// Think is the pause between two rounds of one client. Default TTL/20.
	Think time.Duration
	// Tick is the cron workload's period. Default 4 x TTL (clients try
	// during the first TTL/2 of each tick).
	Tick time.Duration
	// Heartbeat is the leader workload's heartbeat period. Default TTL/5.
	Heartbeat time.Duration
	// TrustLostSignal makes holders act until the lock's lost-signal
	// fires, ignoring their own validity deadline — as code using a
	// watchdog lock usually does. With a lock that has no watchdog, a
	// holder slower than the TTL then writes after its lease ran out:
	// the "TTL too short" mistake. Default false: holders also stop at
	// their validity deadline, as correct code does.
	TrustLostSignal bool `json:",omitempty"`
}

// WithDefaults fills zero fields for a lease TTL.
func (o Options) WithDefaults(ttl time.Duration) Options {
	if o.Key == "" {
		o.Key = "lockstorm"
	}
	if o.HoldMax <= 0 {
		o.HoldMax = ttl / 4
	}
	if o.HoldMin <= 0 || o.HoldMin > o.HoldMax {
		o.HoldMin = min(ttl/20, o.HoldMax)
	}
	if o.AcquireTimeout <= 0 {
		o.AcquireTimeout = 2 * ttl
	}
	if o.OpTimeout <= 0 {
		o.OpTimeout = 4 * ttl
	}
	if o.Think <= 0 {
		o.Think = ttl / 20
	}
	if o.Tick <= 0 {
		o.Tick = 4 * ttl
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = ttl / 5
	}
	return o
}

// workload is a named run function.
type workload struct {
	name string
	run  func(ctx context.Context, w *Worker) error
}

// Name is the workload's registry name.
func (x workload) Name() string { return x.name }

// Run runs the workload for one client.
func (x workload) Run(ctx context.Context, w *Worker) error { return x.run(ctx, w) }

// rounds is the run of a workload made of lock rounds: take the lock, run
// round with the lease, release, think (Options.Think), until ctx ends or
// the worker is told to stop.
func rounds(round func(ctx context.Context, w *Worker, lease *lockimpl.Lease)) func(ctx context.Context, w *Worker) error {
	return func(ctx context.Context, w *Worker) error {
		for w.Continue(ctx) {
			w.underLock(ctx, round)
			Sleep(ctx, w.Draw(0, w.Opt.Think), nil)
		}
		return nil
	}
}

// underLock takes the lock and runs round with the lease; the lease is
// released when round returns.
func (w *Worker) underLock(ctx context.Context, round func(ctx context.Context, w *Worker, lease *lockimpl.Lease)) {
	lease, err := w.Acquire(ctx)
	if err != nil {
		return
	}
	defer w.Release(ctx, lease)
	round(ctx, w, lease)
}

var registry = map[string]Workload{
	"counter": workload{"counter", rounds(counterRound)},
	"cron":    workload{"cron", runCron},
	"api":     workload{"api", rounds(apiRound)},
	"leader":  workload{"leader", rounds(leaderTerm)},
}

// Names lists the workloads, sorted.
func Names() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// New returns the named workload. Its options are the Worker's (Opt,
// filled by WithDefaults): opt is not kept.
func New(name string, opt Options) (Workload, error) {
	x, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("workload must be one of %s, got %q", strings.Join(Names(), ", "), name)
	}
	return x, nil
}
