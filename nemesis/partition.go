package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/lockstorm/lockstorm/cluster"
)

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
// Shapes lists the shapes Draw chooses from (default PartitionShapes); the
// fault lasts MinTTLs to MaxTTLs times the TTL (default 0.5 to 3).
type Partition struct {
	Env              Env
	Shapes           []string
	MinTTLs, MaxTTLs float64
}

// Kind returns "partition".
func (*Partition) Kind() string { return KindPartition }

// Draw picks a shape and its targets and fills in the exact links to cut.
// A bridge needs at least 2 clients and 3 nodes; with fewer it becomes a
// one-node partition.
func (p *Partition) Draw(r *rand.Rand, t Topology) Fault {
	shapes := p.Shapes
	if len(shapes) == 0 {
		shapes = PartitionShapes
	}
	f := Fault{Kind: KindPartition, Shape: pick(r, shapes)}
	n := len(t.Nodes)
	switch f.Shape {
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
	lo, hi := p.MinTTLs, p.MaxTTLs
	if hi == 0 {
		lo, hi = 0.5, 3
	}
	f.Duration = scaled(r, t.ttl(), lo, hi)
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

// Start cuts the fault's links.
func (p *Partition) Start(ctx context.Context, f Fault) error {
	ls := links(p.Env.Cluster, f)
	if len(ls) == 0 {
		return fmt.Errorf("%w: partition with no links", ErrBadFault)
	}
	return p.Env.Cluster.Cut(ctx, ls)
}

// Stop heals the fault's links.
func (p *Partition) Stop(ctx context.Context, f Fault) error {
	return p.Env.Cluster.Heal(ctx, links(p.Env.Cluster, f))
}
