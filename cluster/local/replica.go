package local

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
)

// replicaSet is the local provider's side of the master-replica pair: the
// replica (a redis-server that is not a cluster node), the replication
// link proxy through which the replica and the sentinels reach the
// primary, and the sentinels if any. The cluster core runs the failover.
type replicaSet struct {
	primary   *node
	replica   *node
	link      *replicationLink
	sentinels []*node
}

var _ cluster.Replicated = (*Cluster)(nil)

// resolvePromotion checks the replica settings of cfg and finds the
// sentinel binary when sentinels are to run; "" when they are not.
func resolvePromotion(cfg *Config) (sentinelBin string, err error) {
	if !cfg.Replica {
		return "", nil
	}
	if err := cfg.ReplicaOptions.Check(); err != nil {
		return "", err
	}
	switch cfg.Promotion {
	case cluster.PromoteManual:
		return "", nil
	case cluster.PromoteSentinel:
		return lookSentinel(cfg.RedisSentinel)
	}
	bin, err := lookSentinel(cfg.RedisSentinel)
	if err != nil {
		cfg.Promotion = cluster.PromoteManual
		return "", nil
	}
	cfg.Promotion = cluster.PromoteSentinel
	return bin, nil
}

// startReplica starts the replica of the primary, its replication link
// and the sentinels (see cluster.StartPair). On error Stop cleans up.
func (l *Cluster) startReplica(ctx context.Context, primary *node, sentinelBin string) error {
	rs := &replicaSet{primary: primary}
	var err error
	if rs.replica, err = l.newNode(primary.name+"-replica", primary.bin, l.cfg.Persistence); err != nil {
		return err
	}
	if rs.link, err = newReplicationLink(ctx, primary.name, primary.Addr()); err != nil {
		return err
	}
	l.rep = rs
	return cluster.StartPair(ctx, l.Core, cluster.PairSpec[*node]{
		Replica: rs.replica,
		Link:    rs,
		Options: l.cfg.ReplicaOptions,
		NewSentinel: func(i int, monitor string, quorum int) (*node, error) {
			s, err := l.newSentinel(sentinelBin, i, monitor, quorum)
			if err == nil {
				rs.sentinels = append(rs.sentinels, s)
			}
			return s, err
		},
	})
}

// newSentinel describes sentinel i (s1, s2, ...) in its own directory of
// the run directory, monitoring the master at monitor (the replication
// link's proxy, so that a cut of the link hides the master from it and it
// never sees a replica whose master address differs from its own view).
// It runs as a node whose config is a sentinel's: same start, readiness
// probe (INFO server), parent-death signal and kill.
func (l *Cluster) newSentinel(bin string, i int, monitor string, quorum int) (*node, error) {
	n, err := l.newNode("s"+strconv.Itoa(i), bin, cluster.PersistNone)
	n.render = func(port int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "port %d\nbind 127.0.0.1\nprotected-mode no\ndaemonize no\n", port)
		b.WriteString("logfile redis.log\n")
		b.WriteString(redisadmin.SentinelConfig(monitor, quorum))
		return b.String()
	}
	return n, err
}

// Ends are the pair's addresses: the replica and the sentinels reach the
// primary through the link proxy; everything else is on 127.0.0.1.
func (rs *replicaSet) Ends(context.Context) (cluster.PairEnds, error) {
	p, r := rs.primary.Addr(), rs.replica.Addr()
	return cluster.PairEnds{PrimaryOwn: p, ReplicaOwn: r, PrimaryLink: rs.link.addr, PrimaryPeer: p, ReplicaPeer: r}, nil
}

// Cut drops every byte on the replication link, both ways.
func (rs *replicaSet) Cut(ctx context.Context) error { return rs.link.Cut(ctx, rs.link.links) }

// Heal removes the cut and the latency; cut connections are closed (as
// toxiproxy does when a timeout toxic goes) and their ends reconnect.
func (rs *replicaSet) Heal(ctx context.Context) error { return rs.link.HealAll(ctx) }

// Delay replaces the replication link's latency.
func (rs *replicaSet) Delay(ctx context.Context, l cluster.Latency) error {
	return rs.link.AddLatency(ctx, rs.link.links, l)
}

// Faulty reports whether the replication link carries a fault.
func (rs *replicaSet) Faulty() bool { return len(rs.link.Faulty()) > 0 }

// Close stops the link's proxy.
func (rs *replicaSet) Close() error { return rs.link.Close() }

// replicationLink is the proxy through which the replica and the
// sentinels reach the primary: a link engine of its own with one link,
// from the client "replication" to the primary.
type replicationLink struct {
	*cluster.Proxies
	links []cluster.Link
	addr  string
}

// newReplicationLink starts the replication link's proxy to the primary.
func newReplicationLink(ctx context.Context, primary, upstream string) (*replicationLink, error) {
	p, err := cluster.NewProxies([]string{"replication"})
	if err != nil {
		return nil, err
	}
	if err := p.AddTarget(ctx, primary, upstream); err != nil {
		_ = p.Close()
		return nil, err
	}
	addr, err := p.Addr("replication", primary)
	return &replicationLink{Proxies: p, links: cluster.Links("replication", primary), addr: addr}, err
}

// ReplicationLinkAddr is the replication link's proxy address: the master
// address the replica and the sentinels use.
func (l *Cluster) ReplicationLinkAddr() (string, error) {
	if l.rep == nil {
		return "", fmt.Errorf("%w: the cluster was started without a replica (local.Config.Replica)", cluster.ErrUnsupported)
	}
	return l.rep.link.addr, nil
}

// ReplicaPid is the replica's process id, or 0 when it is down or absent.
func (l *Cluster) ReplicaPid() int {
	if l.rep == nil {
		return 0
	}
	return l.rep.replica.pid()
}

// SentinelPids lists the sentinels' process ids (0 for one that is down).
func (l *Cluster) SentinelPids() []int {
	if l.rep == nil {
		return nil
	}
	out := make([]int, len(l.rep.sentinels))
	for i, s := range l.rep.sentinels {
		out[i] = s.pid()
	}
	return out
}
