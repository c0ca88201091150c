package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// DefaultSentinelDownAfter is the sentinels' down-after-milliseconds during
// a failover fault: how long the master must be unreachable before they
// agree it is down and promote the replica.
const DefaultSentinelDownAfter = 500 * time.Millisecond

// defaultFailoverTimeout bounds a Failover or Failback.
const defaultFailoverTimeout = 15 * time.Second

// failbackHandover bounds the coordinated FAILOVER of a failback: how long
// the new master pauses writes waiting for the old one to catch up.
const failbackHandover = 5 * time.Second

// replicaSet is the local provider's master-replica pair: the primary
// node (a Cluster node), its replica (a redis-server that is not a
// Cluster node), the replication link proxy through which the replica and
// the sentinels reach the primary, and the sentinels if any. Process
// control happens with Local.mu held; the failover logic is pairState's.
type replicaSet struct {
	*pairState
	primary       *node
	replica       *node
	link          *replicationLink
	sentinelNodes []*node
}

// replicaName is the replica's name, for its directory and messages.
func replicaName(primary string) string { return primary + "-replica" }

// resolvePromotion checks the replica settings of cfg and finds the
// sentinel binary when sentinels are to run; "" when they are not.
func resolvePromotion(cfg *LocalConfig) (sentinelBin string, err error) {
	if !cfg.Replica {
		return "", nil
	}
	if err := checkReplicaConfig(cfg.Sentinels, cfg.SentinelDownAfter); err != nil {
		return "", err
	}
	switch cfg.Promotion {
	case PromoteManual:
		return "", nil
	case PromoteSentinel:
		return lookSentinel(cfg.RedisSentinel)
	case PromoteAuto:
		bin, err := lookSentinel(cfg.RedisSentinel)
		if err != nil {
			cfg.Promotion = PromoteManual
			return "", nil
		}
		cfg.Promotion = PromoteSentinel
		return bin, nil
	}
	return "", fmt.Errorf("cluster: promotion must be sentinel or manual, got %q", cfg.Promotion)
}

// startReplica starts the replica of n1, its replication link and the
// sentinels, and waits until the replica is in sync and the sentinels see
// both processes. Called by StartLocal; on error Stop cleans up.
func (l *Local) startReplica(ctx context.Context, sentinelBin string) error {
	primary := l.nodes[0]
	rs := &replicaSet{
		pairState: newPairState(primary.name, l.proxies, l.cfg.Promotion, l.cfg.SentinelDownAfter),
		primary:   primary,
	}
	l.rep = rs

	name := replicaName(primary.name)
	rs.replica = &node{
		name:        name,
		bin:         primary.bin,
		dir:         filepath.Join(l.runDir, name),
		persistence: l.cfg.Persistence,
		state:       nodeDown,
	}
	if err := os.Mkdir(rs.replica.dir, 0o755); err != nil {
		return err
	}
	link, err := newReplicationLink(ctx, primary.name, primary.addr())
	if err != nil {
		return err
	}
	rs.link = link
	if err := startOnFreePort(ctx, rs.replica); err != nil {
		return err
	}
	e, _ := rs.ends(ctx)
	if err := attach(ctx, e); err != nil {
		return err
	}
	if rs.promotion != PromoteSentinel {
		return nil
	}
	n, quorum := sentinelCount(l.cfg.Sentinels)
	rs.quorum = quorum
	_, linkPort, _ := net.SplitHostPort(link.addr)
	port, _ := strconv.Atoi(linkPort)
	for i := 1; i <= n; i++ {
		s, err := newSentinel(sentinelBin, l.runDir, i, port, rs.quorum)
		if err != nil {
			return err
		}
		rs.sentinelNodes = append(rs.sentinelNodes, s)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, s := range rs.sentinelNodes {
		wg.Go(func() { errs[i] = startOnFreePort(ctx, s) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, s := range rs.sentinelNodes {
		rs.sentinels = append(rs.sentinels, sentinelRef{name: s.name, addr: s.addr(), log: s.logTail})
	}
	return sentinelsReady(ctx, rs.sentinels, rs.replica.addr())
}

// ends are the pair's addresses: the replica and the sentinels reach the
// primary through the link proxy; everything else is on 127.0.0.1.
func (rs *replicaSet) ends(context.Context) (pairEnds, error) {
	p, r := rs.primary.addr(), rs.replica.addr()
	return pairEnds{primaryOwn: p, replicaOwn: r, primaryLink: rs.link.addr, primaryPeer: p, replicaPeer: r}, nil
}

func (rs *replicaSet) killPrimary(context.Context) error { rs.primary.kill(); return nil }

func (rs *replicaSet) primaryDown() bool { return rs.primary.current() == nodeDown }

func (rs *replicaSet) restartPrimary(ctx context.Context) error { return rs.primary.restart(ctx) }

func (rs *replicaSet) cutLink(ctx context.Context) error { return rs.link.cut(ctx) }

func (rs *replicaSet) healLink(ctx context.Context) error { return rs.link.heal(ctx) }

// stop ends the sentinels first (so that none reacts), then the replica,
// then the link. Called by Local.Stop with Local.mu held.
func (rs *replicaSet) stop() error {
	for _, s := range rs.sentinelNodes {
		s.kill()
	}
	if rs.replica != nil {
		rs.replica.kill()
	}
	if rs.link != nil {
		return rs.link.Close()
	}
	return nil
}

// replicated returns the replica set or an error wrapping ErrUnsupported.
func (l *Local) replicated() (*replicaSet, error) {
	if l.rep == nil {
		return nil, fmt.Errorf("%w: the cluster was started without a replica (LocalConfig.Replica)", ErrUnsupported)
	}
	return l.rep, nil
}

var _ Replicated = (*Local)(nil)

// Primary is "n1" when the cluster runs a replica, else "".
func (l *Local) Primary() string {
	if l.rep == nil {
		return ""
	}
	return l.rep.primary.name
}

// Promotion is how Failover promotes the replica ("" without a replica).
func (l *Local) Promotion() Promotion {
	if l.rep == nil {
		return ""
	}
	return l.rep.promotion
}

// ReplicaAddr is the replica's own address.
func (l *Local) ReplicaAddr() (string, error) {
	rs, err := l.replicated()
	if err != nil {
		return "", err
	}
	return rs.replica.addr(), nil
}

// MasterAddr is the own address of the process the clients' proxies to
// the primary lead to.
func (l *Local) MasterAddr() (string, error) {
	rs, err := l.replicated()
	if err != nil {
		return "", err
	}
	e, _ := rs.ends(context.Background())
	return rs.masterOwn(e), nil
}

// SentinelAddrs lists the sentinels' addresses (none with manual promotion).
func (l *Local) SentinelAddrs() []string {
	if l.rep == nil {
		return nil
	}
	out := make([]string, len(l.rep.sentinels))
	for i, s := range l.rep.sentinels {
		out[i] = s.addr
	}
	return out
}

// ReplicationLinkAddr is the replication link's proxy address: the master
// address the replica and the sentinels use.
func (l *Local) ReplicationLinkAddr() (string, error) {
	rs, err := l.replicated()
	if err != nil {
		return "", err
	}
	return rs.link.addr, nil
}

// ReplicationFaulty reports whether the replication link carries a fault.
func (l *Local) ReplicationFaulty() bool { return l.rep != nil && len(l.rep.link.Faulty()) > 0 }

// CutReplication drops all data on the replication link until healed.
func (l *Local) CutReplication(ctx context.Context) error {
	rs, err := l.replicated()
	if err != nil {
		return err
	}
	return rs.link.cut(ctx)
}

// HealReplication removes the cut and latency from the replication link.
func (l *Local) HealReplication(ctx context.Context) error {
	rs, err := l.replicated()
	if err != nil {
		return err
	}
	return rs.link.heal(ctx)
}

// DelayReplication adds latency to the replication link.
func (l *Local) DelayReplication(ctx context.Context, lat Latency) error {
	rs, err := l.replicated()
	if err != nil {
		return err
	}
	return rs.link.AddLatency(ctx, rs.link.links, lat)
}

// Failover loses the master (SIGKILL, or a cut of the replication link),
// promotes the replica (by sentinel or REPLICAOF NO ONE) and retargets the
// clients' proxies to it. See Replicated.
func (l *Local) Failover(ctx context.Context, opt FailoverOptions) (FailoverResult, error) {
	rs, err := l.replicated()
	if err != nil {
		return FailoverResult{}, err
	}
	return rs.runFailover(ctx, &l.mu, &l.stopped, rs, opt)
}

// Failback undoes a failover (see Replicated).
func (l *Local) Failback(ctx context.Context) error {
	rs, err := l.replicated()
	if err != nil {
		return err
	}
	return rs.runFailback(ctx, &l.mu, &l.stopped, rs)
}

// ReplicaPid is the replica's process id, or 0 when it is down or absent.
func (l *Local) ReplicaPid() int {
	if l.rep == nil {
		return 0
	}
	return l.rep.replica.pid()
}

// SentinelPids lists the sentinels' process ids (0 for one that is down).
func (l *Local) SentinelPids() []int {
	if l.rep == nil {
		return nil
	}
	out := make([]int, len(l.rep.sentinelNodes))
	for i, s := range l.rep.sentinelNodes {
		out[i] = s.pid()
	}
	return out
}

// replicationLink is the proxy through which the replica and the
// sentinels reach the primary: a link engine of its own with one link,
// from the client "replication" to the primary.
type replicationLink struct {
	*Proxies
	links []Link
	addr  string
}

// newReplicationLink starts the replication link's proxy to the primary.
func newReplicationLink(ctx context.Context, primary, upstream string) (*replicationLink, error) {
	p, err := NewProxies([]string{"replication"})
	if err != nil {
		return nil, err
	}
	if err := p.AddTarget(ctx, primary, upstream); err != nil {
		_ = p.Close()
		return nil, err
	}
	addr, err := p.Addr("replication", primary)
	return &replicationLink{Proxies: p, links: Links("replication", primary), addr: addr}, err
}

// cut drops every byte both ways (see Proxies.Cut).
func (r *replicationLink) cut(ctx context.Context) error { return r.Cut(ctx, r.links) }

// heal removes the cut and the latency; cut connections are closed (as
// toxiproxy does when a timeout toxic goes) and their ends reconnect.
func (r *replicationLink) heal(ctx context.Context) error { return r.HealAll(ctx) }
