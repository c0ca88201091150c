package nemesis

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
	"github.com/lockstorm/lockstorm/history"
)

// A Redis Cluster is what the cluster faults need.
var _ RedisCluster = (*rediscluster.Cluster)(nil)

// testKey is the lock's key on a Redis Cluster, as the harness names it.
const testKey = "lock:{lockstorm}"

// startRedisCluster starts a Redis Cluster of 3 masters with a replica
// each and the default node timeout (1 s), stopped when the test ends;
// it skips when redis-server is missing.
func startRedisCluster(t *testing.T, clients ...string) *rediscluster.Cluster {
	t.Helper()
	return clustertest.StartRedisCluster(t, rediscluster.Config{Clients: clients})
}

// clusterEnv is the Env of a Redis Cluster whose lock key is testKey.
func clusterEnv(c *rediscluster.Cluster) Env { return Env{Cluster: c, Key: testKey} }

// keyRoles returns the master of testKey's slot and its replica.
func keyRoles(t *testing.T, ctx context.Context, c *rediscluster.Cluster) (master, replica string) {
	t.Helper()
	master, err := c.MasterOf(ctx, rediscluster.SlotOf(testKey))
	clustertest.Must(t, err)
	replica, err = c.ReplicaOf(ctx, master)
	clustertest.Must(t, err)
	return master, replica
}

// waitInternalFault polls until the cluster reports the fault on the
// links between its nodes (InternalFaults), or fails the test.
func waitInternalFault(t *testing.T, ctx context.Context, c *rediscluster.Cluster, fault string) {
	t.Helper()
	for !slices.Contains(c.InternalFaults(), fault) {
		if ctx.Err() != nil {
			t.Fatalf("no internal fault %q (have %v)", fault, c.InternalFaults())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// clusterTopo is a Redis Cluster of 3 masters and 3 clients.
func clusterTopo() Topology {
	return Topology{Nodes: []string{"n1", "n2", "n3"}, Clients: []string{"c1", "c2", "c3"}, TTL: time.Second, RedisCluster: true}
}

// On a Redis Cluster, failovers draw only the cluster's shapes, aimed at
// the lock key's master (no node); partitions draw master-isolated
// sometimes, with a proper part of the clients or none, and the old
// shapes otherwise; slot migrations name a node of the topology. What is
// drawn and aimed uses only registered fields. A standalone topology
// never draws a cluster shape.
func TestRedisClusterDraws(t *testing.T) {
	set, tp := New(Env{}), clusterTopo()
	r := NewRand(5)
	shapes := map[string]int{}
	for i := 0; i < 300; i++ {
		for _, k := range []string{KindFailover, KindPartition, KindSlotMigrate} {
			f := set[k].Draw(r, tp)
			shapes[f.Kind+" "+f.Shape]++
			if err := checkParams(f); err != nil {
				t.Fatalf("drawn %v: %v", f, err)
			}
			if err := checkParams(set[k].(Targeter).Aim(r, f, tp, i)); err != nil {
				t.Fatalf("aimed %v: %v", f, err)
			}
			switch {
			case k == KindFailover:
				if !slices.Contains(ClusterFailoverShapes, f.Shape) || len(f.Nodes) != 0 {
					t.Fatalf("failover on a Redis Cluster: %v, want a cluster shape and no node", f)
				}
				if unrep := f.Shape == ShapeClusterUnreplicated; unrep != (f.Delay > 0) || f.Delay > tp.TTL {
					t.Fatalf("failover %v: want a delay of at most a TTL exactly when unreplicated", f)
				}
			case f.Shape == ShapeMasterIsolated:
				if len(f.Nodes) != 0 || len(f.Links) != 0 || len(f.Clients) >= len(tp.Clients) {
					t.Fatalf("master-isolated %v: want no node, no links, not every client", f)
				}
			case k == KindSlotMigrate:
				if len(f.Nodes) != 1 || !slices.Contains(tp.Nodes, f.Nodes[0]) {
					t.Fatalf("slot-migrate %v: want one node of %v", f, tp.Nodes)
				}
			}
		}
	}
	for _, s := range ClusterFailoverShapes {
		if shapes[KindFailover+" "+s] == 0 {
			t.Errorf("no failover %s in 300 draws: %v", s, shapes)
		}
	}
	if n := shapes[KindPartition+" "+ShapeMasterIsolated]; n < 60 || n > 150 {
		t.Errorf("%d of 300 partitions isolate a master, want about a third", n)
	}
	if shapes[KindPartition+" "+ShapeOneNode] == 0 {
		t.Errorf("no one-node partition on a Redis Cluster: %v", shapes)
	}
	standalone := tp
	standalone.RedisCluster = false
	for _, f := range append(draws(set[KindPartition], 5, standalone, 300), draws(set[KindFailover], 5, standalone, 50)...) {
		if f.Shape == ShapeMasterIsolated || isClusterFailover(f.Shape) {
			t.Fatalf("standalone drew %v", f)
		}
	}
}

// The shortest fault phase holds one fault of each kind of a Redis
// Cluster, with the starts of the failover and of master-isolated
// partitions (Spec.Busy) counted, for many seeds, aimed or not.
func TestRedisClusterScheduleFits(t *testing.T) {
	set := New(Env{})
	kinds := Supported(NeedLinks, NeedProcess, NeedAdmin, NeedOwnData, NeedReplica, NeedRedisCluster)
	for _, ks := range [][]string{kinds, {KindPartition}, {KindFailover}, {KindSlotMigrate}} {
		for _, aim := range []float64{0, 0.8} {
			o := Options{Kinds: ks, Topology: clusterTopo(), WarmUp: time.Second, TargetHolder: aim,
				MinInterval: 500 * time.Millisecond, MaxInterval: 1500 * time.Millisecond}
			need, err := MinFaultPhase(set, o, ks...)
			clustertest.Must(t, err)
			for _, extra := range []time.Duration{0, 20 * time.Second} {
				o.Faults = need + extra
				for seed := uint64(1); seed <= 100; seed++ {
					p, err := Schedule(NewRand(seed), set, o)
					if err != nil {
						t.Fatalf("%v seed %d: %v", ks, seed, err)
					}
					for i, s := range p.Steps {
						if s.At < o.WarmUp || s.end() > p.HealAt || s.Duration < 0 || s.Fault.Delay < 0 {
							t.Fatalf("%v seed %d: step %d %+v outside [%v, %v]", ks, seed, i, s, o.WarmUp, p.HealAt)
						}
					}
					for _, k := range ks {
						if !p.Uses(k) {
							t.Fatalf("%v seed %d: no %s in %+v", ks, seed, k, p.Steps)
						}
					}
				}
			}
		}
	}
}

// On a cluster that is not a Redis Cluster the cluster faults refuse to
// start with ErrUnsupported, and their Stop does nothing.
func TestRedisClusterFaultsUnsupported(t *testing.T) {
	c := startCluster(t, 1, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	env := Env{Cluster: c, Key: testKey}
	for _, x := range []struct {
		nem Nemesis
		f   Fault
	}{
		{&Failover{Env: env}, Fault{Kind: KindFailover, Shape: ShapeClusterForce}},
		{&Partition{Env: env}, Fault{Kind: KindPartition, Shape: ShapeMasterIsolated}},
		{&SlotMigrate{Env: env}, Fault{Kind: KindSlotMigrate, Nodes: []string{"n1"}}},
	} {
		if err := x.nem.Start(ctx, x.f); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%v on a local cluster: %v, want ErrUnsupported", x.f, err)
		}
		if err := x.nem.Stop(ctx, x.f); err != nil {
			t.Errorf("stop %v: %v", x.f, err)
		}
	}
	if tp := env.Topology(time.Second); tp.RedisCluster {
		t.Error("a local cluster's topology says Redis Cluster")
	}
	if got := c.Proxies().Faulty(); len(got) > 0 {
		t.Errorf("faulty links: %v", got)
	}
}

// A short random plan of the Redis Cluster faults, drawn from the
// cluster's topology (a seed whose plan isolates a master and fails one
// over unreplicated), runs through the Runner as the harness runs it:
// every start and stop is ok, each start's record says what it did, and
// the cluster is left healthy with nothing faulty.
func TestRedisClusterRandomPlan(t *testing.T) {
	c := startRedisCluster(t, "c1", "c2")
	env := clusterEnv(c)
	set := New(env)
	kinds := []string{KindFailover, KindPartition, KindSlotMigrate}
	o := Options{Kinds: kinds, Topology: env.Topology(200 * time.Millisecond), WarmUp: 100 * time.Millisecond,
		MinInterval: 50 * time.Millisecond, MaxInterval: 150 * time.Millisecond}
	if !o.Topology.RedisCluster {
		t.Fatal("a Redis Cluster's topology does not say so")
	}
	least, err := MinFaultPhase(set, o, kinds...)
	clustertest.Must(t, err)
	o.Faults = least + 100*time.Millisecond
	var p Plan
	for seed := uint64(1); ; seed++ {
		p, err = Schedule(NewRand(seed), set, o)
		clustertest.Must(t, err)
		shapes := map[string]bool{}
		for _, s := range p.Steps {
			shapes[s.Fault.Shape] = true
		}
		if shapes[ShapeMasterIsolated] && shapes[ShapeClusterUnreplicated] {
			t.Logf("seed %d: %d steps in %v", seed, len(p.Steps), p.HealAt)
			break
		}
	}
	rec := history.NewRecorder(nil)
	defer rec.Close()
	ctx, cancel := context.WithTimeout(context.Background(), p.HealAt+40*time.Second)
	defer cancel()
	run := &Runner{Set: set, Cluster: c, Rec: rec, Logf: t.Logf}
	clustertest.Must(t, run.Run(ctx, p))
	ops := checkNemesisRecords(t, rec.History())
	if count(ops, history.FStart) != len(p.Steps) || count(ops, history.FStop) != len(p.Steps) {
		t.Errorf("%d steps but ops %+v", len(p.Steps), ops)
	}
	for _, op := range ops {
		if op.Type != history.OK {
			t.Errorf("nemesis op not ok: %+v", op)
		}
		if op.F != history.FStart {
			continue
		}
		t.Logf("%v: %s", time.Duration(op.Time).Round(time.Millisecond), op.Detail)
		if want := map[string]string{KindSlotMigrate: " moved from "}[op.Fault]; !strings.Contains(op.Detail, cmp.Or(want, " promoted ")) {
			t.Errorf("start record %q does not say what the fault did", op.Detail)
		}
	}
	clustertest.Must(t, c.WaitHealthy(ctx))
	if got := c.InternalFaults(); len(got) > 0 {
		t.Errorf("faults between the nodes after the run: %v", got)
	}
	if got := c.Proxies().Faulty(); len(got) > 0 {
		t.Errorf("faulty client links after the run: %v", got)
	}
}
