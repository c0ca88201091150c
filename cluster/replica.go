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
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
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
// control happens with Local.mu held.
type replicaSet struct {
	primary   *node
	replica   *node
	link      *linkProxy
	sentinels []*node
	quorum    int
	promotion Promotion // sentinel or manual
	downAfter time.Duration

	// ctx is cancelled by Stop, ending a failover or failback in flight.
	ctx    context.Context
	cancel context.CancelFunc

	// Guarded by Local.mu.
	dirty  bool // a failover started and no failback has completed
	killed bool // the failover killed the primary
	armed  bool // sentinels armed, or removed and not yet monitoring again

	failedOver atomic.Bool // the clients' proxies lead to the replica
}

// replicaName is the replica's name, for its directory and messages.
func replicaName(primary string) string { return primary + "-replica" }

// resolvePromotion checks the replica settings of cfg and finds the
// sentinel binary when sentinels are to run; "" when they are not.
func resolvePromotion(cfg *LocalConfig) (sentinelBin string, err error) {
	if !cfg.Replica {
		return "", nil
	}
	if cfg.Sentinels < 0 {
		return "", fmt.Errorf("cluster: sentinels must not be negative, got %d", cfg.Sentinels)
	}
	if cfg.SentinelDownAfter < 0 {
		return "", fmt.Errorf("cluster: sentinel down-after must not be negative, got %v", cfg.SentinelDownAfter)
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
	rs := &replicaSet{primary: primary, promotion: l.cfg.Promotion, downAfter: l.cfg.SentinelDownAfter}
	if rs.downAfter == 0 {
		rs.downAfter = DefaultSentinelDownAfter
	}
	rs.ctx, rs.cancel = context.WithCancel(context.Background())
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
	link, err := newLinkProxy("replication->"+primary.name, primary.addr())
	if err != nil {
		return err
	}
	rs.link = link
	if err := startOnFreePort(ctx, rs.replica); err != nil {
		return err
	}
	if err := rs.attach(ctx); err != nil {
		return err
	}
	if rs.promotion != PromoteSentinel {
		return nil
	}
	n := l.cfg.Sentinels
	if n == 0 {
		n = 1
	}
	rs.quorum = n/2 + 1
	_, linkPort, _ := net.SplitHostPort(link.addr)
	port, _ := strconv.Atoi(linkPort)
	for i := 1; i <= n; i++ {
		s, err := newSentinel(sentinelBin, l.runDir, i, port, rs.quorum)
		if err != nil {
			return err
		}
		rs.sentinels = append(rs.sentinels, s)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, s := range rs.sentinels {
		wg.Go(func() { errs[i] = startOnFreePort(ctx, s) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return sentinelsReady(ctx, rs.sentinels, rs.replica.addr())
}

// attach makes the replica replicate the primary through the link and
// waits until its link is up.
func (rs *replicaSet) attach(ctx context.Context) error {
	if err := replicaOf(ctx, rs.replica.addr(), rs.link.addr); err != nil {
		return fmt.Errorf("cluster: replica %s: %w", rs.replica.name, err)
	}
	return waitReplication(ctx, rs.replica.addr(), "replica in sync", linkedTo(rs.link.addr))
}

// stop ends the sentinels first (so that none reacts), then the replica,
// then the link. Called by Local.Stop with Local.mu held.
func (rs *replicaSet) stop() error {
	for _, s := range rs.sentinels {
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
	if rs.failedOver.Load() {
		return rs.replica.addr(), nil
	}
	return rs.primary.addr(), nil
}

// SentinelAddrs lists the sentinels' addresses (none with manual promotion).
func (l *Local) SentinelAddrs() []string {
	if l.rep == nil {
		return nil
	}
	out := make([]string, len(l.rep.sentinels))
	for i, s := range l.rep.sentinels {
		out[i] = s.addr()
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
func (l *Local) ReplicationFaulty() bool { return l.rep != nil && l.rep.link.Faulty() }

// CutReplication drops all data on the replication link until healed.
func (l *Local) CutReplication(ctx context.Context) error {
	rs, err := l.replicated()
	if err != nil {
		return err
	}
	return rs.link.Cut()
}

// HealReplication removes the cut and latency from the replication link.
func (l *Local) HealReplication(ctx context.Context) error {
	rs, err := l.replicated()
	if err != nil {
		return err
	}
	rs.link.Heal()
	return nil
}

// DelayReplication adds latency to the replication link.
func (l *Local) DelayReplication(ctx context.Context, lat Latency) error {
	rs, err := l.replicated()
	if err != nil {
		return err
	}
	return rs.link.Delay(lat)
}

// withReplica runs f with Local.mu held, bounded by timeout and ended by Stop.
func (l *Local) withReplica(ctx context.Context, timeout time.Duration, f func(context.Context, *replicaSet) error) error {
	rs, err := l.replicated()
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return ErrStopped
	}
	if timeout <= 0 {
		timeout = defaultFailoverTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(rs.ctx, cancel)
	defer stop()
	return f(ctx, rs)
}

// Failover loses the master (SIGKILL, or a cut of the replication link),
// promotes the replica (by sentinel or REPLICAOF NO ONE) and retargets the
// clients' proxies to it. See Replicated.
func (l *Local) Failover(ctx context.Context, opt FailoverOptions) (FailoverResult, error) {
	var res FailoverResult
	if opt.Method == "" {
		opt.Method = FailoverKill
	}
	if opt.Method != FailoverKill && opt.Method != FailoverPartition {
		return res, fmt.Errorf("cluster: failover method must be kill or partition, got %q", opt.Method)
	}
	if opt.Detect < 0 {
		return res, fmt.Errorf("cluster: failover detect must not be negative, got %v", opt.Detect)
	}
	err := l.withReplica(ctx, opt.Timeout, func(ctx context.Context, rs *replicaSet) error {
		var err error
		res, err = l.failover(ctx, rs, opt)
		return err
	})
	return res, err
}

// failover does Failover with Local.mu held.
func (l *Local) failover(ctx context.Context, rs *replicaSet, opt FailoverOptions) (FailoverResult, error) {
	res := FailoverResult{
		OldMaster: rs.primary.addr(), NewMaster: rs.replica.addr(),
		Method: opt.Method, Promotion: rs.promotion,
	}
	if rs.dirty {
		return res, ErrFailedOver
	}
	if rs.promotion == PromoteSentinel {
		// A failover right after the previous failback may find the
		// sentinels still rediscovering the replica and each other.
		if err := sentinelsReady(ctx, rs.sentinels, rs.replica.addr()); err != nil {
			return res, err
		}
		detect := opt.Detect
		if detect == 0 {
			detect = rs.downAfter
		}
		rs.dirty, rs.armed = true, true
		if err := sentinelSet(ctx, rs.sentinels, "down-after-milliseconds", detect); err != nil {
			return res, fmt.Errorf("cluster: arm sentinels: %w", err)
		}
	}
	rs.dirty = true
	start := time.Now()
	switch opt.Method {
	case FailoverKill:
		rs.killed = true
		rs.primary.kill()
	case FailoverPartition:
		if err := rs.link.Cut(); err != nil {
			return res, err
		}
	}
	if rs.promotion == PromoteSentinel {
		if err := sentinelsSwitched(ctx, rs.sentinels, rs.replica.addr()); err != nil {
			return res, err
		}
	} else {
		if opt.Detect > 0 && !sleepCtx(ctx, opt.Detect) {
			return res, ctx.Err()
		}
		if err := replicaOf(ctx, rs.replica.addr(), ""); err != nil {
			return res, fmt.Errorf("cluster: promote %s: %w", rs.replica.name, err)
		}
	}
	if err := waitReplication(ctx, rs.replica.addr(), "promoted replica", isMaster); err != nil {
		return res, err
	}
	if err := l.proxies.Retarget(ctx, rs.primary.name, rs.replica.addr()); err != nil {
		return res, err
	}
	rs.failedOver.Store(true)
	res.Took = time.Since(start)
	return res, nil
}

// Failback undoes a failover (see Replicated).
func (l *Local) Failback(ctx context.Context) error {
	return l.withReplica(ctx, 0, func(ctx context.Context, rs *replicaSet) error {
		return l.failback(ctx, rs)
	})
}

// disarm makes the sentinels forget the master if they were armed, so that
// none finishes or starts a failover, or reconfigures the old master, while
// the pair is repaired. Called with Local.mu held.
func (rs *replicaSet) disarm(ctx context.Context) error {
	if !rs.armed || len(rs.sentinels) == 0 {
		return nil
	}
	return sentinelRemove(ctx, rs.sentinels)
}

// failback does Failback with Local.mu held: disarm the sentinels, heal
// the link, bring the primary back, hand the master role back to it,
// reattach the replica through the link, retarget the clients, and let
// the sentinels monitor the primary again.
func (l *Local) failback(ctx context.Context, rs *replicaSet) error {
	if !rs.dirty {
		return nil
	}
	if err := rs.disarm(ctx); err != nil {
		return err
	}
	rs.link.Heal()
	if rs.primary.current() == nodeDown {
		if !rs.killed {
			return fmt.Errorf("cluster: failback: %s is down (not by the failover); restart it first", rs.primary.name)
		}
		if err := rs.primary.restart(ctx); err != nil {
			return err
		}
	}
	rs.killed = false
	pAddr, rAddr := rs.primary.addr(), rs.replica.addr()
	rInfo, err := replication(ctx, rAddr)
	if err != nil {
		return fmt.Errorf("cluster: failback: %w", err)
	}
	if isMaster(rInfo) {
		if err := handBack(ctx, pAddr, rAddr, rs.primary.port); err != nil {
			return err
		}
	} else if pInfo, err := replication(ctx, pAddr); err != nil {
		return fmt.Errorf("cluster: failback: %w", err)
	} else if !isMaster(pInfo) {
		// Neither is master: the old master had been made a replica.
		if err := replicaOf(ctx, pAddr, ""); err != nil {
			return err
		}
	}
	if err := rs.attach(ctx); err != nil {
		return err
	}
	if err := l.proxies.Retarget(ctx, rs.primary.name, pAddr); err != nil {
		return err
	}
	rs.failedOver.Store(false)
	if rs.armed {
		_, linkPort, _ := net.SplitHostPort(rs.link.addr)
		port, _ := strconv.Atoi(linkPort)
		if err := sentinelMonitor(ctx, rs.sentinels, port, rs.quorum); err != nil {
			return err
		}
		rs.armed = false
	}
	rs.dirty = false
	return nil
}

// handBack makes the old master at pAddr a replica of the new master at
// rAddr, waits until it is in sync, and hands it the master role with a
// coordinated FAILOVER: the new master pauses writes until the old one has
// every write, then they swap roles, so nothing acknowledged is lost.
func handBack(ctx context.Context, pAddr, rAddr string, pPort int) error {
	if err := replicaOf(ctx, pAddr, rAddr); err != nil {
		return fmt.Errorf("cluster: failback: %w", err)
	}
	if err := waitReplication(ctx, pAddr, "old master resyncing", linkedTo(rAddr)); err != nil {
		return err
	}
	if err := waitReplication(ctx, rAddr, "old master listed online", hasOnlineReplica(strconv.Itoa(pPort))); err != nil {
		return err
	}
	err := adminDo(rAddr, func(rc *redis.Client) error {
		return rc.Do(ctx, "FAILOVER", "TO", "127.0.0.1", pPort, "TIMEOUT", failbackHandover.Milliseconds()).Err()
	})
	if err != nil {
		return fmt.Errorf("cluster: failback: FAILOVER: %w", err)
	}
	if err := waitReplication(ctx, pAddr, "old master promoted", isMaster); err != nil {
		return err
	}
	return waitReplication(ctx, rAddr, "handover finished", func(m map[string]string) bool {
		return m["role"] == "slave" && m["master_failover_state"] == "no-failover"
	})
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
	out := make([]int, len(l.rep.sentinels))
	for i, s := range l.rep.sentinels {
		out[i] = s.pid()
	}
	return out
}
