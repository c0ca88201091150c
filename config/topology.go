package config

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Topologies (Config.Topology).
const (
	// TopologyStandalone: independent Redis nodes n1..nN, each its own
	// server (one for the single-node locks, a quorum's worth for Redlock).
	TopologyStandalone = "standalone"
	// TopologyCluster: one Redis Cluster of N masters, each with one
	// asynchronous replica; a lock uses it through one cluster client.
	TopologyCluster = "cluster"
)

// ClusterKey is the workload's lock key on a Redis Cluster: a hash tag, so
// that every key a lock derives from it (lock:{lockstorm}:fence, ...) lives
// in the lock key's slot, as the seed's FAQ advises.
const ClusterKey = "lock:{lockstorm}"

// checkTopology checks the topology, and on a cluster the lock, the
// provider and the node count (masters, at least 3), and sets the
// cluster's lock key.
func (c *Config) checkTopology() error {
	switch c.Topology {
	case TopologyStandalone:
		return nil
	case TopologyCluster:
	default:
		return fmt.Errorf("--topology must be %s or %s, got %q", TopologyStandalone, TopologyCluster, c.Topology)
	}
	if c.Provider != "local" {
		return fmt.Errorf("--topology %s runs on the local provider only, got --provider %s", TopologyCluster, c.Provider)
	}
	if c.ProcessClients() {
		return errors.New("--topology cluster needs in-process Go clients: process clients get one address per node and no cluster client")
	}
	if c.NewLock == nil && !lockimpl.ClusterCapable(c.Lock) {
		return fmt.Errorf("--lock %s on --topology cluster: %w", c.Lock, lockimpl.ErrNotOnCluster)
	}
	if c.Nodes < 3 {
		return fmt.Errorf("--nodes must be at least 3 on --topology cluster (masters; a cluster fails a master over only with a majority of masters), got %d", c.Nodes)
	}
	c.Workloads.Key = cmp.Or(c.Workloads.Key, ClusterKey)
	return nil
}
