package nemesis

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/lockstorm/lockstorm/history"
)

// Catalogue row 12 through the nemesis: during a partition failover the
// old master still grants c1 the lock, the promoted replica never hears of
// it, and c2 then takes the same lock through the same proxy address.
// Stop fails back to n1, which keeps c2's lock.
func TestFailoverLockLost(t *testing.T) {
	c := clustertest.StartReplicated(t, local.Config{Clients: []string{"c1", "c2"}, ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteManual}})
	ctx := clustertest.Context(t, 20*time.Second)
	nem := &Failover{Env: Env{Cluster: c}, Detect: 500 * time.Millisecond}
	f := Fault{Kind: KindFailover, Shape: "partition/manual", Nodes: []string{"n1"}}

	done := make(chan error, 1)
	go func() { done <- nem.Start(ctx, f) }()
	time.Sleep(100 * time.Millisecond) // the link is cut; promotion 400 ms away
	c1 := clustertest.Dial(t, c, "c1", "n1", opTimeout)
	if ok, err := c1.SetNX(ctx, "lock", "tok1", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("c1 acquire on the partitioned master: %v, %v", ok, err)
	}
	select {
	case err := <-done:
		t.Fatalf("failover finished (%v) before c1's acquire could be checked", err)
	default:
	}
	clustertest.Must(t, <-done)
	t.Logf("failover: %v", nem.Last())
	c2 := clustertest.Dial(t, c, "c2", "n1", opTimeout)
	if ok, err := c2.SetNX(ctx, "lock", "tok2", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("c2 acquire after failover: %v, %v; want the lock lost and granted again", ok, err)
	}

	stopAt := time.Now()
	clustertest.Must(t, nem.Stop(ctx, f))
	t.Logf("failback took %v", time.Since(stopAt).Round(time.Millisecond))
	if err := nem.Stop(ctx, f); err != nil { // idempotent
		t.Fatal(err)
	}
	if got, err := clustertest.Admin(t, c, "n1", opTimeout).Get(ctx, "lock").Result(); err != nil || got != "tok2" {
		t.Fatalf("n1 after failback holds %q, %v; want the new master's tok2", got, err)
	}
	if m, _ := c.MasterAddr(); m != mustAddr(t, c) {
		t.Fatalf("clients lead to %s after Stop, want n1", m)
	}
}

func mustAddr(t *testing.T, c cluster.Cluster) string {
	t.Helper()
	a, err := c.AdminAddr("n1")
	clustertest.Must(t, err)
	return a
}

// With sentinel, a drawn failover names its mechanism in the history
// record, goes through the sentinels, and is healed by the runner.
func TestFailoverSentinelRecorded(t *testing.T) {
	c := clustertest.StartReplicated(t, local.Config{Nodes: 3, Clients: []string{"c1"}, ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteSentinel}})
	set := New(Env{Cluster: c})
	nem := set[KindFailover].(*Failover)
	f := nem.Draw(NewRand(3), Env{Cluster: c}.Topology(time.Second))
	if !strings.HasSuffix(f.Shape, "/sentinel") || len(f.Nodes) != 1 || f.Nodes[0] != "n1" {
		t.Fatalf("drawn fault %v", f)
	}
	rec := history.NewRecorder(nil)
	defer rec.Close()
	run := &Runner{Set: set, Cluster: c, Rec: rec}
	p := Scripted(0, Step{At: 0, Duration: 300 * time.Millisecond, Fault: f})
	start := time.Now()
	clustertest.Must(t, run.Run(clustertest.Context(t, 20*time.Second), p))
	t.Logf("failover %q, then failback and heal, in %v; promotion took %v",
		f.Shape, time.Since(start).Round(time.Millisecond), nem.Last().Took.Round(time.Millisecond))
	if res := nem.Last(); res.Promotion != cluster.PromoteSentinel {
		t.Fatalf("result %+v, want a sentinel promotion", res)
	}
	ops := checkNemesisRecords(t, rec.History())
	for _, op := range ops {
		if op.Type != history.OK {
			t.Errorf("nemesis op not ok: %+v", op)
		}
	}
	if ops[0].Fault != KindFailover || !strings.Contains(ops[0].Detail, "shape="+f.Shape) {
		t.Errorf("start record %+v does not state the mechanism %q", ops[0], f.Shape)
	}
	if m, _ := c.MasterAddr(); m != mustAddr(t, c) {
		t.Fatalf("clients lead to %s after the run, want n1", m)
	}
	checkHealed(t, c)
}

// A cluster without a replica cannot fail over: Start says so, Stop is a
// no-op; bad shapes are refused.
func TestFailoverUnsupported(t *testing.T) {
	c := startCluster(t, 1, "c1")
	nem := &Failover{Env: Env{Cluster: c}}
	f := nem.Draw(NewRand(1), Env{Cluster: c}.Topology(time.Second))
	if strings.Contains(f.Shape, "/") {
		t.Fatalf("shape %q names a promotion without a replica", f.Shape)
	}
	err := nem.Start(clustertest.Context(t, 20*time.Second), f)
	if !errors.Is(err, ErrUnsupported) || !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("Start = %v, want ErrUnsupported", err)
	}
	if err := nem.Stop(clustertest.Context(t, 20*time.Second), f); err != nil {
		t.Fatalf("Stop after unsupported Start: %v", err)
	}
	for _, s := range []string{"melt", "kill/oracle"} {
		if _, _, err := ParseFailoverShape(s); !errors.Is(err, ErrBadFault) {
			t.Errorf("shape %q: %v, want ErrBadFault", s, err)
		}
	}
	if m, p, err := ParseFailoverShape("partition/sentinel"); err != nil || m != cluster.FailoverPartition || p != cluster.PromoteSentinel {
		t.Errorf("parse partition/sentinel = %q %q %v", m, p, err)
	}
}

// A fault asking for sentinel is refused by a cluster that promotes by
// hand, so that the record never misstates the mechanism.
func TestFailoverPromotionMismatch(t *testing.T) {
	c := clustertest.StartReplicated(t, local.Config{Clients: []string{"c1"}, ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteManual}})
	nem := &Failover{Env: Env{Cluster: c}}
	err := nem.Start(clustertest.Context(t, 20*time.Second), Fault{Kind: KindFailover, Shape: "kill/sentinel", Nodes: []string{"n1"}})
	if !errors.Is(err, ErrBadFault) {
		t.Fatalf("Start = %v, want ErrBadFault", err)
	}
	if c.Pid("n1") == 0 {
		t.Fatal("a refused failover killed n1")
	}
}
