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

var registry = map[string]func(Options) Workload{
	"counter": func(o Options) Workload { return &Counter{Opt: o} },
	"cron":    func(o Options) Workload { return &Cron{Opt: o} },
	"api":     func(o Options) Workload { return &API{Opt: o} },
	"leader":  func(o Options) Workload { return &Leader{Opt: o} },
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

// New returns the named workload with opt (defaults must be filled).
func New(name string, opt Options) (Workload, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("workload must be one of %s, got %q", strings.Join(Names(), ", "), name)
	}
	return f(opt), nil
}
