package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
)

// Roles a node believes it has.
const (
	RoleMaster  = "master"
	RoleReplica = "replica"
)

// NodeStatus is what one node says about itself and the cluster, asked
// on an admin connection (bypassing every proxy).
type NodeStatus struct {
	Name    string
	ID      string            // cluster node id
	Process cluster.NodeState // running, paused or down (not asked when not running)
	Err     error             // why it did not answer (nil when it did)

	Role         string   // RoleMaster or RoleReplica, as it believes
	Following    string   // for a replica, the name of its master, as it believes
	LinkUp       bool     // for a replica, master_link_status:up
	ClusterState string   // cluster_state of CLUSTER INFO: "ok" or "fail"
	Epoch        uint64   // its config epoch
	Slots        int      // the slots it believes it serves
	Suspects     []string // nodes it flags fail, pfail, handshake or noaddr, or is not connected to
	Known        int      // nodes it knows, itself included

	view []peerLine
}

// Snapshot is the cluster as its nodes see it at one moment: each node's
// own view, and the slot owners merged from all views the way Redis
// settles conflicts (the claim with the highest config epoch wins), so
// that a master cut off from the others, which still claims its slots
// with its old epoch, loses them to its promoted replica.
type Snapshot struct {
	Nodes   []NodeStatus // in Nodes() order
	Masters []string     // nodes that own at least one slot, in Nodes() order
	Covered int          // slots with an owner
	owner   [Slots]string
	// disagree counts the answering nodes whose own view of some slot's
	// owner differs from the merged one.
	disagree int
}

// Owner is the name of the slot's owner in the merged view ("" if none).
func (s *Snapshot) Owner(slot int) string {
	if slot < 0 || slot >= Slots {
		return ""
	}
	return s.owner[slot]
}

// Node returns a node's status by name.
func (s *Snapshot) Node(name string) (NodeStatus, bool) {
	for _, n := range s.Nodes {
		if n.Name == name {
			return n, true
		}
	}
	return NodeStatus{}, false
}

// adminTimeout bounds one admin query of one node.
const adminTimeout = 2 * time.Second

// State asks every running node (in parallel, on admin connections) for
// CLUSTER NODES, CLUSTER INFO and INFO replication, and merges their
// views. Paused and down nodes are not asked. It fails only when no node
// answers.
func (c *Cluster) State(ctx context.Context) (*Snapshot, error) {
	s := &Snapshot{Nodes: make([]NodeStatus, len(c.all))}
	var wg sync.WaitGroup
	for i, n := range c.all {
		st := &s.Nodes[i]
		st.Name, st.ID = n.Name(), n.nodeID()
		st.Process, _ = c.Core.State(st.Name)
		if st.Process != cluster.NodeRunning {
			st.Err = fmt.Errorf("rediscluster: %s is not running", st.Name)
			continue
		}
		wg.Go(func() { c.ask(ctx, n, st) })
	}
	wg.Wait()
	answered := 0
	for _, st := range s.Nodes {
		if st.Err == nil {
			answered++
		}
	}
	if answered == 0 {
		return s, fmt.Errorf("rediscluster: no node answered: %w", errors.Join(statusErrs(s)...))
	}
	c.merge(s)
	return s, nil
}

// statusErrs lists the nodes' errors.
func statusErrs(s *Snapshot) []error {
	var out []error
	for _, st := range s.Nodes {
		out = append(out, st.Err)
	}
	return out
}

// ask fills st from the node's answers.
func (c *Cluster) ask(ctx context.Context, n *node, st *NodeStatus) {
	ctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	var nodes, info, repl *redis.StringCmd
	st.Err = redisadmin.Do(n.Addr(), func(rc *redis.Client) error {
		_, err := rc.Pipelined(ctx, func(p redis.Pipeliner) error {
			nodes = p.ClusterNodes(ctx)
			info = p.ClusterInfo(ctx)
			repl = p.Info(ctx, "replication")
			return nil
		})
		return err
	})
	if st.Err != nil {
		st.Err = fmt.Errorf("rediscluster: ask %s: %w", st.Name, st.Err)
		return
	}
	view, err := parseNodes(nodes.Val())
	if err != nil {
		st.Err = err
		return
	}
	st.view = view
	st.ClusterState = infoField(info.Val(), "cluster_state")
	st.LinkUp = infoField(repl.Val(), "master_link_status") == "up"
	st.Known = len(view)
	for _, p := range view {
		if p.has("myself") {
			st.ID = p.id
			st.Epoch = p.epoch
			st.Slots = countSlots(p.slots)
			st.Role = RoleMaster
			if p.has("slave") {
				st.Role = RoleReplica
				st.Following = c.nameOf(p.masterID)
			}
			continue
		}
		if !p.connected || p.has("fail") || p.has("fail?") || p.has("handshake") || p.has("noaddr") {
			st.Suspects = append(st.Suspects, c.nameOf(p.id))
		}
	}
}

// infoField is one field of an INFO-style reply.
func infoField(s, key string) string {
	for _, l := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), key+":"); ok {
			return v
		}
	}
	return ""
}

// countSlots is the number of slots in the ranges.
func countSlots(rs []slotRange) int {
	n := 0
	for _, r := range rs {
		n += r.to - r.from + 1
	}
	return n
}

// claim is a master's claim on a slot in one view.
type claim struct {
	id    string
	epoch uint64
}

// merge computes the slot owners from every answering node's view (the
// highest config epoch wins) and who disagrees with them.
func (c *Cluster) merge(s *Snapshot) {
	var best [Slots]claim
	for _, st := range s.Nodes {
		for _, p := range st.view {
			if !p.isMaster() {
				continue
			}
			for _, r := range p.slots {
				for sl := r.from; sl <= r.to; sl++ {
					if b := best[sl]; b.id == "" || p.epoch > b.epoch {
						best[sl] = claim{p.id, p.epoch}
					}
				}
			}
		}
	}
	owners := map[string]bool{}
	for sl, b := range best {
		if b.id != "" {
			s.owner[sl] = c.nameOf(b.id)
			owners[s.owner[sl]] = true
			s.Covered++
		}
	}
	for _, n := range c.all {
		if owners[n.Name()] {
			s.Masters = append(s.Masters, n.Name())
		}
	}
	want := claimRuns(best[:])
	for _, st := range s.Nodes {
		if st.Err == nil && !slices.Equal(viewRuns(st.view), want) {
			s.disagree++
		}
	}
}

// run is a range of slots with one owner (by id).
type run struct {
	from, to int
	id       string
}

// viewRuns lists a view's masters' slot ranges in slot order, adjacent
// ranges of one owner merged.
func viewRuns(view []peerLine) []run {
	var rs []run
	for _, p := range view {
		if p.isMaster() {
			for _, r := range p.slots {
				rs = append(rs, run{r.from, r.to, p.id})
			}
		}
	}
	slices.SortFunc(rs, func(a, b run) int { return a.from - b.from })
	return mergeRuns(rs)
}

// claimRuns lists the owned slots of best as runs.
func claimRuns(best []claim) []run {
	var rs []run
	for sl, b := range best {
		if b.id != "" {
			rs = appendRun(rs, run{sl, sl, b.id})
		}
	}
	return rs
}

// mergeRuns merges adjacent runs (sorted) of one owner.
func mergeRuns(rs []run) []run {
	var out []run
	for _, r := range rs {
		out = appendRun(out, r)
	}
	return out
}

// appendRun appends r to rs, extending the last run when r continues it.
func appendRun(rs []run, r run) []run {
	if k := len(rs) - 1; k >= 0 && rs[k].id == r.id && rs[k].to+1 == r.from {
		rs[k].to = r.to
		return rs
	}
	return append(rs, r)
}

// nameOf maps a cluster node id to the node's name (the id itself when
// the id is not one of ours).
func (c *Cluster) nameOf(id string) string {
	for _, n := range c.all {
		if n.nodeID() == id {
			return n.Name()
		}
	}
	return id
}

// problem says why the snapshot is not healthy, or "" when it is: every
// node running and answering, cluster_state ok everywhere, every slot
// owned and every view agreeing on the owners, every node knowing every
// other and suspecting none, every master with a replica whose link is up.
func (s *Snapshot) problem() string {
	var out []string
	replicas := map[string]int{}
	for _, st := range s.Nodes {
		switch {
		case st.Err != nil:
			out = append(out, st.Err.Error())
			continue
		case st.ClusterState != "ok":
			out = append(out, fmt.Sprintf("%s: cluster_state:%s", st.Name, st.ClusterState))
		case st.Known != len(s.Nodes):
			out = append(out, fmt.Sprintf("%s knows %d of %d nodes", st.Name, st.Known, len(s.Nodes)))
		case len(st.Suspects) > 0:
			out = append(out, fmt.Sprintf("%s suspects %v", st.Name, st.Suspects))
		}
		if st.Role == RoleReplica {
			if !st.LinkUp {
				out = append(out, fmt.Sprintf("%s: replication link to %s not up", st.Name, st.Following))
			}
			replicas[st.Following]++
		}
	}
	if s.Covered != Slots {
		out = append(out, fmt.Sprintf("%d of %d slots covered", s.Covered, Slots))
	}
	if s.disagree > 0 {
		out = append(out, fmt.Sprintf("%d nodes disagree on slot owners", s.disagree))
	}
	for _, m := range s.Masters {
		if replicas[m] == 0 {
			out = append(out, fmt.Sprintf("master %s has no replica", m))
		}
	}
	return strings.Join(out, "; ")
}

// WaitHealthy polls State until the cluster is healthy (see
// Snapshot.problem: every node up and agreeing, every slot served, every
// master replicated) or ctx ends; the error then says what was wrong last.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	return c.waitFor(ctx, "healthy", func(s *Snapshot) string { return s.problem() })
}

// waitFor polls State until bad returns "" or ctx ends, then reports
// what bad said last.
func (c *Cluster) waitFor(ctx context.Context, what string, bad func(*Snapshot) string) error {
	last := "no answer yet"
	for {
		s, err := c.State(ctx)
		if err == nil {
			if last = bad(s); last == "" {
				return nil
			}
		} else {
			last = err.Error()
		}
		if !redisadmin.Sleep(ctx, pollEvery) {
			return fmt.Errorf("rediscluster: waiting until %s: %w (last: %s)", what, ctx.Err(), last)
		}
	}
}

// pollEvery is how often waits ask the nodes again.
const pollEvery = 50 * time.Millisecond

// Masters lists the nodes that own at least one slot now (after
// failovers), in Nodes() order, from the merged view of State.
func (c *Cluster) Masters(ctx context.Context) ([]string, error) {
	s, err := c.State(ctx)
	if err != nil {
		return nil, err
	}
	return s.Masters, nil
}

// ErrNoReplica: the master has no replica (none believes it follows it).
var ErrNoReplica = errors.New("rediscluster: no replica")

// ReplicaOf is the node that believes it replicates master (the first in
// Nodes() order if several do).
func (c *Cluster) ReplicaOf(ctx context.Context, master string) (string, error) {
	if _, err := c.node(master); err != nil {
		return "", err
	}
	s, err := c.State(ctx)
	if err != nil {
		return "", err
	}
	for _, st := range s.Nodes {
		if st.Err == nil && st.Role == RoleReplica && st.Following == master {
			return st.Name, nil
		}
	}
	return "", fmt.Errorf("%w of %s", ErrNoReplica, master)
}

// MasterOf is the owner of a slot in the merged view of State.
func (c *Cluster) MasterOf(ctx context.Context, slot int) (string, error) {
	if slot < 0 || slot >= Slots {
		return "", fmt.Errorf("rediscluster: slot %d out of range [0, %d)", slot, Slots)
	}
	s, err := c.State(ctx)
	if err != nil {
		return "", err
	}
	if o := s.Owner(slot); o != "" {
		return o, nil
	}
	return "", fmt.Errorf("rediscluster: slot %d has no owner", slot)
}

// node finds one of the cluster's nodes by name.
func (c *Cluster) node(name string) (*node, error) {
	i := slices.IndexFunc(c.all, func(n *node) bool { return n.Name() == name })
	if i < 0 {
		return nil, fmt.Errorf("%w %q", cluster.ErrUnknownNode, name)
	}
	return c.all[i], nil
}
