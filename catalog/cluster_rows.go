package catalog

import (
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// clusterSplit is the setup of rows 14 and 16 on a 3-master Redis Cluster
// for lock: two clients, leases of 5 s held 4.5 s (so the first holder's
// lease is alive through the fault), clients starting at 0.5 s, after the
// fault at 0.3 s has cut the lock key's master from its replica.
func clusterSplit(lock string, f nemesis.Fault, d time.Duration) config.Config {
	c := config.Config{Lock: lock, Topology: config.TopologyCluster, Workload: "counter", Nodes: 3, Clients: 2,
		TTL: 5 * time.Second, NodeTimeout: 500 * ms, ClientsStartAt: 500 * ms,
		Workloads: workloads.Options{HoldMin: 4500 * ms, HoldMax: 4500 * ms}}
	return scripted(c, 6*time.Second, step(300*ms, f, d))
}

// MasterIsolated is row 16's fault: the lock key's master cut from the
// other masters and from its replica (its cluster bus and its replication)
// and from client c2, while c1 still reaches it; the cluster promotes its
// replica after cluster-node-timeout.
func MasterIsolated(lock string) config.Config {
	return clusterSplit(lock, nemesis.Fault{Kind: nemesis.KindPartition, Shape: nemesis.ShapeMasterIsolated, Clients: []string{"c2"}}, 4*time.Second)
}

// clusterRows are the rows on a real Redis Cluster (--topology cluster).
func clusterRows() []Row {
	invalid, valid := checker.Invalid, checker.Valid

	// Row 14: the key's master runs unreplicated for a second (its
	// replication cut at 0.3 s), the first holder takes the lock on it at
	// 0.5 s, then its replica is forced to take over: the lock is gone on
	// the new master and the second client takes it while the first lease
	// is alive. The cluster twin of row 12.
	unreplicated := clusterSplit("single", nemesis.Fault{Kind: nemesis.KindFailover, Shape: nemesis.ShapeClusterUnreplicated, Delay: time.Second}, time.Second)

	// Row 15: the fenced lock with a fencing resource while the lock key's
	// slot moves between the masters five times, each while the lock is
	// held: MIGRATE carries the key with its TTL and the fence counter, so
	// no lease is lost or doubled and the fences keep increasing.
	ttl := 500 * ms
	migrations := config.Config{Lock: "fenced", Fencing: true, Topology: config.TopologyCluster, Workload: "counter",
		Nodes: 3, Clients: 3, TTL: ttl}
	var steps []nemesis.Step
	for i, to := range []string{"n1", "n2", "n3", "n1", "n2"} {
		steps = append(steps, step(time.Second+time.Duration(i)*time.Second,
			nemesis.Fault{Kind: nemesis.KindSlotMigrate, Nodes: []string{to}, Target: nemesis.AimLease}, 500*ms))
	}
	migrations = scripted(migrations, 2*time.Second, steps...)

	return []Row{
		{N: 14, Lock: "single", Fault: "Redis Cluster: failover of the lock's master, key not yet replicated", Expected: "invalid (lock checker)", Quick: true,
			Config: unreplicated, Expect: []Expectation{checkerIs("lock", invalid)}},
		{N: 15, Lock: "fenced", Fault: "Redis Cluster, hash tags: slot migrations during holds, fencing resource", Expected: "valid: no lock or fence lost or doubled", Quick: true,
			Config: migrations, Expect: []Expectation{verdict(valid), checkerIs("fencing", valid)}},
		// Row 16, measured: the brief expected invalid. With WAIT 1 the
		// isolated master, cut from its replica, grants nothing (no WAIT
		// is acknowledged): the lock is unavailable until the fault ends,
		// not unsafe. Without WAIT the isolated master grants c1 a lease
		// the promoted replica never saw, and c2 takes the lock there.
		{N: 16, Lock: "single-wait", Fault: "Redis Cluster, WAIT 1 after each acquire: master isolated with client c1, failover", Expected: "valid: unavailable during the split (measured; the brief expected invalid)",
			Config: MasterIsolated("single-wait"), Expect: []Expectation{verdict(valid)}},
		{N: 16, Lock: "single", Fault: "the same without WAIT", Expected: "invalid (lock checker)",
			Config: MasterIsolated("single"), Expect: []Expectation{checkerIs("lock", invalid)}},
	}
}
