package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/internal/ctxtime"
)

// ShapeMasterIsolated, a partition of a Redis Cluster, puts a master on
// the minority side: its cluster bus is isolated (IsolateBus) and its
// replication cut (CutReplication), so that the other masters stop
// hearing from it and, after the cluster-node-timeout, elect its replica,
// which never receives what the old master acknowledged meanwhile. The
// fault's Clients, if any, are on the majority side: their links to the
// old master are cut too, so only the other clients stay with it. Until
// the old master sees itself in a minority (cluster_state:fail, about
// one node timeout after the isolation) it grants locks to its clients
// that the cluster will lose; the clients cut from it reach the slot
// again once the replica is promoted. Nodes names the master (default
// the master of the lock key's slot, Env.Key); Start returns once its
// replica owns slots (MasterIsolatedBusy). Stop heals the bus, the
// replication and the clients' links (the old master rejoins as a
// replica of its promoted replica) and waits for the cluster to be
// healthy. Drawn only on a Redis Cluster (Topology.RedisCluster).
const ShapeMasterIsolated = "master-isolated"

// ClusterPartitionShapes lists the partition shapes only a Redis Cluster
// has; Draw on a Redis Cluster picks one of them one time in three.
var ClusterPartitionShapes = []string{ShapeMasterIsolated}

// MasterIsolatedBusy is the time a schedule allows for the start of a
// ShapeMasterIsolated partition with the default cluster-node-timeout
// (1 s): the isolation (about half a node timeout) and the replica's
// election (measured about 2 s after it).
const MasterIsolatedBusy = 4 * time.Second

// promotionTimeout bounds the wait of a master-isolated start for the
// replica's promotion: the node timeout to flag the master failed, the
// election's delay (up to a second, more when a vote is refused) and
// margin.
func promotionTimeout(rc RedisCluster) time.Duration { return 4*rc.NodeTimeout() + 10*time.Second }

// drawMasterIsolated draws a master-isolated partition of the lock key's
// master; one time in two (with two clients or more) a seeded part of the
// clients, never all, is on the majority side.
func (p *Partition) drawMasterIsolated(r *rand.Rand, t Topology) Fault {
	f := Fault{Kind: KindPartition, Shape: ShapeMasterIsolated}
	if len(t.Clients) >= 2 && r.IntN(2) == 0 {
		f.Clients = sample(r, t.Clients, 1+r.IntN(len(t.Clients)-1))
	}
	f.Duration = p.draw(r, t, 0.5, 3)
	return f
}

// startMasterIsolated isolates the master, then waits for its replica's
// promotion.
func (p *Partition) startMasterIsolated(ctx context.Context, f Fault) error {
	if len(f.Links) > 0 {
		return fmt.Errorf("%w: %s takes clients, not links", ErrBadFault, ShapeMasterIsolated)
	}
	rc, err := redisClusterOf(p.Env.Cluster, "partition "+ShapeMasterIsolated)
	if err != nil {
		return err
	}
	p.mu.Lock()
	busy := p.isolated
	p.mu.Unlock()
	if busy != "" {
		return fmt.Errorf("%w: %s is isolated already (one master at a time)", ErrBadFault, busy)
	}
	master, err := faultMaster(ctx, rc, f, p.Env.Key)
	if err != nil {
		return err
	}
	replica, err := rc.ReplicaOf(ctx, master)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.isolated, p.outcome = master, "" // before any fault, so that Stop heals a partial start
	p.mu.Unlock()
	begin := time.Now()
	if len(f.Clients) > 0 {
		if err := rc.Cut(ctx, cross(f.Clients, []string{master})); err != nil {
			return err
		}
	}
	if err := rc.CutReplication(ctx, master); err != nil {
		return err
	}
	if err := rc.IsolateBus(ctx, master); err != nil {
		return err
	}
	isolated := time.Since(begin)
	wait, cancel := context.WithTimeout(ctx, promotionTimeout(rc))
	defer cancel()
	for {
		masters, err := rc.Masters(wait)
		if err == nil && slices.Contains(masters, replica) {
			break
		}
		if !ctxtime.Sleep(wait, 50*time.Millisecond, nil) {
			return fmt.Errorf("nemesis: %s isolated: %s not promoted: %w (last: masters %v, %v)",
				master, replica, wait.Err(), masters, err)
		}
	}
	out := fmt.Sprintf("%s isolated in %v, %s promoted %v after", master, isolated.Round(time.Millisecond),
		replica, time.Since(begin).Round(time.Millisecond))
	if len(f.Clients) > 0 {
		out += fmt.Sprintf("; %s cut from %s", strings.Join(f.Clients, ","), master)
	}
	p.mu.Lock()
	p.outcome = out
	p.mu.Unlock()
	return nil
}

// stopMasterIsolated heals what Start applied and waits, at most
// ClusterHealTimeout, for the cluster to be healthy; nothing to do when
// no master is isolated. A start while another master-isolated fault is
// active (a scripted overlap) is refused.
func (p *Partition) stopMasterIsolated(ctx context.Context, f Fault) error {
	rc, err := redisClusterOf(p.Env.Cluster, "partition "+ShapeMasterIsolated)
	if err != nil {
		return nil // Start applied nothing
	}
	p.mu.Lock()
	master := p.isolated
	p.mu.Unlock()
	if master == "" {
		return nil
	}
	errs := []error{rc.HealBus(ctx, master), rc.HealReplication(ctx, master)}
	if len(f.Clients) > 0 {
		errs = append(errs, rc.Heal(ctx, cross(f.Clients, []string{master})))
	}
	p.mu.Lock()
	p.isolated = "" // what failed to heal is the final HealAll's
	p.mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return waitHealthy(ctx, rc)
}

// Outcome says what the latest master-isolated start did, e.g. "n1
// isolated in 320ms, n1r promoted 2.1s after; c2 cut from n1"; other
// shapes say nothing.
func (p *Partition) Outcome(f Fault) string {
	if f.Shape != ShapeMasterIsolated {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.outcome
}

// partitionStart is how long a partition's start takes:
// MasterIsolatedBusy for ShapeMasterIsolated, else no time.
func partitionStart(f Fault) time.Duration {
	if f.Shape == ShapeMasterIsolated {
		return MasterIsolatedBusy
	}
	return 0
}
