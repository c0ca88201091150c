package rediscluster

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
)

// do sends one command to a node on an admin connection (its own
// address, bypassing every proxy) and returns the reply.
func do(ctx context.Context, n *node, args ...any) (any, error) {
	var v any
	err := redisadmin.Do(n.Addr(), func(rc *redis.Client) error {
		var err error
		v, err = rc.Do(ctx, args...).Result()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rediscluster: %s: %s: %w", n.Name(), cmdString(args), err)
	}
	return v, nil
}

// cmdString renders a command for error messages.
func cmdString(args []any) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = fmt.Sprint(a)
	}
	return strings.Join(s, " ")
}

// configSet sets config parameters (name, value pairs) on a node.
func configSet(ctx context.Context, n *node, pairs ...string) error {
	args := []any{"CONFIG", "SET"}
	for _, p := range pairs {
		args = append(args, p)
	}
	_, err := do(ctx, n, args...)
	return err
}

// form makes the started nodes one cluster: each node gets a distinct
// config epoch (as redis-cli --cluster create does, so that no epoch
// collision has to be resolved), each master an even share of the
// slots; every node meets n1 through n1's proxies, and once every node
// knows every other, each replica replicates its master.
func (c *Cluster) form(ctx context.Context) error {
	for i, n := range c.all {
		v, err := do(ctx, n, "CLUSTER", "MYID")
		if err != nil {
			return err
		}
		n.mu.Lock()
		n.id = fmt.Sprint(v)
		n.mu.Unlock()
		if _, err := do(ctx, n, "CLUSTER", "SET-CONFIG-EPOCH", i+1); err != nil {
			return err
		}
	}
	for i := 0; i < c.masters; i++ {
		from, to := i*Slots/c.masters, (i+1)*Slots/c.masters-1
		if _, err := do(ctx, c.all[i], "CLUSTER", "ADDSLOTSRANGE", from, to); err != nil {
			return err
		}
	}
	first := c.all[0]
	addr, bus := first.announced()
	host, port := hostPort(addr)
	for _, n := range c.all[1:] {
		if _, err := do(ctx, n, "CLUSTER", "MEET", host, port, bus); err != nil {
			return err
		}
	}
	if err := c.waitFor(ctx, "every node knows every other", c.meetProblem); err != nil {
		return err
	}
	for i, r := range c.all[c.masters:] {
		if _, err := do(ctx, r, "CLUSTER", "REPLICATE", c.all[i].nodeID()); err != nil {
			return err
		}
	}
	return nil
}

// meetProblem says which node does not yet know every other node at its
// announced address with a connected link, or "".
func (c *Cluster) meetProblem(s *Snapshot) string {
	for _, st := range s.Nodes {
		if st.Err != nil {
			return st.Err.Error()
		}
		if st.Known != len(c.all) || len(st.Suspects) > 0 {
			return fmt.Sprintf("%s knows %d of %d nodes, suspects %v", st.Name, st.Known, len(c.all), st.Suspects)
		}
		for _, p := range st.view {
			n, err := c.node(c.nameOf(p.id))
			if err != nil {
				return fmt.Sprintf("%s knows a stranger %s", st.Name, p.id)
			}
			if addr, bus := n.announced(); p.addr != addr || p.busPort != bus {
				return fmt.Sprintf("%s sees %s at %s@%d, not %s@%d", st.Name, n.Name(), p.addr, p.busPort, addr, bus)
			}
		}
	}
	return ""
}
