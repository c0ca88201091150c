package rediscluster

import (
	"context"
	"net"
	"strconv"

	"github.com/lockstorm/lockstorm/cluster"
)

// peerClient is the one client of a peerLink's engine: the other nodes.
const peerClient = "peers"

// peerLink is one proxy in front of one of a node's ports, used by the
// other nodes and never by clients: the node announces its address, so
// that every path between nodes passes a proxy that can be cut. It is a
// link engine of its own (cluster.Proxies) with a single link, from
// "peers" to the node, so that it can be closed alone.
type peerLink struct {
	px    *cluster.Proxies
	links []cluster.Link
	addr  string // the proxy's listen address, 127.0.0.1:port
	port  int
}

// newPeerLink starts a proxy to upstream (a port of node) on a free
// 127.0.0.1 port.
func newPeerLink(ctx context.Context, node, upstream string) (*peerLink, error) {
	px, err := cluster.NewProxies([]string{peerClient})
	if err != nil {
		return nil, err
	}
	if err := px.AddTarget(ctx, node, upstream); err != nil {
		_ = px.Close()
		return nil, err
	}
	addr, err := px.Addr(peerClient, node)
	if err != nil {
		_ = px.Close()
		return nil, err
	}
	_, p, _ := net.SplitHostPort(addr)
	port, err := strconv.Atoi(p)
	if err != nil {
		_ = px.Close()
		return nil, err
	}
	return &peerLink{px: px, links: cluster.Links(peerClient, node), addr: addr, port: port}, nil
}

// cut drops every byte through the proxy, both ways, until heal.
func (l *peerLink) cut(ctx context.Context) error { return l.px.Cut(ctx, l.links) }

// heal removes every fault; cut connections are closed and their ends
// reconnect.
func (l *peerLink) heal(ctx context.Context) error { return l.px.HealAll(ctx) }

// faulty reports whether the proxy carries a fault.
func (l *peerLink) faulty() bool { return len(l.px.Faulty()) > 0 }

// close stops the proxy, closing its connections.
func (l *peerLink) close() error { return l.px.Close() }
