// Package power measures detection power: how often, and how fast,
// lockstorm's checkers catch each broken lock under random faults of the
// kind its catalogue row names, and whether correct locks under the faults
// they claim to survive ever raise a false alarm. It holds the scenario
// table, the per-run measurements (verdict, time to detect), their
// aggregation against targets, a runner over lockstorm.Run, and a reader of
// runs already stored. `lockstorm power` and `make power` drive it.
package power

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// Scenario is one row of the power table: a lock under random faults.
type Scenario struct {
	// Name is the row's name and the runs' test name in the store.
	Name string `json:"name"`
	// Broken is true for a lock that is expected to be caught (an invalid
	// verdict is a detection); false for a correct lock (an invalid verdict
	// is a false alarm).
	Broken bool `json:"broken"`
	// Config is the run's configuration: random faults (Nemesis, no Plan).
	// Seed, TimeLimit and Store are set per run by Run.
	Config config.Config `json:"-"`
}

const ms = time.Millisecond

// cfg builds a scenario's configuration: counter workload, random faults.
func cfg(name, lock string, nodes, clients int, ttl time.Duration, kinds ...string) config.Config {
	return config.Config{Name: name, Lock: lock, Workload: "counter", Nodes: nodes, Clients: clients, TTL: ttl, Nemesis: kinds}
}

// Scenarios returns the detection-power table, broken locks first, in a fixed
// order: each broken lock and each Kleppmann scenario under random faults
// of the kind its catalogue row names, then the correct locks under the
// faults they claim to survive.
func Scenarios() []Scenario {
	redlockNoPersist := cfg("redlock-no-persistence", "redlock", 5, 4, 500*ms, nemesis.KindCrash)
	redlockNoPersist.Persistence = cluster.PersistNone
	// Catalogue row 9 holds the lock for two thirds of its TTL: a node
	// restart (tens of ms) outlasts the default holds (TTL/20 to TTL/4), so
	// the holder has usually released before a restarted, empty node can
	// grant the lock again.
	redlockNoPersist.Workloads = workloads.Options{HoldMin: 300 * ms, HoldMax: 330 * ms}
	fenced := cfg("fenced-fencing", "fenced", 1, 3, 500*ms, nemesis.KindClientPause)
	fenced.Fencing = true
	aof := cfg("redlock-aof-always", "redlock", 5, 4, 500*ms, nemesis.KindPartition, nemesis.KindCrash, nemesis.KindLatency)
	aof.Persistence = cluster.PersistAOFAlways
	// unsafe-getdel breaks only when its GET and DEL are far enough apart
	// for the key to expire between them: `run --lock unsafe-getdel
	// --nemesis latency --node-timeout 500ms` (4 clients, TTL 1 s, the
	// default holds), where an aimed latency may slow the holder's
	// commands by up to 450 ms; the default node timeout (TTL/10) allows
	// no delay that large.
	getdel := cfg("unsafe-getdel", "unsafe-getdel", 1, 4, time.Second, nemesis.KindLatency)
	getdel.NodeTimeout = 500 * ms
	// Holds of 300-500 ms: the aimed latency lands on the holder some
	// tens of milliseconds after its acquire (longer on a busy machine),
	// which the default holds (TTL/20 to TTL/4) may not outlast, and a
	// release after h with a delay d straddles the expiry when
	// TTL-2d < h < TTL-d, 100-550 ms at the largest d.
	getdel.Workloads = workloads.Options{HoldMin: 300 * ms, HoldMax: 500 * ms}
	// unsafe-overclaim counts its validity from the acquire's reply: it
	// over-claims by the reply's delay, which only a holder that uses
	// nearly its whole validity turns into a write after the key expired
	// (holds of 85-95% of the TTL, the row's own), and only a delay on the
	// winning waiter's node-to-client stream of up to 0.9 node timeouts
	// (hence --node-timeout 500ms, as for unsafe-getdel) makes large.
	// Two clients: the slowed waiter is the next holder, and the other,
	// not slowed, takes the lock as soon as the key expires.
	overclaim := cfg("overclaim", "unsafe-overclaim", 1, 2, time.Second, nemesis.KindLatency)
	overclaim.NodeTimeout = 500 * ms
	// Think times drawn up to 1 s after each release let the slowed
	// waiter win the next grant: its SETs land one reply delay apart, and
	// with the default think (up to TTL/20) the holder, not slowed, took
	// the lock again first (measured, 20 seeds: a waiter slowed by 415 ms
	// lost every race for 2 s).
	overclaim.Workloads = workloads.Options{HoldMin: 850 * ms, HoldMax: 950 * ms, Think: time.Second}
	// Every fault aimed: the over-claim needs a waiter aim, the second of
	// every four aimed latencies, or a later holder aim that draws the
	// node-to-client stream.
	overclaim.TargetHolder = 1
	return []Scenario{
		{Name: "unsafe-del", Broken: true, Config: cfg("unsafe-del", "unsafe-del", 1, 3, 500*ms, nemesis.KindClientPause)},
		{Name: "unsafe-getdel", Broken: true, Config: getdel},
		{Name: "unsafe-nottl", Broken: true, Config: cfg("unsafe-nottl", "unsafe-nottl", 1, 3, 500*ms, nemesis.KindClientCrash)},
		{Name: "single-no-fencing", Broken: true, Config: cfg("single-no-fencing", "single", 1, 3, 500*ms, nemesis.KindClientPause)},
		{Name: "redlock-no-persistence", Broken: true, Config: redlockNoPersist},
		{Name: "redlock-clock-jump", Broken: true, Config: cfg("redlock-clock-jump", "redlock", 5, 4, 500*ms, nemesis.KindClockJump)},
		{Name: "fair-naive", Broken: true, Config: cfg("fair-naive", "fair-naive", 1, 3, 500*ms, nemesis.KindClientCrash)},
		// SETNX, then PEXPIRE (a process client): caught only by a crash
		// between the two, which an aimed waiter crash times to the key
		// without expiry (harness: aimNoExpiry)
		{Name: "setnx-expire", Broken: true, Config: cfg("setnx-expire", "py-setnx-expire", 1, 3, 500*ms, nemesis.KindClientCrash)},
		{Name: "overclaim", Broken: true, Config: overclaim},
		{Name: "fenced-fencing", Config: fenced},
		{Name: "redlock-aof-always", Config: aof},
		{Name: "renewable", Config: cfg("renewable", "renewable", 1, 3, 500*ms, nemesis.KindPartition)},
		{Name: "redsync", Config: cfg("redsync", "redsync", 5, 4, 500*ms, nemesis.KindPartition, nemesis.KindLatency)},
		{Name: "redislock", Config: cfg("redislock", "redislock", 1, 3, 500*ms, nemesis.KindPartition, nemesis.KindLatency)},
	}
}

// Names lists the scenarios' names in table order.
func Names() []string {
	var out []string
	for _, s := range Scenarios() {
		out = append(out, s.Name)
	}
	return out
}

// Select returns the scenarios named in only (all of them when only is
// empty), in table order. An unknown name is an error wrapping
// config.ErrConfig.
func Select(only []string) ([]Scenario, error) {
	all := Scenarios()
	if len(only) == 0 {
		return all, nil
	}
	names := Names()
	for _, n := range only {
		if !slices.Contains(names, n) {
			return nil, fmt.Errorf("%w: --only takes names among %s, got %q", config.ErrConfig, strings.Join(names, ","), n)
		}
	}
	var out []Scenario
	for _, s := range all {
		if slices.Contains(only, s.Name) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Describe is the scenario's setup in one short line, e.g. "single, 1
// node, 3 clients, ttl 500ms, client-pause".
func (s Scenario) Describe() string {
	c := s.Config
	lock := c.Lock
	if c.Fencing {
		lock += "+fencing"
	}
	if c.Persistence != "" && c.Persistence != cluster.PersistNone {
		lock += " " + string(c.Persistence)
	}
	return fmt.Sprintf("%s, %dn/%dc, ttl %v, %s", lock, c.Nodes, c.Clients, c.TTL, strings.Join(c.Nemesis, ","))
}
