package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// This file holds what the faults of a Redis Cluster share: the cluster's
// operations they use, and how they find the master of the lock's key.

// NeedRedisCluster: the cluster is one Redis Cluster (RedisCluster):
// masters that own hash slots, each with a replica, faults on the links
// between the nodes (bus, replication) and slot migration.
const NeedRedisCluster Capability = "redis-cluster"

// RedisCluster is what the faults of a Redis Cluster need of Env.Cluster
// (*rediscluster.Cluster has it): the cluster's own faults on the links
// between its nodes and its own operations, besides the clients' links.
// A master is a node that owns slots now; failovers change which.
type RedisCluster interface {
	cluster.Cluster
	// IsolateBus cuts the node off the cluster bus, both ways, while its
	// clients and its replication still reach it; HealBus ends it.
	IsolateBus(ctx context.Context, node string) error
	HealBus(ctx context.Context, node string) error
	// CutReplication cuts the link its replica replicates the master
	// through; HealReplication heals it.
	CutReplication(ctx context.Context, master string) error
	HealReplication(ctx context.Context, master string) error
	// Failover sends CLUSTER FAILOVER [mode] ("", "FORCE", "TAKEOVER") to a
	// replica and returns once it owns its master's slots.
	Failover(ctx context.Context, replica, mode string) error
	// MigrateSlot moves a slot and its keys (each with its TTL) to the
	// master to.
	MigrateSlot(ctx context.Context, slot int, to string) error
	// Masters lists the nodes that own slots now.
	Masters(ctx context.Context) ([]string, error)
	// ReplicaOf is the node that replicates master.
	ReplicaOf(ctx context.Context, master string) (string, error)
	// MasterOf is the owner of a slot now.
	MasterOf(ctx context.Context, slot int) (string, error)
	// WaitHealthy returns once every node is up, agrees on the slots'
	// owners and every master has a replica with its link up.
	WaitHealthy(ctx context.Context) error
	// NodeTimeout is cluster-node-timeout: how long a node goes unheard
	// before the others fail it over.
	NodeTimeout() time.Duration
}

// ClusterHealTimeout bounds the wait of a Redis Cluster fault's Stop for
// the cluster to be healthy again.
const ClusterHealTimeout = 20 * time.Second

// redisClusterOf returns the cluster as a RedisCluster, or an error
// wrapping ErrUnsupported naming what needed one.
func redisClusterOf(c cluster.Cluster, what string) (RedisCluster, error) {
	if rc, ok := c.(RedisCluster); ok {
		return rc, nil
	}
	return nil, fmt.Errorf("%w: %s needs a Redis Cluster", ErrUnsupported, what)
}

// errNoKey: a fault aimed at the lock key's slot found no Env.Key.
var errNoKey = errors.New("nemesis: no lock key (Env.Key) to find the slot of")

// keySlot is the hash slot of the lock's key.
func keySlot(key string) (int, error) {
	if key == "" {
		return 0, errNoKey
	}
	return rediscluster.SlotOf(key), nil
}

// keyMaster is the master that owns the lock key's slot now, and the slot.
func keyMaster(ctx context.Context, rc RedisCluster, key string) (string, int, error) {
	slot, err := keySlot(key)
	if err != nil {
		return "", 0, err
	}
	m, err := rc.MasterOf(ctx, slot)
	return m, slot, err
}

// faultMaster is the master a fault names (its one node, which must be a
// master now), or, when it names none, the master of the lock key's slot.
func faultMaster(ctx context.Context, rc RedisCluster, f Fault, key string) (string, error) {
	if len(f.Nodes) == 0 {
		m, _, err := keyMaster(ctx, rc, key)
		return m, err
	}
	m, err := one(f, f.Nodes, "node (a master)")
	if err != nil {
		return "", err
	}
	masters, err := rc.Masters(ctx)
	if err != nil {
		return "", err
	}
	if !slices.Contains(masters, m) {
		return "", fmt.Errorf("%w: %s: %s is not a master now (masters %v)", ErrBadFault, f.Kind, m, masters)
	}
	return m, nil
}

// shardMaster is the master of the node's shard now: the node itself when
// it is a master, else the master it replicates.
func shardMaster(ctx context.Context, rc RedisCluster, node string) (string, error) {
	masters, err := rc.Masters(ctx)
	if err != nil {
		return "", err
	}
	if slices.Contains(masters, node) {
		return node, nil
	}
	for _, m := range masters {
		if r, err := rc.ReplicaOf(ctx, m); err == nil && r == node {
			return m, nil
		}
	}
	return "", fmt.Errorf("nemesis: %s is neither a master nor a master's replica (masters %v)", node, masters)
}

// waitHealthy waits, at most ClusterHealTimeout, for the cluster to be
// healthy.
func waitHealthy(ctx context.Context, rc RedisCluster) error {
	ctx, cancel := context.WithTimeout(ctx, ClusterHealTimeout)
	defer cancel()
	return rc.WaitHealthy(ctx)
}
