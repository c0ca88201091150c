package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

func init() {
	Register(Spec{Kind: KindSlotMigrate, Needs: []Capability{NeedRedisCluster}, Params: []string{"nodes"},
		Busy: slotMigrateStart, Colour: rgb(0xff, 0x7f, 0x0e), New: func(env Env) Nemesis { return &SlotMigrate{Env: env} }})
}

// KindSlotMigrate is the lock key's hash slot moved to another master of
// a Redis Cluster.
const KindSlotMigrate = "slot-migrate"

// SlotMigrateBusy is the time a schedule allows for a slot migration's
// start: a few commands on three masters, MIGRATE of the slot's few keys
// and the wait until every node gives the slot to the target (measured
// 30 to 100 ms on an idle machine).
const SlotMigrateBusy = 500 * time.Millisecond

// slotMigrateTimeout bounds one migration.
const slotMigrateTimeout = 15 * time.Second

// slotMigrateStart is how long a slot migration's start takes.
func slotMigrateStart(Fault) time.Duration { return SlotMigrateBusy }

// SlotMigrate moves the lock key's slot (Env.Key) from the master that
// owns it to another master of a Redis Cluster (RedisCluster.MigrateSlot,
// as redis-cli --cluster reshard does: the target IMPORTING, the owner
// MIGRATING, the keys moved by MIGRATE, each with its remaining TTL, then
// the slot assigned to the target everywhere). During the move a client
// asking the owner for a key already moved is sent on with ASK; a client
// with a stale slot map is sent on with MOVED afterwards. A lock is safe
// across it only if every step of it (a script's keys, a renewal's
// check-and-set) lands on the node that holds the key.
//
// The fault's one node names the target's shard: the target is that
// node's master now (the node itself when it is a master), and when that
// master owns the slot already, the master after it in the cluster's
// order. Without a node the target is the master after the owner.
//
// Stop does nothing: a migration is a normal, permanent change of the
// cluster, not a fault to undo; the next slot-migrate moves the slot on.
// Draw picks the shard from the seeded source; the fault's window
// (Duration, 1 TTL) only separates it from the next fault in a schedule
// (its shortest step is SlotMigrateBusy plus half a TTL). The start's
// record says what moved (Outcome).
type SlotMigrate struct {
	Env Env
	permanent

	mu      sync.Mutex
	outcome string
}

// Draw draws a migration of the lock key's slot to a seeded node's shard.
func (*SlotMigrate) Draw(r *rand.Rand, t Topology) Fault {
	return Fault{Kind: KindSlotMigrate, Nodes: []string{pick(r, t.Nodes)}, Duration: t.ttl()}
}

// Start moves the lock key's slot to the target's master.
func (s *SlotMigrate) Start(ctx context.Context, f Fault) error {
	if len(f.Nodes) > 1 {
		return fmt.Errorf("%w: %s names at most one node (the target's shard), got %v", ErrBadFault, f.Kind, f.Nodes)
	}
	rc, err := redisClusterOf(s.Env.Cluster, KindSlotMigrate)
	if err != nil {
		return err
	}
	owner, slot, err := keyMaster(ctx, rc, s.Env.Key)
	if err != nil {
		return err
	}
	masters, err := rc.Masters(ctx)
	if err != nil {
		return err
	}
	to := owner
	if len(f.Nodes) == 1 {
		if to, err = shardMaster(ctx, rc, f.Nodes[0]); err != nil {
			return err
		}
	}
	if to == owner {
		to = after(masters, owner)
	}
	if to == owner {
		return fmt.Errorf("%w: %s: %s is the only master", ErrUnsupported, KindSlotMigrate, owner)
	}
	ctx, cancel := context.WithTimeout(ctx, slotMigrateTimeout)
	defer cancel()
	begin := time.Now()
	if err := rc.MigrateSlot(ctx, slot, to); err != nil {
		return err
	}
	s.mu.Lock()
	s.outcome = fmt.Sprintf("slot %d moved from %s to %s in %v", slot, owner, to, time.Since(begin).Round(time.Millisecond))
	s.mu.Unlock()
	return nil
}

// after is the element of xs after x, cyclically (x itself when it is the
// only one or absent from an empty xs).
func after(xs []string, x string) string {
	i := slices.Index(xs, x)
	if len(xs) == 0 {
		return x
	}
	return xs[(i+1)%len(xs)]
}

// Outcome says what the latest Start moved, e.g. "slot 3300 moved from n1
// to n2 in 120ms".
func (s *SlotMigrate) Outcome(Fault) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outcome
}

// MinStep is SlotMigrateBusy plus the default half TTL.
func (*SlotMigrate) MinStep(t Topology) time.Duration {
	return SlotMigrateBusy + ttls(t, DefaultMinTTLs)
}

// Aim times the migration right after a lease was granted, so that it
// happens while the lock is held: the holder's renewal and release, and
// the other clients' acquires, meet the slot mid-move or moved.
func (*SlotMigrate) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f.Target = AimLease
	return f
}
