package rediscluster

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/cluster/internal/host"
	"github.com/lockstorm/lockstorm/cluster/local"
)

// node is one redis-server of the cluster (a master or a replica at
// start; roles change with failovers): a local process with cluster mode
// on, and the two proxies in front of it that the other nodes use (see
// peerLink). Its name and cluster node id never change.
type node struct {
	*local.Process
	timeout time.Duration // cluster-node-timeout

	mu      sync.Mutex // guards the fields below (read by the config renderer)
	port    int        // client port the config was last rendered for
	busPort int        // the cluster bus port (cluster-port) for port
	data    *peerLink  // replicas and MIGRATE reach the client port through it
	bus     *peerLink  // peers' cluster bus connections reach the bus port through it
	retired []*peerLink
	id      string // cluster node id (CLUSTER MYID), known once formed
}

// clusterConfig is the cluster part of the node's redis.conf for a client
// port: cluster mode, node timeout, its own bus port (a free port chosen
// anew when the client port changes, i.e. when a start is retried on
// another port; the same on Restart), and once its proxies exist the
// addresses it announces, which are theirs. Replica migration is off, so
// that the topology changes only by failovers.
func (n *node) clusterConfig(port int) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if port != n.port || n.busPort == 0 {
		n.port = port
		// A failure leaves 0: Redis then uses port+10000.
		n.busPort, _ = host.FreePort()
	}
	var b strings.Builder
	b.WriteString("cluster-enabled yes\ncluster-config-file nodes.conf\n")
	fmt.Fprintf(&b, "cluster-node-timeout %d\n", n.timeout.Milliseconds())
	if n.busPort != 0 {
		fmt.Fprintf(&b, "cluster-port %d\n", n.busPort)
	}
	b.WriteString("cluster-allow-replica-migration no\n")
	b.WriteString("cluster-announce-ip 127.0.0.1\n")
	if n.data != nil {
		fmt.Fprintf(&b, "cluster-announce-port %d\n", n.data.port)
	}
	if n.bus != nil {
		fmt.Fprintf(&b, "cluster-announce-bus-port %d\n", n.bus.port)
	}
	return b.String()
}

// busAddr is the node's own cluster bus address, bypassing its proxy.
func (n *node) busAddr() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.busPort
	if p == 0 {
		p = n.port + 10000
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
}

// nodeID is the node's cluster id ("" before the cluster is formed).
func (n *node) nodeID() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.id
}

// announced is the address the node announces for clients and replicas
// (its data proxy) and its announced bus port (its current bus proxy).
func (n *node) announced() (addr string, busPort int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.data != nil {
		addr = n.data.addr
	}
	if n.bus != nil {
		busPort = n.bus.port
	}
	return addr, busPort
}
