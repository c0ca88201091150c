package nemesis

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

// cutSet indexes a fault's links.
func cutSet(f Fault) map[cluster.Link]bool {
	m := map[cluster.Link]bool{}
	for _, l := range f.Links {
		m[l] = true
	}
	return m
}

func TestPartitionShapes(t *testing.T) {
	tp := Topology{Nodes: []string{"n1", "n2", "n3", "n4", "n5"}, Clients: []string{"c1", "c2", "c3", "c4"}, TTL: time.Second}
	r := NewRand(1)
	for _, shape := range PartitionShapes {
		p := &Partition{Shapes: []string{shape}}
		for i := 0; i < 30; i++ {
			f := p.Draw(r, tp)
			if f.Shape != shape {
				t.Fatalf("drew shape %q, want %q", f.Shape, shape)
			}
			if f.Duration < 500*time.Millisecond || f.Duration > 3*time.Second {
				t.Errorf("%s: duration %v outside [0.5, 3] TTL", shape, f.Duration)
			}
			cut := cutSet(f)
			switch shape {
			case ShapeOneNode, ShapeMinority, ShapeMajority:
				want := map[string]int{ShapeOneNode: 1, ShapeMinority: 2, ShapeMajority: 3}[shape]
				if len(f.Nodes) != want || len(cut) != want*len(tp.Clients) {
					t.Fatalf("%s: nodes %v, %d links", shape, f.Nodes, len(cut))
				}
				for _, c := range tp.Clients {
					for _, n := range f.Nodes {
						if !cut[cluster.Link{Client: c, Target: n}] {
							t.Fatalf("%s: %s>%s not cut", shape, c, n)
						}
					}
				}
			case ShapeClientFromK:
				if len(f.Clients) != 1 || len(f.Nodes) < 1 || len(cut) != len(f.Nodes) {
					t.Fatalf("client-from-k: %v", f)
				}
				for l := range cut {
					if l.Client != f.Clients[0] || !slices.Contains(f.Nodes, l.Target) {
						t.Fatalf("client-from-k cuts %v", l)
					}
				}
			case ShapeBridge:
				checkBridge(t, tp, f)
			}
		}
	}
}

// checkBridge: exactly one node is reachable by every client, each client
// reaches a majority with 5 nodes, and the clients fall in two halves that
// reach different sets of nodes.
func checkBridge(t *testing.T, tp Topology, f Fault) {
	t.Helper()
	cut := cutSet(f)
	reach := map[string][]string{}
	common := 0
	for _, n := range tp.Nodes {
		all := true
		for _, c := range tp.Clients {
			if !cut[cluster.Link{Client: c, Target: n}] {
				reach[c] = append(reach[c], n)
			} else {
				all = false
			}
		}
		if all {
			common++
		}
	}
	if common != 1 {
		t.Fatalf("bridge %v: %d nodes reachable by all clients, want 1", f, common)
	}
	groups := map[string]int{}
	for _, c := range tp.Clients {
		if len(reach[c]) != 3 {
			t.Fatalf("bridge %v: %s reaches %v, want 3 of 5", f, c, reach[c])
		}
		groups[strings.Join(reach[c], ",")]++
	}
	if len(groups) != 2 {
		t.Fatalf("bridge %v: %d client groups, want 2", f, len(groups))
	}
}

func TestPartitionBridgeFallsBack(t *testing.T) {
	f := (&Partition{Shapes: []string{ShapeBridge}}).Draw(NewRand(3), topo3("c1"))
	if f.Shape != ShapeOneNode || len(f.Nodes) != 1 {
		t.Errorf("bridge with one client: %v, want one-node", f)
	}
}

// During a partition of n2 nothing reaches n2 from any client while n1
// works; after Stop, n2 is reachable again.
func TestPartitionOneNode(t *testing.T) {
	c := startCluster(t, 3, "c1", "c2")
	ctx := clustertest.Context(t, 20*time.Second)
	p := &Partition{Env: Env{Cluster: c}}
	f := Fault{Kind: KindPartition, Shape: ShapeOneNode, Nodes: []string{"n2"}}
	clustertest.Must(t, p.Start(ctx, f))
	for _, cl := range c.Clients() {
		if reachable(t, c, cl, "n2") {
			t.Errorf("%s reached n2 during the partition", cl)
		}
		if !reachable(t, c, cl, "n1") {
			t.Errorf("%s could not reach n1 during a partition of n2", cl)
		}
	}
	clustertest.Must(t, p.Stop(ctx, f))
	for _, cl := range c.Clients() {
		if !reachable(t, c, cl, "n2") {
			t.Errorf("%s cannot reach n2 after the heal", cl)
		}
	}
	if got := c.Proxies().Faulty(); len(got) != 0 {
		t.Errorf("faulty links after Stop: %v", got)
	}
}
