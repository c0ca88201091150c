package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
)

func init() {
	Register(Spec{Kind: KindFailover, Order: 80, Needs: []Capability{NeedReplica}, Params: []string{"shape", "nodes", "delay"},
		Busy: failoverStart, Squeeze: squeezeFailover, Colour: rgb(0x1f, 0x3a, 0x93), New: func(env Env) Nemesis { return &Failover{Env: env} }})
}

// KindFailover is the primary's replica promoted.
const KindFailover = "failover"

// FailoverBusy is the time a schedule allows for a failover's start:
// the detection delay plus sentinel's promotion (measured 1 to 2.2 s) with
// room to spare. A failover that could not finish before the final heal
// is not scheduled.
const FailoverBusy = 4 * time.Second

// failoverStart is how long a failover's start takes: FailoverBusy, or
// on a Redis Cluster clusterBusy.
func failoverStart(f Fault) time.Duration {
	if isClusterFailover(f.Shape) {
		return clusterBusy(f)
	}
	return FailoverBusy
}

// ErrUnsupported means the cluster cannot apply a fault: for failover, its
// provider runs no replica (it also wraps cluster.ErrUnsupported).
var ErrUnsupported = errors.New("nemesis: fault not supported by this cluster")

// Failover loses the primary node's master and promotes its asynchronous
// replica (cluster.Replicated.Failover), the single-instance-with-replica
// anomaly (catalogue row 12): a lock granted by the old master and not yet
// replicated is gone on the new one, so a second client can take it.
//
// The fault's Shape states the mechanism as "<method>/<promotion>":
//   - method "kill": the master gets SIGKILL; "partition": the master is
//     cut from its replica and the sentinels (the replication link) but
//     stays alive and reachable by clients until the promotion moves them,
//     so writes it acknowledges meanwhile are lost (split brain);
//   - promotion "sentinel": real redis-sentinel processes detect the
//     master down and promote the replica; "manual": REPLICAOF NO ONE.
//
// Draw fills in the promotion from the cluster (a setting fixed when it
// started, so the plan still depends on the seed and settings only); a
// shape without one accepts the cluster's. Start returns once the clients'
// proxies lead to the promoted replica, which takes the detection time
// (Detect, or the sentinels' 500 ms down-after) plus, with sentinel, up to
// about a second of its failover steps. Stop fails back (Failback): the
// old master resyncs from the new one and takes the role back without
// losing what the new master acknowledged, and the pair is ready for the
// next failover. Nodes names the primary.
//
// Draw picks a method from Methods (default both) and keeps the failover
// in effect for a length in the Span (default 2 to 4 TTLs) after Start.
//
// On a Redis Cluster (Topology.RedisCluster) the shapes are
// ClusterFailoverShapes instead (see clusterfailover.go), drawn from
// ClusterShapes (default all): the replica of the lock key's master is
// promoted with CLUSTER FAILOVER; Stop leaves the roles swapped and waits
// for the cluster to be healthy.
type Failover struct {
	Env           Env
	Methods       []cluster.FailoverMethod
	ClusterShapes []string
	Detect        time.Duration
	Span

	mu      sync.Mutex
	last    cluster.FailoverResult
	cut     string // on a Redis Cluster: the master whose replication Start cut and Stop has not healed
	outcome string // on a Redis Cluster: what the latest Start did
}

// Draw draws a failover of the primary (the first node), or on a Redis
// Cluster of the lock key's master (no node named).
func (n *Failover) Draw(r *rand.Rand, t Topology) Fault {
	if t.RedisCluster {
		return n.drawCluster(r, t)
	}
	methods := n.Methods
	if len(methods) == 0 {
		methods = []cluster.FailoverMethod{cluster.FailoverKill, cluster.FailoverPartition}
	}
	shape := string(methods[r.IntN(len(methods))])
	f := Fault{Kind: KindFailover, Duration: n.draw(r, t, 2, 4)}
	if len(t.Nodes) > 0 {
		f.Nodes = []string{t.Nodes[0]}
	}
	if rep, err := n.replication(); err == nil {
		shape += "/" + string(rep.Promotion())
		f.Nodes = []string{rep.Primary()}
	}
	f.Shape = shape
	return f
}

// replication returns the cluster's replication control.
func (n *Failover) replication() (cluster.Replicated, error) {
	if n.Env.Cluster == nil {
		return nil, fmt.Errorf("%w: no cluster", ErrUnsupported)
	}
	rep, err := cluster.ReplicationOf(n.Env.Cluster)
	if err != nil {
		return nil, fmt.Errorf("%w: failover: %w", ErrUnsupported, err)
	}
	return rep, nil
}

// ParseFailoverShape splits a failover fault's shape into its method and
// promotion ("" when the shape names none).
func ParseFailoverShape(shape string) (cluster.FailoverMethod, cluster.Promotion, error) {
	m, p, _ := strings.Cut(shape, "/")
	method := cluster.FailoverMethod(m)
	switch method {
	case "":
		method = cluster.FailoverKill
	case cluster.FailoverKill, cluster.FailoverPartition:
	default:
		return "", "", fmt.Errorf("%w: failover method must be kill or partition, got %q", ErrBadFault, m)
	}
	switch prom := cluster.Promotion(p); prom {
	case cluster.PromoteAuto, cluster.PromoteSentinel, cluster.PromoteManual:
		return method, prom, nil
	}
	return "", "", fmt.Errorf("%w: failover promotion must be sentinel or manual, got %q", ErrBadFault, p)
}

// Start fails the primary over to its replica (on a Redis Cluster, the
// lock key's master: a cluster shape).
func (n *Failover) Start(ctx context.Context, f Fault) error {
	if isClusterFailover(f.Shape) {
		return n.startCluster(ctx, f)
	}
	if f.Delay != 0 || f.Jitter != 0 {
		return fmt.Errorf("%w: failover %q takes no delay", ErrBadFault, f.Shape)
	}
	method, prom, err := ParseFailoverShape(f.Shape)
	if err != nil {
		return err
	}
	rep, err := n.replication()
	if err != nil {
		return err
	}
	if prom != "" && prom != rep.Promotion() {
		return fmt.Errorf("%w: failover by %s, but the cluster promotes by %s", ErrBadFault, prom, rep.Promotion())
	}
	if len(f.Nodes) > 0 && (len(f.Nodes) != 1 || f.Nodes[0] != rep.Primary()) {
		return fmt.Errorf("%w: failover of %v, but only %s has a replica", ErrBadFault, f.Nodes, rep.Primary())
	}
	res, err := rep.Failover(ctx, cluster.FailoverOptions{Method: method, Detect: n.Detect})
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.last = res
	n.mu.Unlock()
	return nil
}

// Stop fails back; nothing to do when the cluster has no replica or no
// failover is in effect. On a Redis Cluster it heals the replication an
// unreplicated failover cut and waits for the cluster to be healthy.
func (n *Failover) Stop(ctx context.Context, f Fault) error {
	if isClusterFailover(f.Shape) {
		return n.stopCluster(ctx)
	}
	rep, err := n.replication()
	if err != nil {
		return nil // Start applied nothing
	}
	return rep.Failback(ctx)
}

// Last is the result of the latest successful Start (how long the
// promotion took, which processes swapped).
func (n *Failover) Last() cluster.FailoverResult {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
}

// Outcome describes what the latest Start did (the runner adds it to the
// fault's start record), e.g. "partition at +40ms, promoted by sentinel in 2.1s".
func (n *Failover) Outcome(f Fault) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if isClusterFailover(f.Shape) {
		return n.outcome
	}
	if n.last.Promotion == "" {
		return ""
	}
	return n.last.String()
}

// Aim times a failover right after a lease was granted, before the key
// is replicated; its target stays the primary.
func (n *Failover) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f.Target = AimLease
	return f
}

// MinStep is FailoverBusy (on a Redis Cluster ClusterFailoverBusy: an
// unreplicated failover's Delay can be squeezed to 0) plus the shortest
// time the failover stays in effect (MinTTLs, default 2 TTLs).
func (n *Failover) MinStep(t Topology) time.Duration {
	if t.RedisCluster {
		return ClusterFailoverBusy + ttls(t, n.least(2))
	}
	return FailoverBusy + ttls(t, n.least(2))
}
