package harness

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/rediscluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/hashslot"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// clusterMapRefresh is how old a cluster client's slot map may grow
// before it reloads it.
const clusterMapRefresh = time.Second

// clusterNode is the name a lock on a Redis Cluster gives its one node:
// the cluster as a whole, reached through one cluster client.
const clusterNode = "cluster"

// clusterLock builds the slot's lock on one cluster client whose dialer
// maps every address the cluster announces to the slot's own proxy for
// that node, so MOVED and ASK redirections go through the slot's proxies
// too. Before the run it checks that every key the lock touches for the
// workload's key lives in one hash slot: a lock whose keys span slots
// fails on a cluster with CROSSSLOT, a setup error, not a verdict.
func (s *slot) clusterLock(rc *rediscluster.Cluster) (lockimpl.Locker, []func() error, error) {
	o, err := rc.ClusterOptions(s.name)
	if err != nil {
		return nil, nil, err
	}
	o.PoolSize = 4
	// A client cut from a failed master gets network errors, not MOVED,
	// and go-redis reloads its slot map only on MOVED or once the map is
	// older than this: a service keeps its map fresh, so a client cut
	// from the old master finds the promoted replica within a second.
	o.ClusterStateReloadInterval = clusterMapRefresh
	cc := redis.NewClusterClient(o)
	closers := []func() error{cc.Close}
	lock, err := s.buildLock([]redis.UniversalClient{cc}, []string{clusterNode})
	if err != nil {
		return nil, closers, err
	}
	if err := lockimpl.CheckSlots(lock, s.run.cfg.Workloads.Key); err != nil {
		return nil, closers, fmt.Errorf("%w: --lock %s on --topology cluster: %v", config.ErrConfig, s.run.cfg.Lock, err)
	}
	return lock, closers, nil
}

// grantedNodes are the cluster nodes behind a lease's granting nodes: on a
// Redis Cluster the lease names the cluster as a whole (clusterNode), and
// the node that granted it is the master of the lock key's slot now.
// Names that are no node of the cluster are dropped.
func (r *run) grantedNodes(names []string) []string {
	all := r.cluster.Nodes()
	var out []string
	for _, n := range names {
		if rc, ok := r.cluster.(*rediscluster.Cluster); ok && n == clusterNode {
			ctx, cancel := context.WithTimeout(r.workCtx, time.Second)
			m, err := rc.MasterOf(ctx, hashslot.Of(r.cfg.Workloads.Key))
			cancel()
			if err == nil {
				n = m
			}
		}
		if slices.Contains(all, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
