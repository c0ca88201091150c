// Package nemesis injects faults into a cluster on a seeded schedule and
// records every fault's start and stop in the run's history.
//
// A fault is plain data (Fault); each kind of fault has a Nemesis that draws
// a random Fault of its kind from a seeded source and applies or removes it.
// Each kind's file registers it (Register, a Spec: name, parameters,
// provider needs, plot colour, nemesis), so that a new fault is one file
// and its test; everything else reads the registry. A Schedule turns one seed into a whole plan of faults, and a Runner
// executes a plan against a cluster.Cluster, always healing on the way out.
package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/lease"
)

// Fault is one fault as plain, JSON-serialisable data: what a schedule
// holds and what the history's Detail field describes. Which fields matter
// depends on Kind; the others stay zero. Durations are nanoseconds in JSON.
type Fault struct {
	// Kind is a registered kind (Kinds), e.g. KindPartition.
	Kind string `json:"kind"`
	// Shape refines the kind: a partition's shape (see the Shape constants)
	// or a latency's scope ("node" or "link").
	Shape string `json:"shape,omitempty"`
	// Nodes are the nodes the fault targets.
	Nodes []string `json:"nodes,omitempty"`
	// Clients are the clients the fault targets.
	Clients []string `json:"clients,omitempty"`
	// Links are the exact links a partition cuts or a latency slows. Draw
	// fills them in; a scripted fault may leave them empty, meaning every
	// link from Clients (all clients if empty) to Nodes.
	Links []cluster.Link `json:"links,omitempty"`
	// Delay and Jitter are a latency fault's added delay, ± jitter.
	Delay  time.Duration `json:"delay_ns,omitempty"`
	Jitter time.Duration `json:"jitter_ns,omitempty"`
	// Stream is the direction a latency acts on (default both).
	Stream cluster.Stream `json:"stream,omitempty"`
	// RestartDelay is how long a crashed node stays down before restart.
	RestartDelay time.Duration `json:"restart_delay_ns,omitempty"`
	// JumpBy is a clock jump's step: positive moves the node's clock
	// forward (keys expire sooner), negative backward (keys live longer).
	JumpBy time.Duration `json:"jump_by_ns,omitempty"`
	// Duration is how long the fault stays active between its start and
	// its stop (for a crash: after the restart).
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Target says what a targeted fault is aimed at (AimHolder, AimWaiter,
	// AimLease); empty for a fault drawn blind. Its placeholders are
	// resolved when it starts; Target stays, so the history shows which
	// faults were aimed.
	Target string `json:"target,omitempty"`
}

// Aims of a targeted fault (Fault.Target).
const (
	// AimHolder: the fault hits the client holding the lock, in its
	// critical section, soon after it acquired (Clients holds TargetHolder).
	AimHolder = "holder"
	// AimWaiter: the fault hits a client in the middle of its acquire
	// (Clients holds TargetWaiter).
	AimWaiter = "waiter"
	// AimLease: the fault hits the nodes that granted the current
	// holder's lease (Nodes holds TargetLease), or, for a failover, is
	// timed right after a lease was granted; it fires while the lease is
	// held, soon after it was granted.
	AimLease = "lease"
	// AimRenewal: the fault hits a holder within a few milliseconds after
	// an extension of its lease returned ok (Clients holds TargetRenewal),
	// so that the lease's next extension meets it.
	AimRenewal = "renewal"
)

// String describes the fault for the history's Detail field: the kind,
// then each field that is set as name=value, in the order of faultParams,
// e.g. "partition shape=one-node nodes=n2 links=c1>n2,c2>n2 duration=1.5s"
// (a link is client>target; a fault on every client's links names no
// clients).
func (f Fault) String() string {
	var b strings.Builder
	b.WriteString(f.Kind)
	for _, p := range faultParams {
		if v := p.value(f); v != "" {
			fmt.Fprintf(&b, " %s=%s", p.name, v)
		}
	}
	return b.String()
}

// clone returns a deep copy, so that plans never share slices.
func (f Fault) clone() Fault {
	f.Nodes = append([]string(nil), f.Nodes...)
	f.Clients = append([]string(nil), f.Clients...)
	f.Links = append([]cluster.Link(nil), f.Links...)
	return f
}

// Topology is what Draw may look at: names, the lock's TTL and node
// timeout, never the live cluster, so that a plan depends on the seed and
// options only.
type Topology struct {
	Nodes   []string
	Clients []string
	// TTL is the lock's time-to-live; fault durations scale with it.
	// Zero means DefaultTTL.
	TTL time.Duration
	// Resource is the link target name of the protected resource (a
	// targeted partition may cut the holder from it); empty when clients
	// reach the resource directly, not through the cluster's links.
	Resource string
	// AcquireTimeout is how long a client waits in one acquire before it
	// gives up (workloads.Options.AcquireTimeout after defaults); zero:
	// unknown. A partition aimed at a waiter lasts past it, so that the
	// waiter gives up while cut off and its leave command is lost.
	AcquireTimeout time.Duration
	// NodeTimeout is how long the lock waits for one command on one node
	// (lockimpl.Options.NodeTimeout after defaults); zero means TTL/10,
	// lockimpl's default. An aimed latency stays below it: a slower link
	// only turns every command into a timeout, which a partition tests.
	NodeTimeout time.Duration
	// RedisCluster says the nodes are one Redis Cluster's masters (each
	// with a replica): Draw may then draw the cluster's own faults, which
	// aim at the master of the lock key's slot (Env.Key): a failover's
	// cluster shapes (ClusterFailoverShapes) and a partition's
	// ShapeMasterIsolated. False: never.
	RedisCluster bool
	// Renews says the lock renews its leases by itself and holders trust
	// it to say when a lease is lost (a watchdog lock, --trust-lost):
	// an aimed partition is then timed to a renewal part of the time
	// (AimRenewal).
	Renews bool
	// Queues says the lock queues its waiters and each leaves the queue
	// when it gives up (a fair lock, config.Fair): an aimed latency's
	// first waiter aim then times the leave command out of order (see
	// Latency.Aim).
	Queues bool
}

// DefaultTTL is the TTL assumed when a Topology gives none.
const DefaultTTL = lease.DefaultTTL

func (t Topology) nodeTimeout() time.Duration {
	if t.NodeTimeout <= 0 {
		return t.ttl() / 10
	}
	return t.NodeTimeout
}

func (t Topology) ttl() time.Duration {
	if t.TTL <= 0 {
		return DefaultTTL
	}
	return t.TTL
}

// Each kind's Aim (Targeter) and MinStep (MinStepper) live in its own
// file: how a drawn fault becomes a targeted one, and the shortest step a
// schedule may give it. Aimed faults name placeholders that the harness
// resolves when the fault starts, timed against the lease: right after
// the holder acquired, or while a waiter is in its acquire.

// aimClients retargets f at one client placeholder.
func aimClients(f Fault, aim, placeholder string) Fault {
	f.Target, f.Clients, f.Links = aim, []string{placeholder}, nil
	return f
}

// aimLease retargets f at the nodes that granted the holder's lease.
func aimLease(f Fault) Fault {
	f.Target, f.Nodes, f.Links = AimLease, []string{TargetLease}, nil
	return f
}

// pastGiveUp lengthens d, a fault aimed at a waiter, to outlast the
// waiter's acquire (AcquireTimeout) and half a TTL, so that the waiter
// gives up while the fault holds; an unknown acquire timeout leaves d.
func (t Topology) pastGiveUp(d time.Duration) time.Duration {
	if t.AcquireTimeout <= 0 {
		return d
	}
	return max(d, t.AcquireTimeout+t.ttl()/2)
}

// Client placeholders a scripted fault may name in Clients; the Runner's
// Resolve hook replaces them when the fault starts. They make a fault hit
// the process that matters (Jepsen's targeted nemeses): pause the client
// holding the lock, crash one waiting in the queue.
const (
	TargetHolder = "@holder" // the client holding the lock now
	TargetWaiter = "@waiter" // a client waiting in acquire now
	// TargetReleaser is a holder whose release has just begun: the fault
	// starts within about a millisecond of the release's invoke, so the
	// release may not yet have been sent, be half done (a two-step
	// release) or be done without its reply. Only plans name it (a
	// --config or --fault-plan file); random faults are not aimed there.
	TargetReleaser = "@releaser"
	// TargetRenewal is a holder one of whose extensions (a watchdog's
	// renewal, a renewal the lock reported by itself, or an explicit
	// extend) has just returned ok: the fault starts within a few
	// milliseconds after it, so that the lease's next extension is the
	// one the fault meets, a whole renewal interval later. Only plans
	// name it (a --config or --fault-plan file).
	TargetRenewal = "@renewal"
)

// TargetLease is the node placeholder a fault aimed at a lease (AimLease)
// names in Nodes: the resolver replaces it with enough nodes to break the
// current holder's quorum (LeaseBreakers), the nodes that granted its
// lease first.
const TargetLease = "@lease"

// LeaseBreakers is how many of the granted nodes of a lease a fault must
// hit so that the lease no longer has a quorum of the n nodes: granted −
// (n/2+1) + 1, at least 1.
func LeaseBreakers(granted, n int) int {
	return max(1, granted-(n/2+1)+1)
}

// Targeter is offered by nemeses that can aim a drawn fault at the lock
// holder, a waiter or the holder's lease (Jepsen's targeted nemeses).
// Aim rewrites f, drawn by the same nemesis, into a targeted fault: it sets
// Target and puts placeholders (TargetHolder, TargetWaiter, TargetLease)
// where the harness resolves them at run time. Every random choice comes
// from r, so plans stay replayable. nth counts the plan's earlier aimed
// faults of this kind: a nemesis that aims at the holder k times in n
// cycles through its aims by nth, holder first, instead of tossing a coin,
// so that the first aimed fault of a run hits the holder and a plan with a
// few aimed faults of a kind hits every aim it needs (a coin left a
// third of short runs without a crashed waiter).
type Targeter interface {
	Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault
}

// MinStepper is offered by nemeses that state the shortest part of the
// fault phase one fault of their kind needs: the time its start takes
// (a crash's shortest restart delay, a failover's FailoverBusy) plus its
// shortest window. A schedule never clips a fault below it.
type MinStepper interface {
	MinStep(t Topology) time.Duration
}

// DefaultMinTTLs is the minimum step, in TTLs, of a nemesis that does not
// state one (MinStepper).
const DefaultMinTTLs = 0.5

// MinStep returns the shortest fault-phase time one fault of n's kind
// needs: n's own MinStep, or DefaultMinTTLs × TTL.
func MinStep(n Nemesis, t Topology) time.Duration {
	if m, ok := n.(MinStepper); ok {
		return m.MinStep(t)
	}
	return ttls(t, DefaultMinTTLs)
}

// Nemesis is one kind of fault, known by the kind it is registered (or
// put in a Set) under. Draw must take every random choice from r
// alone (same source state, same fault). Start applies a fault, Stop
// removes it; both are safe to call again and Stop is safe after a failed
// or partial Start, so that a runner can always clean up.
type Nemesis interface {
	Draw(r *rand.Rand, t Topology) Fault
	Start(ctx context.Context, f Fault) error
	Stop(ctx context.Context, f Fault) error
}

// Env is what the nemeses act on.
type Env struct {
	// Cluster is the cluster under test.
	Cluster cluster.Cluster
	// CrashClient is the harness's hook for the client-crash fault: it must
	// make the client's current process die at once, without releasing any
	// lock it holds or leaving any queue it waits in (the lease is simply
	// abandoned; its connections close), and let a fresh process (a new
	// history process id) take the client's slot. It returns once the old
	// process is dead; the new one may still be starting. Nil disables
	// client-crash (Start returns ErrNoHook).
	CrashClient func(ctx context.Context, client string) error
	// PauseClient and ResumeClient, when set, are the harness's hooks for
	// client-pause on clients that are processes: a real stop-the-world
	// pause (SIGSTOP of the client's process group, its links frozen, no
	// timeout of the process running) and its end (SIGCONT, links thawed).
	// Nil: client-pause freezes the client's links only (Cluster.Freeze),
	// the pause model of in-process clients, whose goroutines keep running.
	PauseClient, ResumeClient func(ctx context.Context, client string) error
	// Key is the lock's key, for the faults of a Redis Cluster aimed at
	// the master that owns its slot (a failover, ShapeMasterIsolated,
	// slot-migrate); they refuse to start without it.
	Key string
}

// Topology returns the cluster's names with the given TTL, and whether it
// is a Redis Cluster.
func (e Env) Topology(ttl time.Duration) Topology {
	_, rc := e.Cluster.(RedisCluster)
	return Topology{Nodes: e.Cluster.Nodes(), Clients: e.Cluster.Clients(), TTL: ttl, RedisCluster: rc}
}
