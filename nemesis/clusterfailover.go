package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/cluster/rediscluster"
	"github.com/lockstorm/lockstorm/internal/ctxtime"
)

// A failover on a Redis Cluster (Topology.RedisCluster, Env.Cluster a
// RedisCluster) promotes the replica of the master that owns the lock
// key's slot (Env.Key), or of the master the fault's one node names, with
// CLUSTER FAILOVER sent to the replica. Its shapes:
const (
	// ShapeClusterCoordinated: CLUSTER FAILOVER, agreed with the master:
	// the master stops its clients until the replica has caught up, so
	// nothing acknowledged is lost; the clients are moved (MOVED).
	ShapeClusterCoordinated = "cluster/coordinated"
	// ShapeClusterForce: CLUSTER FAILOVER FORCE: the replica is elected by
	// the other masters at once, with whatever it has replicated; the old
	// master serves its clients until it hears of the promotion (a few
	// milliseconds on a healthy bus), then turns the new one's replica.
	ShapeClusterForce = "cluster/force"
	// ShapeClusterTakeover: CLUSTER FAILOVER TAKEOVER: the replica takes
	// the slots on its own authority, without an election.
	ShapeClusterTakeover = "cluster/takeover"
	// ShapeClusterUnreplicated: the master's replication is cut, the
	// master goes on acknowledging writes for the fault's Delay, then its
	// replica is promoted by FORCE: every write acknowledged since the
	// cut is lost (catalogue row 14's mechanism: a lock granted by the
	// old master is gone on the new one). Stop heals the replication.
	ShapeClusterUnreplicated = "cluster/unreplicated"
)

// ClusterFailoverShapes lists the failover shapes of a Redis Cluster.
var ClusterFailoverShapes = []string{ShapeClusterCoordinated, ShapeClusterForce, ShapeClusterTakeover, ShapeClusterUnreplicated}

// clusterFailoverModes maps a cluster shape to CLUSTER FAILOVER's mode.
var clusterFailoverModes = map[string]string{
	ShapeClusterCoordinated:  rediscluster.FailoverCoordinated,
	ShapeClusterForce:        rediscluster.FailoverForce,
	ShapeClusterTakeover:     rediscluster.FailoverTakeover,
	ShapeClusterUnreplicated: rediscluster.FailoverForce,
}

// ClusterFailoverBusy is the time a schedule allows for the start of a
// failover on a Redis Cluster with the default cluster-node-timeout (1 s),
// besides an unreplicated failover's Delay. Measured: takeover 15 to 45
// ms, coordinated 70 to 95 ms, force 70 to 150 ms, but 4.1 s (2 runs in
// 3) for a force that follows another failover of the same shard within
// a second, whose first election does not succeed.
const ClusterFailoverBusy = 5 * time.Second

// isClusterFailover says whether a failover shape is a Redis Cluster's.
func isClusterFailover(shape string) bool { return strings.HasPrefix(shape, "cluster/") }

// drawCluster draws a failover of the lock key's master on a Redis
// Cluster: a shape from ClusterShapes (default ClusterFailoverShapes), a
// length in the Span (default 2 to 4 TTLs), and for an unreplicated one a
// Delay of 0.2 to 1 TTL during which the master runs unreplicated.
func (n *Failover) drawCluster(r *rand.Rand, t Topology) Fault {
	shapes := n.ClusterShapes
	if len(shapes) == 0 {
		shapes = ClusterFailoverShapes
	}
	f := Fault{Kind: KindFailover, Shape: pick(r, shapes), Duration: n.draw(r, t, 2, 4)}
	if f.Shape == ShapeClusterUnreplicated {
		f.Delay = scaled(r, t.ttl(), 0.2, 1)
	}
	return f
}

// startCluster fails a Redis Cluster's master over to its replica.
func (n *Failover) startCluster(ctx context.Context, f Fault) error {
	mode, ok := clusterFailoverModes[f.Shape]
	if !ok {
		return fmt.Errorf("%w: failover shape on a Redis Cluster must be one of %v, got %q", ErrBadFault, ClusterFailoverShapes, f.Shape)
	}
	if f.Delay < 0 || (f.Delay > 0 && f.Shape != ShapeClusterUnreplicated) || f.Jitter != 0 {
		return fmt.Errorf("%w: only %s takes a delay (no jitter), got %v±%v", ErrBadFault, ShapeClusterUnreplicated, f.Delay, f.Jitter)
	}
	rc, err := redisClusterOf(n.Env.Cluster, "failover "+f.Shape)
	if err != nil {
		return err
	}
	n.mu.Lock()
	cut := n.cut
	n.mu.Unlock()
	if cut != "" {
		return fmt.Errorf("%w: %s's replication is cut already (stop that failover first)", ErrBadFault, cut)
	}
	master, err := faultMaster(ctx, rc, f, n.Env.Key)
	if err != nil {
		return err
	}
	replica, err := rc.ReplicaOf(ctx, master)
	if err != nil {
		return err
	}
	var unreplicated time.Duration
	if f.Shape == ShapeClusterUnreplicated {
		n.mu.Lock()
		n.cut = master // before the cut, so that Stop heals a partial one
		n.mu.Unlock()
		cutAt := time.Now()
		if err := rc.CutReplication(ctx, master); err != nil {
			return err
		}
		if !ctxtime.Sleep(ctx, f.Delay, nil) {
			return ctx.Err()
		}
		unreplicated = time.Since(cutAt)
	}
	begin := time.Now()
	if err := rc.Failover(ctx, replica, mode); err != nil {
		return err
	}
	out := fmt.Sprintf("%s promoted over %s by %s in %v", replica, master, f.Shape, time.Since(begin).Round(time.Millisecond))
	if f.Shape == ShapeClusterUnreplicated {
		out += fmt.Sprintf(", %v after %s's replication was cut", unreplicated.Round(time.Millisecond), master)
	}
	n.mu.Lock()
	n.outcome = out
	n.mu.Unlock()
	return nil
}

// stopCluster heals the replication an unreplicated failover cut (the old
// master, now its replica's replica, resynchronises) and waits, at most
// ClusterHealTimeout, for the cluster to be healthy. The roles stay
// swapped: the next failover promotes the other node.
func (n *Failover) stopCluster(ctx context.Context) error {
	rc, err := redisClusterOf(n.Env.Cluster, "failover")
	if err != nil {
		return nil // Start applied nothing
	}
	n.mu.Lock()
	cut := n.cut
	n.mu.Unlock()
	if cut != "" {
		err := rc.HealReplication(ctx, cut)
		n.mu.Lock()
		n.cut = "" // a cut that failed to heal is the final HealAll's
		n.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return waitHealthy(ctx, rc)
}

// clusterBusy is how long a failover's start on a Redis Cluster takes:
// ClusterFailoverBusy plus an unreplicated failover's Delay.
func clusterBusy(f Fault) time.Duration { return ClusterFailoverBusy + max(0, f.Delay) }

// squeezeFailover shortens the Delay of an unreplicated failover so that
// its start takes at most d, if it can.
func squeezeFailover(f *Fault, d time.Duration) {
	if isClusterFailover(f.Shape) {
		f.Delay = max(0, min(f.Delay, d-ClusterFailoverBusy))
	}
}
