package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
)

func init() {
	Register(Spec{Kind: KindPartition, Order: 10, Needs: []Capability{NeedLinks}, Params: []string{"shape", "nodes", "clients", "links"},
		Busy: partitionStart, Colour: rgb(0x94, 0x67, 0xbd), New: func(env Env) Nemesis { return &Partition{Env: env} }})
}

// KindPartition is a set of links cut.
const KindPartition = "partition"

// Partition shapes.
const (
	// ShapeOneNode cuts one node from every client.
	ShapeOneNode = "one-node"
	// ShapeMinority cuts a minority of the nodes ((N-1)/2, at least one)
	// from every client.
	ShapeMinority = "minority"
	// ShapeMajority cuts a majority of the nodes (N/2+1) from every client.
	ShapeMajority = "majority"
	// ShapeClientFromK cuts one client from k of the nodes, 1 <= k <= N.
	ShapeClientFromK = "client-from-k"
	// ShapeBridge splits the clients into two halves and the nodes into two
	// sides plus one bridge node: each half of the clients is cut from the
	// other half's side and reaches its own side and the bridge, so the
	// bridge node is the only node both halves reach. With 5 nodes each
	// half reaches a majority (its 2 nodes plus the bridge).
	ShapeBridge = "bridge"
)

// PartitionShapes lists every partition shape.
var PartitionShapes = []string{ShapeOneNode, ShapeMinority, ShapeMajority, ShapeClientFromK, ShapeBridge}

// Partition cuts links with Cluster.Cut and heals them with Cluster.Heal.
// Shapes lists the shapes Draw chooses from (default PartitionShapes, and
// on a Redis Cluster one time in three ShapeMasterIsolated, which cuts
// the links between the cluster's nodes: see masterisolated.go); the
// fault lasts a length in the Span (default 0.5 to 3 TTLs); its shortest
// step is the Span's (plus MasterIsolatedBusy when it may isolate a
// master).
type Partition struct {
	Env    Env
	Shapes []string
	Span

	mu       sync.Mutex
	isolated string // the master a master-isolated Start isolated and Stop has not healed
	outcome  string // what the latest master-isolated Start did
}

// Draw picks a shape and its targets and fills in the exact links to cut.
// A bridge needs at least 2 clients and 3 nodes; with fewer it becomes a
// one-node partition.
func (p *Partition) Draw(r *rand.Rand, t Topology) Fault {
	shapes := p.Shapes
	if len(shapes) == 0 {
		shapes = PartitionShapes
		if t.RedisCluster && r.IntN(3) == 0 {
			shapes = ClusterPartitionShapes
		}
	}
	f := Fault{Kind: KindPartition, Shape: pick(r, shapes)}
	n := len(t.Nodes)
	switch f.Shape {
	case ShapeMasterIsolated:
		if t.RedisCluster {
			return p.drawMasterIsolated(r, t)
		}
		f.Shape = ShapeOneNode
		f.Nodes = []string{pick(r, t.Nodes)}
	case ShapeMinority:
		f.Nodes = sample(r, t.Nodes, max(1, (n-1)/2))
	case ShapeMajority:
		f.Nodes = sample(r, t.Nodes, n/2+1)
	case ShapeClientFromK:
		f.Clients = []string{pick(r, t.Clients)}
		f.Nodes = sample(r, t.Nodes, 1+r.IntN(n))
	case ShapeBridge:
		if len(t.Clients) >= 2 && n >= 3 {
			f.Clients, f.Nodes, f.Links = bridge(r, t)
			break
		}
		fallthrough
	default:
		f.Shape = ShapeOneNode
		f.Nodes = []string{pick(r, t.Nodes)}
	}
	if f.Links == nil {
		clients := f.Clients
		if len(clients) == 0 {
			clients = t.Clients
		}
		f.Links = cross(clients, f.Nodes)
	}
	f.Duration = p.draw(r, t, 0.5, 3)
	return f
}

// bridge draws a bridge partition. Nodes lists the bridge node first, then
// side A, then side B; clients lists half A, then half B.
func bridge(r *rand.Rand, t Topology) (clients, nodes []string, links []cluster.Link) {
	cs := shuffled(r, t.Clients)
	ns := shuffled(r, t.Nodes)
	halfA, halfB := cs[:len(cs)/2], cs[len(cs)/2:]
	bridgeNode, rest := ns[0], ns[1:]
	sideA, sideB := rest[:len(rest)/2], rest[len(rest)/2:]
	links = append(cross(halfA, sideB), cross(halfB, sideA)...)
	nodes = append(append([]string{bridgeNode}, sideA...), sideB...)
	return cs, nodes, links
}

// shuffled returns a shuffled copy of xs.
func shuffled(r *rand.Rand, xs []string) []string {
	out := make([]string, len(xs))
	for i, j := range r.Perm(len(xs)) {
		out[i] = xs[j]
	}
	return out
}

// Start cuts the fault's links (isolates a master for
// ShapeMasterIsolated).
func (p *Partition) Start(ctx context.Context, f Fault) error {
	if f.Shape == ShapeMasterIsolated {
		return p.startMasterIsolated(ctx, f)
	}
	ls := links(p.Env.Cluster, f)
	if len(ls) == 0 {
		return fmt.Errorf("%w: partition with no links", ErrBadFault)
	}
	return p.Env.Cluster.Cut(ctx, ls)
}

// Stop heals the fault's links (and an isolated master).
func (p *Partition) Stop(ctx context.Context, f Fault) error {
	if f.Shape == ShapeMasterIsolated {
		return p.stopMasterIsolated(ctx, f)
	}
	return p.Env.Cluster.Heal(ctx, links(p.Env.Cluster, f))
}

// Aim cuts the holder (four times in five) or a waiter (the second of
// every five aims, so that a short run's first aims include one; see
// waiterAim), for 1 to 3 TTLs: the holder from a seeded majority of the
// nodes (n/2+1), so it can neither renew nor release, or (one time in
// three, when the resource is behind the links) from the resource; a
// waiter from a majority, mid-acquire, and for longer than its acquire
// may still wait (Topology.AcquireTimeout and half a TTL): it gives up
// while cut off, so the command that leaves a fair lock's queue is the
// one lost. On a lock that renews by itself (Topology.Renews) two of the
// four holder cuts are timed to a renewal instead (AimRenewal), from the
// nodes: the watchdog's next extension is the one cut off, a whole
// renewal interval before the lease ends.
func (p *Partition) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	aim, ph := AimHolder, TargetHolder
	switch {
	case nth%5 == waiterAim(t):
		aim, ph = AimWaiter, TargetWaiter
	case t.Renews && nth%2 == 1:
		aim, ph = AimRenewal, TargetRenewal
	}
	f = aimClients(f, aim, ph)
	f.Shape = ShapeClientFromK
	if aim == AimHolder && t.Resource != "" && r.IntN(3) == 0 {
		f.Shape = ShapeClientFromResource
		f.Nodes = []string{t.Resource}
	} else {
		f.Nodes = sample(r, t.Nodes, len(t.Nodes)/2+1)
	}
	f.Duration = scaled(r, t.ttl(), 1, 3)
	if aim == AimWaiter {
		f.Duration = t.pastGiveUp(f.Duration)
	}
	return f
}

// waiterAim is which of every five partition aims cuts a waiter: the
// second, or on a lock that renews by itself the fifth, so that its
// first aims are the holder cuts timed to a renewal.
func waiterAim(t Topology) int {
	if t.Renews {
		return 4
	}
	return 1
}

// ShapeClientFromResource cuts one client from the protected resource
// (a targeted partition only).
const ShapeClientFromResource = "client-from-resource"

// MinStep is the Span's shortest window, plus MasterIsolatedBusy on a
// Redis Cluster when Draw may isolate a master.
func (p *Partition) MinStep(t Topology) time.Duration {
	d := p.Span.MinStep(t)
	if t.RedisCluster && (len(p.Shapes) == 0 || slices.Contains(p.Shapes, ShapeMasterIsolated)) {
		d += MasterIsolatedBusy
	}
	return d
}
