package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Promotion is how a failover promotes the replica to master.
type Promotion string

// Promotions. PromoteSentinel lets real redis-sentinel processes notice
// the master is down, elect a leader and promote the replica; PromoteManual
// sends REPLICAOF NO ONE to the replica itself. PromoteAuto (the zero value,
// for configuration only) means sentinel when redis-sentinel is installed,
// else manual.
const (
	PromoteAuto     Promotion = ""
	PromoteSentinel Promotion = "sentinel"
	PromoteManual   Promotion = "manual"
)

// FailoverMethod is how a failover loses the master.
type FailoverMethod string

// Failover methods. FailoverKill ends the master with SIGKILL: clients'
// connections to it are refused until the promotion moves them. FailoverPartition
// cuts the master from its replica and the sentinels (the replication
// link) while it stays alive and clients still reach it: writes it
// acknowledges after the cut never reach the replica, and are lost when
// the promotion moves the clients (the split brain, from the cut to the
// promotion).
const (
	FailoverKill      FailoverMethod = "kill"
	FailoverPartition FailoverMethod = "partition"
)

// FailoverOptions configures one Failover.
type FailoverOptions struct {
	// Method is how the master is lost; default FailoverKill.
	Method FailoverMethod
	// Detect is how long the master must look down before promotion: the
	// sentinels' down-after-milliseconds (default the provider's, 500 ms
	// locally), or the wait before a manual promotion (default 0).
	Detect time.Duration
	// Timeout bounds the whole failover; default 15 s.
	Timeout time.Duration
}

// FailoverResult says what a Failover did.
type FailoverResult struct {
	// OldMaster and NewMaster are the processes' own addresses.
	OldMaster, NewMaster string
	// Method is how the master was lost; Promotion how the replica was
	// promoted (PromoteSentinel or PromoteManual, never auto).
	Method    FailoverMethod
	Promotion Promotion
	// Lost is the time from the call to losing the master: with
	// sentinel promotion the sentinels are checked and armed first, which
	// takes a few round trips (about 250 ms on a machine at load 8).
	// Writes the master acknowledges before then replicate as usual.
	Lost time.Duration
	// Took is the time from losing the master to the clients' proxies
	// leading to the new master.
	Took time.Duration
}

// String describes the result, e.g. "kill at +12ms, promoted by sentinel
// in 1.2s".
func (r FailoverResult) String() string {
	return fmt.Sprintf("%s at +%v, promoted by %s in %v", r.Method, r.Lost.Round(time.Millisecond), r.Promotion, r.Took.Round(time.Millisecond))
}

// Replicated is offered by providers that can run the primary node (n1)
// as a master with one asynchronously replicated replica. The replica is
// not one of Nodes(): locks see one logical node, Primary, whose clients'
// proxies (Addr(client, Primary())) lead to whichever process is master.
// The replica replicates through a proxy of its own (the replication
// link), which the sentinels share to watch the master, so that one cut
// partitions the master from the whole replica side.
//
// Use ReplicationOf to get it from a Cluster: a provider may implement the
// methods yet have been started without a replica.
type Replicated interface {
	// Primary is the node that has the replica, or "" when none runs.
	Primary() string
	// Promotion is how Failover promotes: PromoteSentinel or PromoteManual,
	// fixed when the cluster started.
	Promotion() Promotion
	// ReplicaAddr is the replica process's own address, bypassing proxies.
	ReplicaAddr() (string, error)
	// MasterAddr is the own address of the process the clients' proxies to
	// Primary currently lead to: AdminAddr(Primary()) except between a
	// Failover and its Failback.
	MasterAddr() (string, error)

	// CutReplication drops all data on the replication link (replica and
	// sentinels to master) until HealReplication.
	CutReplication(ctx context.Context) error
	// HealReplication removes the cut and any latency from the
	// replication link.
	HealReplication(ctx context.Context) error
	// DelayReplication adds latency to the replication link.
	DelayReplication(ctx context.Context, l Latency) error

	// Failover loses the master (opt.Method) and promotes the replica
	// (Promotion()), then points every client's proxy to Primary at the new
	// master, closing the clients' connections so that they reconnect to
	// it. Writes the replica had not received are lost. A failover already
	// in effect is an error (ErrFailedOver); call Failback first.
	Failover(ctx context.Context, opt FailoverOptions) (FailoverResult, error)
	// Failback undoes a failover without losing a write acknowledged by the
	// new master: the old master comes back (restarted if the failover
	// killed it, reconnected if it cut it) as a replica of the new one,
	// catches up, and is handed the master role back with a coordinated
	// FAILOVER; the replica replicates through its proxy again, the
	// clients' proxies lead to the old master again, and the sentinels
	// watch it. It also repairs a failover that failed half-way, and does
	// nothing when none is in effect. HealAll calls it.
	Failback(ctx context.Context) error
}

// Errors of replicated clusters.
var (
	ErrNoSentinel = errors.New("cluster: redis-sentinel not found")
	ErrFailedOver = errors.New("cluster: a failover is already in effect")
)

// ReplicationOf returns c's replication control, or an error wrapping
// ErrUnsupported when c's provider has none or c was started without a
// replica.
func ReplicationOf(c Cluster) (Replicated, error) {
	r, ok := c.(Replicated)
	if !ok {
		return nil, fmt.Errorf("%w: this provider runs no replicas", ErrUnsupported)
	}
	if r.Primary() == "" {
		return nil, fmt.Errorf("%w: the cluster was started without a replica (local.Config.Replica, docker.Config.Replica)", ErrUnsupported)
	}
	return r, nil
}
