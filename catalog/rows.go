// Package catalog is the anomaly catalogue (the README's table) as runnable rows:
// each row is one lock, one scripted fault sequence and what a correct
// harness must observe. `lockstorm catalog` runs them and compares
// expected with observed.
package catalog

import (
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// Row is one entry of the catalogue.
type Row struct {
	N        int
	Lock     string
	Fault    string
	Expected string
	// Quick rows make up `catalog --quick` (under 3 minutes together).
	Quick bool
	// Config is the run's configuration (the seed is set by the runner).
	Config config.Config
	Expect []Expectation
}

const ms = time.Millisecond

func step(at time.Duration, f nemesis.Fault, d time.Duration) nemesis.Step {
	return nemesis.Step{At: at, Fault: f, Duration: d}
}

// scripted sets a config's plan and a time limit that covers it.
func scripted(c config.Config, recovery time.Duration, steps ...nemesis.Step) config.Config {
	p := nemesis.Scripted(recovery, steps...)
	c.Plan = &p
	c.TimeLimit = p.End
	return c
}

// holderPauses pauses whoever holds the lock, three times.
func holderPauses(ttl time.Duration, factor float64) []nemesis.Step {
	d := time.Duration(factor * float64(ttl))
	var out []nemesis.Step
	for i := 0; i < 3; i++ {
		at := time.Second + time.Duration(i)*(d+ttl+500*ms)
		out = append(out, step(at, nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}, d))
	}
	return out
}

// FencedPause is row 5's setup with the holder paused factor x TTL, three
// times: the fenced lock, a fencing resource, three clients on one node,
// TTL 500 ms. With factor just above 1 the next holder reads before the
// paused holder's delayed write lands and writes after it: the case only
// fenced reads protect (see the README's "What fencing protects").
func FencedPause(factor float64) config.Config {
	ttl := 500 * ms
	c := config.Config{Lock: "fenced", Workload: "counter", Nodes: 1, Clients: 3, TTL: ttl, Fencing: true}
	return scripted(c, 2*time.Second, holderPauses(ttl, factor)...)
}

// kleppmann is the setup of rows 9-11: client c1 cannot reach n4 and n5,
// client c2 cannot reach n1 and n2, both from the start; the one that gets
// the lock holds it long; then node n3, the only node both reach, loses
// the key by the given fault.
func kleppmann(lock string, p cluster.Persistence, f nemesis.Fault, faultAt time.Duration) config.Config {
	ttl := 3 * time.Second
	c := config.Config{Lock: lock, Workload: "counter", Nodes: 5, Clients: 2, TTL: ttl, Persistence: p,
		ClientsStartAt: 300 * ms,
		Workloads:      workloads.Options{HoldMin: 2 * time.Second, HoldMax: 2 * time.Second}}
	whole := 6 * time.Second
	return scripted(c, 2*ttl,
		step(0, nemesis.Fault{Kind: nemesis.KindPartition, Clients: []string{"c1"}, Nodes: []string{"n4", "n5"}}, whole),
		step(0, nemesis.Fault{Kind: nemesis.KindPartition, Clients: []string{"c2"}, Nodes: []string{"n1", "n2"}}, whole),
		step(faultAt, f, 500*ms),
	)
}

// Rows returns the catalogue.
func Rows() []Row {
	rows := append(singleNodeRows(), redlockRows()...)
	rows = append(rows, clusterRows()...)
	return append(rows, processRows()...)
}

// catalogTTL is the TTL of the rows that do not say otherwise.
const catalogTTL = 500 * ms

// counter is a counter run of lock on one node with three clients.
func counter(lock string) config.Config {
	return config.Config{Lock: lock, Workload: "counter", Nodes: 1, Clients: 3, TTL: catalogTTL}
}

// singleNodeRows are rows 1 to 6: one node, the unsafe locks, client
// pauses with and without fencing, and the watchdog.
func singleNodeRows() []Row {
	ttl := catalogTTL
	pauseNoFence := scripted(counter("single"), 2*time.Second, holderPauses(ttl, 2)...)
	// Row 5 pauses 1.1 x TTL, not row 4's 2 x: long enough for the lease
	// to run out and the next holder to read, too short for it to write
	// before the stale write lands. Only fenced reads keep that valid; at
	// 2 x TTL the next holder's write came first and fenced writes sufficed.
	pauseFence := FencedPause(1.1)

	// unsafe-getdel: with a one-way delay d on every link and a hold h
	// with TTL-4d < 2d+h < TTL, the key expires between the holder's GET
	// and its DEL, and a waiter's SET landing in that gap is deleted.
	// Here d = 150 ms and h = 600-660 ms: the gap is 4d+h-TTL = 200-260 ms
	// wide, and four waiters retrying every ~330 ms make landing in it
	// near certain within a few rounds.
	getdel := counter("unsafe-getdel")
	getdel.TTL, getdel.NodeTimeout, getdel.Clients = time.Second, 500*ms, 5
	getdel.Workloads = workloads.Options{HoldMin: 600 * ms, HoldMax: 660 * ms}
	getdel = scripted(getdel, 2*time.Second, step(500*ms, nemesis.Fault{Kind: nemesis.KindLatency, Nodes: []string{"n1"}, Delay: 150 * ms, Jitter: 5 * ms, Stream: cluster.Both}, 7*time.Second))

	nottl := counter("unsafe-nottl")
	nottl.Clients = 2
	nottl = scripted(nottl, 4*time.Second, step(1500*ms, nemesis.Fault{Kind: nemesis.KindClientCrash, Clients: []string{nemesis.TargetHolder}}, ttl))

	renew := counter("renewable")
	renew.Fencing = true
	// Holds of 2 x TTL: the watchdog must renew several times per hold.
	renew.Workloads = workloads.Options{HoldMin: 2 * ttl, HoldMax: 2 * ttl}
	renew = scripted(renew, 2*time.Second,
		step(time.Second, nemesis.Fault{Kind: nemesis.KindPartition, Clients: []string{nemesis.TargetHolder}, Nodes: []string{"n1"}}, 3*ttl),
		step(3*time.Second, nemesis.Fault{Kind: nemesis.KindPartition, Clients: []string{nemesis.TargetHolder}, Nodes: []string{"n1"}}, 3*ttl))

	invalid, valid := checker.Invalid, checker.Valid
	return []Row{
		{N: 1, Lock: "unsafe-del", Fault: "client pause near TTL", Expected: "invalid (resource)", Quick: true,
			Config: scripted(counter("unsafe-del"), 2*time.Second, holderPauses(ttl, 1.3)...),
			Expect: []Expectation{verdict(invalid), checkerIs("resource", invalid)}},
		{N: 2, Lock: "unsafe-getdel", Fault: "latency", Expected: "invalid", Quick: true,
			Config: getdel, Expect: []Expectation{verdict(invalid)}},
		{N: 3, Lock: "unsafe-nottl", Fault: "client crash while holding", Expected: "liveness failure: lock never freed", Quick: true,
			Config: nottl, Expect: []Expectation{anomaly("liveness", "lock-never-freed", "no-recovery"), checkerIs("liveness", invalid)}},
		{N: 4, Lock: "single", Fault: "client pause > TTL, no fencing", Expected: "invalid (resource), lock checker valid", Quick: true,
			Config: pauseNoFence, Expect: []Expectation{verdict(invalid), checkerIs("resource", invalid), checkerIs("lock", valid)}},
		{N: 5, Lock: "fenced", Fault: "client pause > TTL (1.1 x TTL), fencing resource", Expected: "valid: stale reads and writes rejected, none lost", Quick: true,
			Config: pauseFence, Expect: []Expectation{verdict(valid), staleRejected()}},
		{N: 6, Lock: "renewable", Fault: "partition of the holder > TTL", Expected: "watchdog reports loss; holder stops; valid with fencing",
			Config: renew, Expect: []Expectation{verdict(valid), records(history.FLost, history.OK, 1, "lost-lease records")}},
	}
}

// redlockRows are rows 7 to 13: Redlock under partitions, crashes and
// clock jumps, a failover, and the fair queues.
func redlockRows() []Row {
	ttl := catalogTTL
	redlock := config.Config{Lock: "redlock", Workload: "counter", Nodes: 5, Clients: 4, TTL: ttl}
	minority := scripted(redlock, 2*time.Second,
		step(time.Second, nemesis.Fault{Kind: nemesis.KindPartition, Nodes: []string{"n4", "n5"}}, 2*time.Second),
		step(3500*ms, nemesis.Fault{Kind: nemesis.KindCrash, Nodes: []string{"n1"}, RestartDelay: 3 * ttl}, time.Second))
	majority := scripted(redlock, 2*time.Second,
		step(time.Second, nemesis.Fault{Kind: nemesis.KindPartition, Nodes: []string{"n1", "n2", "n3"}}, 3*time.Second))

	crashN3 := nemesis.Fault{Kind: nemesis.KindCrash, Nodes: []string{"n3"}}
	jumpN3 := nemesis.Fault{Kind: nemesis.KindClockJump, Nodes: []string{"n3"}, JumpBy: 10 * time.Second}
	delayed := crashN3
	delayed.RestartDelay = 3500 * ms

	// Row 12: the replication link is cut at 0.3 s and the replica promoted
	// a detection time later; the first holder takes the lock on the old
	// master in between (not replicated), so a second client takes it on
	// the new master while the first lease is alive.
	// A TTL of 5 s leaves room for sentinel's promotion (1 s detection plus
	// up to ~2.5 s) inside the first lease.
	failover := config.Config{Lock: "single", Workload: "counter", Nodes: 1, Clients: 2, TTL: 5 * time.Second,
		ClientsStartAt: 500 * ms, Workloads: workloads.Options{HoldMin: 4500 * ms, HoldMax: 4500 * ms}}
	failover = scripted(failover, 6*time.Second,
		step(300*ms, nemesis.Fault{Kind: nemesis.KindFailover, Shape: string(cluster.FailoverPartition)}, time.Second))

	fairCrash := func(lock string) config.Config {
		c := config.Config{Lock: lock, Workload: "counter", Nodes: 1, Clients: 3, TTL: ttl}
		return scripted(c, 4*time.Second, step(1500*ms, nemesis.Fault{Kind: nemesis.KindClientCrash, Clients: []string{nemesis.TargetWaiter}}, ttl))
	}

	invalid, valid := checker.Invalid, checker.Valid
	return []Row{
		{N: 7, Lock: "redlock", Fault: "partition / crash of a minority", Expected: "valid and available", Quick: true,
			Config: minority, Expect: []Expectation{verdict(valid), acquiresDuring(nemesis.KindPartition, true, 0)}},
		{N: 8, Lock: "redlock", Fault: "partition of a majority", Expected: "valid, unavailable during the fault",
			Config: majority, Expect: []Expectation{verdict(valid), acquiresDuring(nemesis.KindPartition, false, int64(100*ms))}},
		{N: 9, Lock: "redlock", Fault: "crash+restart without persistence", Expected: "invalid (lock checker)", Quick: true,
			Config: kleppmann("redlock", cluster.PersistNone, crashN3, 1200*ms), Expect: []Expectation{checkerIs("lock", invalid)}},
		{N: 10, Lock: "redlock", Fault: "crash+restart with aof-always", Expected: "valid",
			Config: kleppmann("redlock", cluster.PersistAOFAlways, crashN3, 1200*ms), Expect: []Expectation{checkerIs("lock", valid)}},
		{N: 10, Lock: "redlock", Fault: "crash, restart delayed > TTL", Expected: "valid",
			Config: kleppmann("redlock", cluster.PersistNone, delayed, 1200*ms), Expect: []Expectation{checkerIs("lock", valid)}},
		{N: 11, Lock: "redlock", Fault: "clock jump forward on a quorum node", Expected: "invalid (lock checker)", Quick: true,
			Config: kleppmann("redlock", cluster.PersistNone, jumpN3, 1200*ms), Expect: []Expectation{checkerIs("lock", invalid)}},
		{N: 12, Lock: "single", Fault: "failover to an asynchronous replica", Expected: "invalid (lock checker)",
			Config: failover, Expect: []Expectation{checkerIs("lock", invalid)}},
		{N: 13, Lock: "fair-naive", Fault: "waiter crashes in queue", Expected: "liveness failure",
			Config: fairCrash("fair-naive"), Expect: []Expectation{checkerIs("liveness", invalid)}},
		{N: 13, Lock: "fair", Fault: "waiter crashes in queue (fixed version)", Expected: "valid",
			Config: fairCrash("fair"), Expect: []Expectation{verdict(valid)}},
	}
}
