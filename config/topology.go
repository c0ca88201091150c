package config

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Topologies (Config.Topology).
const (
	TopologyStandalone = "standalone" // independent Redis nodes n1..nN
	TopologyCluster    = "cluster"    // one Redis Cluster of N masters, each with one replica
)

// ClusterKey is the workload's lock key on a Redis Cluster: a hash tag, so
// that every key a lock derives from it lives in its slot.
const ClusterKey = "lock:{lockstorm}"

// checkTopology checks the topology and, on a cluster, the lock, the
// provider and the node count, and sets the lock key.
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
