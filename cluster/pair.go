package cluster

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
)

// PairEnds are the addresses of a master-replica pair as each side sees
// the other. Own addresses are reachable from this host (for commands
// and for the clients' proxies); peer addresses are those the processes
// use between themselves, which the sentinels use too.
type PairEnds struct {
	// PrimaryOwn and ReplicaOwn are the processes' own addresses.
	PrimaryOwn, ReplicaOwn string
	// PrimaryLink is where the replica and the sentinels reach the
	// primary: the replication link (a proxy locally, the container's
	// private-network address under docker).
	PrimaryLink string
	// PrimaryPeer is where the replica reaches the primary directly, and
	// so how a master lists the primary as its replica (FAILOVER TO).
	PrimaryPeer string
	// ReplicaPeer is where the primary reaches the replica, and the
	// address the sentinels know the replica by.
	ReplicaPeer string
}

// DefaultSentinelDownAfter is the sentinels' down-after-milliseconds during
// a failover fault: how long the master must be unreachable before they
// agree it is down and promote the replica.
const DefaultSentinelDownAfter = 500 * time.Millisecond

// defaultFailoverTimeout bounds a Failover or Failback.
const defaultFailoverTimeout = 15 * time.Second

// failbackHandover bounds the coordinated FAILOVER of a failback: how long
// the new master pauses writes waiting for the old one to catch up.
const failbackHandover = 5 * time.Second

// pairOps is what the shared failover logic needs from a provider: how
// to lose the primary and bring it back, and how to cut and heal the
// replication link. Every method is called with the provider's lock held.
type pairOps interface {
	// ends are the pair's current addresses (the primary's peer address
	// may change when it restarts or reconnects).
	ends(ctx context.Context) (PairEnds, error)
	killPrimary(ctx context.Context) error
	primaryDown() bool
	restartPrimary(ctx context.Context) error
	cutLink(ctx context.Context) error
	healLink(ctx context.Context) error
}

// pairState is a provider's replicated pair: what it promotes with, its
// sentinels, and where a failover stands. Both providers embed it and
// run Failover and Failback through it.
type pairState struct {
	primary   string // node name, the clients' target
	proxies   *Proxies
	promotion Promotion // sentinel or manual
	downAfter time.Duration
	sentinels []redisadmin.Sentinel
	quorum    int

	// ctx is cancelled by Stop, ending a failover or failback in flight.
	ctx    context.Context
	cancel context.CancelFunc

	// Guarded by the provider's lock.
	dirty  bool // a failover started and no failback has completed
	killed bool // the failover killed the primary
	armed  bool // sentinels armed, or removed and not yet monitoring again

	failedOver atomic.Bool // the clients' proxies lead to the replica
}

// newPairState is the state of a pair of primary, not failed over.
func newPairState(primary string, proxies *Proxies, promotion Promotion, downAfter time.Duration) *pairState {
	if downAfter == 0 {
		downAfter = DefaultSentinelDownAfter
	}
	ps := &pairState{primary: primary, proxies: proxies, promotion: promotion, downAfter: downAfter}
	ps.ctx, ps.cancel = context.WithCancel(context.Background())
	return ps
}

// ReplicaOptions are the replica settings of the providers that run
// their nodes (local.Config and docker.Config embed them); they apply
// only when the provider is asked for a replica.
type ReplicaOptions struct {
	// Promotion is how a failover promotes the replica: PromoteSentinel,
	// PromoteManual, or PromoteAuto, the provider's default (locally:
	// sentinel when redis-sentinel is installed, else manual; under
	// docker: sentinel, which the image's redis-server runs).
	Promotion Promotion
	// Sentinels is the number of sentinels when promotion is by sentinel
	// (default 1; 3 gives a quorum of 2).
	Sentinels int
	// SentinelDownAfter is the sentinels' down-after-milliseconds during a
	// failover (default DefaultSentinelDownAfter).
	SentinelDownAfter time.Duration
}

// Check validates the options: the promotion (auto, sentinel or manual;
// the provider resolves auto), the sentinel count and their down-after.
func (o ReplicaOptions) Check() error {
	if o.Sentinels < 0 {
		return fmt.Errorf("cluster: sentinels must not be negative, got %d", o.Sentinels)
	}
	if o.SentinelDownAfter < 0 {
		return fmt.Errorf("cluster: sentinel down-after must not be negative, got %v", o.SentinelDownAfter)
	}
	switch o.Promotion {
	case PromoteAuto, PromoteSentinel, PromoteManual:
		return nil
	}
	return fmt.Errorf("cluster: promotion must be sentinel or manual, got %q", o.Promotion)
}

// checkFailoverOptions fills in the default method and refuses bad options.
func checkFailoverOptions(opt *FailoverOptions) error {
	if opt.Method == "" {
		opt.Method = FailoverKill
	}
	if opt.Method != FailoverKill && opt.Method != FailoverPartition {
		return fmt.Errorf("cluster: failover method must be kill or partition, got %q", opt.Method)
	}
	if opt.Detect < 0 {
		return fmt.Errorf("cluster: failover detect must not be negative, got %v", opt.Detect)
	}
	return nil
}

// locked runs f with mu held unless *stopped, bounded by timeout (default
// defaultFailoverTimeout) and ended by Stop (ps.cancel).
func (ps *pairState) locked(ctx context.Context, mu *sync.Mutex, stopped *bool, timeout time.Duration,
	f func(context.Context) error) error {
	mu.Lock()
	defer mu.Unlock()
	if *stopped {
		return ErrStopped
	}
	if timeout <= 0 {
		timeout = defaultFailoverTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(ps.ctx, cancel)
	defer stop()
	return f(ctx)
}

// runFailover checks opt and runs failover with mu held (see locked).
func (ps *pairState) runFailover(ctx context.Context, mu *sync.Mutex, stopped *bool, ops pairOps,
	opt FailoverOptions) (FailoverResult, error) {
	var res FailoverResult
	if err := checkFailoverOptions(&opt); err != nil {
		return res, err
	}
	err := ps.locked(ctx, mu, stopped, opt.Timeout, func(ctx context.Context) error {
		var err error
		res, err = ps.failover(ctx, ops, opt)
		return err
	})
	return res, err
}

// runFailback runs failback with mu held (see locked).
func (ps *pairState) runFailback(ctx context.Context, mu *sync.Mutex, stopped *bool, ops pairOps) error {
	return ps.locked(ctx, mu, stopped, 0, func(ctx context.Context) error { return ps.failback(ctx, ops) })
}

// masterOwn is the own address of the process the clients' proxies lead to.
func (ps *pairState) masterOwn(e PairEnds) string {
	if ps.failedOver.Load() {
		return e.ReplicaOwn
	}
	return e.PrimaryOwn
}

// attach makes the replica replicate the primary through the link and
// waits until its link is up.
func attach(ctx context.Context, e PairEnds) error {
	if err := redisadmin.ReplicaOf(ctx, e.ReplicaOwn, e.PrimaryLink); err != nil {
		return fmt.Errorf("cluster: replica: %w", err)
	}
	return redisadmin.WaitReplication(ctx, e.ReplicaOwn, "replica in sync", redisadmin.LinkedTo(e.PrimaryLink))
}

// failover loses the primary (opt.Method, already checked), promotes the
// replica (by sentinel or REPLICAOF NO ONE) and retargets the clients'
// proxies to it. See Replicated.Failover.
func (ps *pairState) failover(ctx context.Context, ops pairOps, opt FailoverOptions) (FailoverResult, error) {
	called := time.Now()
	res := FailoverResult{Method: opt.Method, Promotion: ps.promotion}
	e, err := ops.ends(ctx)
	if err != nil {
		return res, err
	}
	res.OldMaster, res.NewMaster = e.PrimaryOwn, e.ReplicaOwn
	if ps.dirty {
		return res, ErrFailedOver
	}
	if ps.promotion == PromoteSentinel {
		// A failover right after the previous failback may find the
		// sentinels still rediscovering the replica and each other.
		if err := redisadmin.SentinelsReady(ctx, ps.sentinels, e.ReplicaPeer); err != nil {
			return res, err
		}
		detect := opt.Detect
		if detect == 0 {
			detect = ps.downAfter
		}
		ps.dirty, ps.armed = true, true
		if err := redisadmin.SentinelSet(ctx, ps.sentinels, "down-after-milliseconds", detect); err != nil {
			return res, fmt.Errorf("cluster: arm sentinels: %w", err)
		}
	}
	ps.dirty = true
	start := time.Now()
	res.Lost = start.Sub(called)
	switch opt.Method {
	case FailoverKill:
		ps.killed = true
		if err := ops.killPrimary(ctx); err != nil {
			return res, err
		}
	case FailoverPartition:
		if err := ops.cutLink(ctx); err != nil {
			return res, err
		}
	}
	if ps.promotion == PromoteSentinel {
		if err := redisadmin.SentinelsSwitched(ctx, ps.sentinels, e.ReplicaPeer); err != nil {
			return res, err
		}
	} else {
		if opt.Detect > 0 && !redisadmin.Sleep(ctx, opt.Detect) {
			return res, ctx.Err()
		}
		if err := redisadmin.ReplicaOf(ctx, e.ReplicaOwn, ""); err != nil {
			return res, fmt.Errorf("cluster: promote the replica: %w", err)
		}
	}
	if err := redisadmin.WaitReplication(ctx, e.ReplicaOwn, "promoted replica", redisadmin.IsMaster); err != nil {
		return res, err
	}
	if err := ps.proxies.Retarget(ctx, ps.primary, e.ReplicaOwn); err != nil {
		return res, err
	}
	ps.failedOver.Store(true)
	res.Took = time.Since(start)
	return res, nil
}

// disarm makes the sentinels forget the master if they were armed, so that
// none finishes or starts a failover, or reconfigures the old master, while
// the pair is repaired.
func (ps *pairState) disarm(ctx context.Context) error {
	if !ps.armed || len(ps.sentinels) == 0 {
		return nil
	}
	return redisadmin.SentinelRemove(ctx, ps.sentinels)
}

// failback undoes a failover: disarm the sentinels, heal the link, bring
// the primary back, hand the master role back to it, reattach the replica
// through the link, retarget the clients, and let the sentinels monitor
// the primary again. See Replicated.Failback.
func (ps *pairState) failback(ctx context.Context, ops pairOps) error {
	if !ps.dirty {
		return nil
	}
	if err := ps.disarm(ctx); err != nil {
		return err
	}
	if err := ops.healLink(ctx); err != nil {
		return err
	}
	if ops.primaryDown() {
		if !ps.killed {
			return fmt.Errorf("cluster: failback: %s is down (not by the failover); restart it first", ps.primary)
		}
		if err := ops.restartPrimary(ctx); err != nil {
			return err
		}
	}
	ps.killed = false
	e, err := ops.ends(ctx)
	if err != nil {
		return err
	}
	rInfo, err := redisadmin.Replication(ctx, e.ReplicaOwn)
	if err != nil {
		return fmt.Errorf("cluster: failback: %w", err)
	}
	if redisadmin.IsMaster(rInfo) {
		if err := handBack(ctx, e); err != nil {
			return err
		}
	} else if pInfo, err := redisadmin.Replication(ctx, e.PrimaryOwn); err != nil {
		return fmt.Errorf("cluster: failback: %w", err)
	} else if !redisadmin.IsMaster(pInfo) {
		// Neither is master: the old master had been made a replica.
		if err := redisadmin.ReplicaOf(ctx, e.PrimaryOwn, ""); err != nil {
			return err
		}
	}
	if err := attach(ctx, e); err != nil {
		return err
	}
	if err := ps.proxies.Retarget(ctx, ps.primary, e.PrimaryOwn); err != nil {
		return err
	}
	ps.failedOver.Store(false)
	if ps.armed {
		if err := redisadmin.SentinelMonitor(ctx, ps.sentinels, e.PrimaryLink, ps.quorum); err != nil {
			return err
		}
		ps.armed = false
	}
	ps.dirty = false
	return nil
}

// handBack makes the old master a replica of the new master (the
// promoted replica), waits until it is in sync, and hands it the master
// role with a coordinated FAILOVER: the new master pauses writes until
// the old one has every write, then they swap roles, so nothing
// acknowledged is lost.
func handBack(ctx context.Context, e PairEnds) error {
	pAddr, rAddr := e.PrimaryOwn, e.ReplicaOwn
	if err := redisadmin.ReplicaOf(ctx, pAddr, e.ReplicaPeer); err != nil {
		return fmt.Errorf("cluster: failback: %w", err)
	}
	if err := redisadmin.WaitReplication(ctx, pAddr, "old master resyncing", redisadmin.LinkedTo(e.ReplicaPeer)); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(e.PrimaryPeer)
	if err != nil {
		return err
	}
	if err := redisadmin.WaitReplication(ctx, rAddr, "old master listed online", redisadmin.HasOnlineReplica(host, port)); err != nil {
		return err
	}
	err = redisadmin.Do(rAddr, func(rc *redis.Client) error {
		return rc.Do(ctx, "FAILOVER", "TO", host, port, "TIMEOUT", failbackHandover.Milliseconds()).Err()
	})
	if err != nil {
		return fmt.Errorf("cluster: failback: FAILOVER: %w", err)
	}
	if err := redisadmin.WaitReplication(ctx, pAddr, "old master promoted", redisadmin.IsMaster); err != nil {
		return err
	}
	return redisadmin.WaitReplication(ctx, rAddr, "handover finished", func(m map[string]string) bool {
		return m["role"] == "slave" && m["master_failover_state"] == "no-failover"
	})
}
