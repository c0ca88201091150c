package nemesis

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/history"
)

func TestFlushDraw(t *testing.T) {
	tp := topo3("c1")
	hit := map[string]bool{}
	for _, f := range draws(&Flush{}, 8, tp, 50) {
		if f.Kind != KindFlush || len(f.Nodes) != 1 || len(f.Clients) != 0 || f.Duration != tp.TTL {
			t.Fatalf("flush %v: want one node and a window of one TTL", f)
		}
		hit[f.Nodes[0]] = true
	}
	if len(hit) != 3 {
		t.Errorf("50 flushes hit nodes %v, want all 3", hit)
	}
	if a := (&Flush{}).Aim(NewRand(8), Fault{Kind: KindFlush, Nodes: []string{"n2"}}, tp, 0); !slices.Equal(a.Nodes, []string{TargetLease}) || a.Target != AimLease {
		t.Errorf("aimed flush %v: want the lease's nodes", a)
	}
}

// Run through the Runner as the harness runs it: the flushed node loses
// every key (lock keys with a TTL too) while its connections stay up and
// it keeps answering; the other nodes keep theirs. The start's record
// names the node as a field and says how many keys it lost; Stop restores
// nothing and leaves the node serving.
func TestFlushLosesKeysWithoutDowntime(t *testing.T) {
	c := startCluster(t, 3, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	n1, n2 := clustertest.Admin(t, c, "n1", opTimeout), clustertest.Admin(t, c, "n2", opTimeout)
	clustertest.Must(t, n1.Set(ctx, "lock", "tok", time.Minute).Err())
	clustertest.Must(t, n1.Set(ctx, "fence", 7, 0).Err())
	clustertest.Must(t, n2.Set(ctx, "lock", "tok", time.Minute).Err())
	conn := clustertest.Dial(t, c, "c1", "n1", opTimeout)
	clustertest.Must(t, conn.Ping(ctx).Err()) // a connection open before the flush

	rec := history.NewRecorder(nil)
	defer rec.Close()
	f := Fault{Kind: KindFlush, Nodes: []string{"n1"}}
	run := &Runner{Set: New(Env{Cluster: c}), Cluster: c, Rec: rec}
	clustertest.Must(t, run.Run(ctx, Scripted(0, Step{Fault: f, Duration: 50 * time.Millisecond})))

	if n, err := n1.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Errorf("n1 DBSIZE after the flush = %d, %v; want 0", n, err)
	}
	if ttl, err := n2.PTTL(ctx, "lock").Result(); err != nil || ttl <= 0 {
		t.Errorf("n2's lock after a flush of n1: PTTL %v, %v; want it kept", ttl, err)
	}
	if err := conn.Set(ctx, "after", "v", 0).Err(); err != nil {
		t.Errorf("the connection opened before the flush failed after it: %v", err)
	}
	var start *history.Op
	ops := checkNemesisRecords(t, rec.History())
	for i, op := range ops {
		if op.F == history.FStart && op.Type == history.OK {
			start = &ops[i]
		}
		if op.Type != history.OK {
			t.Errorf("nemesis op not ok: %+v", op)
		}
	}
	if start == nil || !slices.Equal(start.Nodes, []string{"n1"}) || start.Fault != KindFlush ||
		!strings.HasSuffix(start.Detail, "(n1 lost 2 keys)") {
		t.Errorf("flush start record %+v: want Nodes [n1] and the keys lost in its Detail", start)
	}
	if count(ops, history.FStop) != 1 {
		t.Errorf("ops %+v: want the flush stopped once", ops)
	}
	if v, err := n1.Get(ctx, "after").Result(); err != nil || v != "v" {
		t.Errorf("n1 after the stop: GET = %q, %v; want the key written after the flush", v, err)
	}
}

// A flush with no node is refused, and a flush of a node that is not
// there fails without touching the others.
func TestFlushRefusesBadTargets(t *testing.T) {
	c := startCluster(t, 1, "c1")
	ctx := clustertest.Context(t, 20*time.Second)
	fl := &Flush{Env: Env{Cluster: c}}
	if err := fl.Start(ctx, Fault{Kind: KindFlush}); err == nil || !strings.Contains(err.Error(), "at least one node") {
		t.Errorf("flush of no node: %v", err)
	}
	clustertest.Must(t, clustertest.Admin(t, c, "n1", opTimeout).Set(ctx, "k", "v", 0).Err())
	if err := fl.Start(ctx, Fault{Kind: KindFlush, Nodes: []string{"n9"}}); err == nil {
		t.Error("flush of n9 in a one-node cluster succeeded")
	}
	if n, _ := clustertest.Admin(t, c, "n1", opTimeout).DBSize(ctx).Result(); n != 1 {
		t.Errorf("n1 holds %d keys after a failed flush of n9, want 1", n)
	}
}
