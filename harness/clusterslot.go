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

// clusterNode is the one node of a lock on a Redis Cluster: the cluster.
const clusterNode = "cluster"

// clusterLock builds the slot's lock on one cluster client whose dialer
// maps every announced address to the slot's proxy for that node (so
// redirections go through them too). A lock whose keys span hash slots
// is a setup error (CROSSSLOT), not a verdict.
func (s *slot) clusterLock(rc *rediscluster.Cluster) (lockimpl.Locker, []func() error, error) {
	o, err := rc.ClusterOptions(s.name)
	if err != nil {
		return nil, nil, err
	}
	o.PoolSize = 4
	// A client cut from a failed master gets no MOVED: reloading the map
	// every second finds the promoted replica, as a service would.
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

// grantedNodes are the cluster's nodes behind a lease's granting nodes:
// on a Redis Cluster (clusterNode) the master of the lock key's slot now.
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
