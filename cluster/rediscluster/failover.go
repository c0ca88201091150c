package rediscluster

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Failover modes: the argument of CLUSTER FAILOVER.
const (
	// FailoverCoordinated ("") is a manual failover agreed with the
	// master: the master stops its clients, the replica catches up with
	// its replication offset, then is elected; nothing acknowledged is
	// lost. It needs the master reachable on the bus and by replication.
	FailoverCoordinated = ""
	// FailoverForce skips the master: the replica asks the other masters
	// for an election at once, with whatever data it has.
	FailoverForce = "FORCE"
	// FailoverTakeover skips the election too: the replica bumps the
	// config epoch on its own authority and takes the slots.
	FailoverTakeover = "TAKEOVER"
)

// manualFailoverTimeout is Redis's limit on a coordinated failover
// (CLUSTER_MF_TIMEOUT): after it the failover is abandoned silently.
const manualFailoverTimeout = 5 * time.Second

// Failover sends CLUSTER FAILOVER [mode] to a replica and waits until it
// owns every slot its master owned, in the merged view of State and in
// its own. It waits at most manualFailoverTimeout plus twice NodeTimeout
// plus a second (less if ctx ends first); the error then says what was
// missing. The old master is not waited for: it turns replica when it
// hears of the new epoch (at once when reachable).
func (c *Cluster) Failover(ctx context.Context, replica, mode string) error {
	if !slices.Contains([]string{FailoverCoordinated, FailoverForce, FailoverTakeover}, mode) {
		return fmt.Errorf("rediscluster: failover mode must be %q, %q or %q, got %q",
			FailoverCoordinated, FailoverForce, FailoverTakeover, mode)
	}
	r, err := c.node(replica)
	if err != nil {
		return err
	}
	s, err := c.State(ctx)
	if err != nil {
		return err
	}
	st, _ := s.Node(replica)
	if st.Err != nil {
		return st.Err
	}
	if st.Role != RoleReplica {
		return fmt.Errorf("rediscluster: failover: %s is not a replica", replica)
	}
	var slots []int
	for sl := range Slots {
		if s.Owner(sl) == st.Following {
			slots = append(slots, sl)
		}
	}
	args := []any{"CLUSTER", "FAILOVER"}
	if mode != "" {
		args = append(args, mode)
	}
	if _, err := do(ctx, r, args...); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, manualFailoverTimeout+2*c.cfg.NodeTimeout+time.Second)
	defer cancel()
	what := fmt.Sprintf("%s (failover %q) owns the %d slots of %s", replica, mode, len(slots), st.Following)
	return c.waitFor(ctx, what, func(s *Snapshot) string {
		me, _ := s.Node(replica)
		if me.Err != nil {
			return me.Err.Error()
		}
		if me.Role != RoleMaster {
			return replica + " is still a replica"
		}
		for _, sl := range slots {
			if o := s.Owner(sl); o != replica {
				return fmt.Sprintf("slot %d is still %s's", sl, o)
			}
		}
		return ""
	})
}

// migrateBatch is how many keys one MIGRATE moves.
const migrateBatch = 100

// migrateTimeout is MIGRATE's own timeout (ms as Redis takes it).
const migrateTimeout = 5 * time.Second

// MigrateSlot moves a slot and every key in it to the master to, the way
// redis-cli --cluster does: the target is set IMPORTING and the owner
// MIGRATING; the keys move in batches with MIGRATE (through to's data
// proxy; each keeps its TTL), while clients asking the owner for a moved
// key are sent on with ASK; then CLUSTER SETSLOT NODE gives the slot to
// the target, then to the owner and every other master. It returns once
// every running node assigns the slot to the target. A slot already
// being migrated to the target (partly done) is completed; a slot that
// to owns already is left alone.
func (c *Cluster) MigrateSlot(ctx context.Context, slot int, to string) error {
	if slot < 0 || slot >= Slots {
		return fmt.Errorf("rediscluster: slot %d out of range [0, %d)", slot, Slots)
	}
	dst, err := c.node(to)
	if err != nil {
		return err
	}
	s, err := c.State(ctx)
	if err != nil {
		return err
	}
	if st, _ := s.Node(to); st.Role != RoleMaster {
		return fmt.Errorf("rediscluster: migrate slot %d: %s is not a master", slot, to)
	}
	owner := s.Owner(slot)
	if owner == to {
		return nil
	}
	src, err := c.node(owner)
	if err != nil {
		return fmt.Errorf("rediscluster: migrate slot %d: owner %q: %w", slot, owner, err)
	}
	if _, err := do(ctx, dst, "CLUSTER", "SETSLOT", slot, "IMPORTING", src.nodeID()); err != nil {
		return err
	}
	if _, err := do(ctx, src, "CLUSTER", "SETSLOT", slot, "MIGRATING", dst.nodeID()); err != nil {
		return err
	}
	if err := c.moveKeys(ctx, src, dst, slot); err != nil {
		return err
	}
	// The target first: it bumps its config epoch and claims the slot,
	// so that the new owner wins everywhere.
	order := []*node{dst, src}
	for _, m := range s.Masters {
		if n, _ := c.node(m); n != dst && n != src {
			order = append(order, n)
		}
	}
	for _, n := range order {
		if _, err := do(ctx, n, "CLUSTER", "SETSLOT", slot, "NODE", dst.nodeID()); err != nil {
			return err
		}
	}
	return c.waitFor(ctx, fmt.Sprintf("every node gives slot %d to %s", slot, to), func(s *Snapshot) string {
		for _, st := range s.Nodes {
			if st.Err != nil {
				continue
			}
			if o := c.nameOf(viewOwner(st.view, slot)); o != to {
				return fmt.Sprintf("%s gives slot %d to %q", st.Name, slot, o)
			}
		}
		return ""
	})
}

// moveKeys migrates every key of the slot from src to dst, in batches.
func (c *Cluster) moveKeys(ctx context.Context, src, dst *node, slot int) error {
	addr, _ := dst.announced()
	host, port := hostPort(addr)
	for {
		v, err := do(ctx, src, "CLUSTER", "GETKEYSINSLOT", slot, migrateBatch)
		if err != nil {
			return err
		}
		keys, _ := v.([]any)
		if len(keys) == 0 {
			return nil
		}
		args := []any{"MIGRATE", host, port, "", 0, migrateTimeout.Milliseconds(), "KEYS"}
		args = append(args, keys...)
		if _, err := do(ctx, src, args...); err != nil {
			return err
		}
	}
}

// viewOwner is the id of the slot's owner in one node's view ("" if none).
func viewOwner(view []peerLine, slot int) string {
	for _, p := range view {
		if !p.isMaster() {
			continue
		}
		for _, r := range p.slots {
			if r.from <= slot && slot <= r.to {
				return p.id
			}
		}
	}
	return ""
}
