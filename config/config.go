// Package config is what a lockstorm run is asked to do: Config, the
// table of its settings (the flags of `lockstorm run`, the keys of a YAML
// plan, the replay command and the README's flag list are made from it),
// the defaults the subcommands share, and the validation that fills and
// checks a Config (WithDefaults). It starts nothing: package harness runs
// a Config, package analysis checks what the run recorded.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// NewLockFunc builds one client's lock on that client's node connections
// (one per node, in node order, each through the client's own proxies). A
// user plugs a lock of their own in through this. opt is already filled by
// lockimpl.Options.WithDefaults for len(clients) nodes: TTL, NodeTimeout,
// retry bounds, DriftFactor, RenewEvery and NodeNames are all set. The
// README's "Your own lock" section lists what the lock must promise.
type NewLockFunc func(clients []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error)

// Config is everything a run needs. Zero fields take the defaults of
// WithDefaults: those of the settings table (Settings, listed in the
// README's flag list) for the fields the command line sets, and those
// documented here for the others. (The command line and YAML plans
// instead refuse a TTL, node count, client count or time limit given
// explicitly as 0: see CheckGiven.)
type Config struct {
	// Name is the test's name in the store.
	Name string `json:"name"`
	// Cell names the cell of a sweep or comparison the run is one of, by
	// its settings ("lock renewable, ttl 200ms, renew ttl/3, pause 1.5s,
	// run 2"): the report's title and heading say it after the name.
	// Empty for a run of its own; no flag sets it.
	Cell string `json:"cell,omitempty"`
	// Lock names a lock of lockimpl (see lockimpl.Names). For a built-in
	// lock the name also decides the default node count (5 for redlock,
	// fenced-redlock and redsync, else 1) and whether the liveness checker
	// checks FIFO order (fair, fair-naive). When NewLock is set, Lock is
	// only a label (default "custom") and switches nothing: set Nodes and
	// Fair yourself.
	Lock string `json:"lock"`
	// NewLock, when set, builds the lock under test instead of Lock. Nodes
	// must then be set (there is no default node count for a custom lock).
	NewLock NewLockFunc `json:"-"`
	// ClientCmd, when set, runs every client slot as a process of this
	// command line (split into words as a shell would, quotes kept
	// together) that speaks the client line protocol on its stdin and
	// stdout (docs/client-protocol.md); LOCKSTORM_* variables tell it its
	// slot and its own proxies to the nodes. Lock then names the lock for
	// the defaults it decides (node count, FIFO check, fencing) and the
	// report. A process lock (ProcessLocks: the Python clients) sets it
	// by its name. "lockstorm" as the command is this binary when no
	// lockstorm is on PATH.
	ClientCmd string `json:"client_cmd,omitempty"`
	// ClientDir is the working directory of the process clients (default:
	// lockstorm's own). A ClientCmd whose first word is a relative path
	// with a slash (bin/client) is found in it: a zoo entry's folder.
	ClientDir string `json:"client_dir,omitempty"`
	// PauseModel is what a client-pause does: PauseProcess stops the
	// client's process (SIGSTOP of its process group: every thread of it,
	// renewal thread included, freezes; its links freeze; no timeout of
	// it runs) until SIGCONT, as a stop-the-world GC pause does;
	// PauseLinks freezes the client's links only, while its goroutines
	// keep running (a watchdog may tell the holder before the pause
	// ends). Default PauseProcess when the clients are processes, else
	// PauseLinks, the only model of in-process clients.
	PauseModel string `json:"pause_model,omitempty"`
	// Topology is standalone (independent nodes) or cluster (a Redis
	// Cluster of Nodes masters, each with one asynchronous replica;
	// the workload's key is then ClusterKey). Default standalone.
	Topology string `json:"topology,omitempty"`
	// Fair makes the liveness checker require FIFO grants (a waiter is
	// never overtaken by one that queued after it). Set it for a custom
	// fair lock; it is set for the built-in fair and fair-naive locks.
	Fair bool `json:"fair,omitempty"`
	// Workload is counter, cron, api or leader.
	Workload string `json:"workload"`
	// Nemesis lists the fault kinds to draw from; empty, or just "none",
	// means no faults ("none" with other kinds is an error).
	Nemesis []string `json:"nemesis"`
	// Nodes is the number of Redis nodes (1..15). Default 1, or 5 for the
	// built-in redlock, fenced-redlock and redsync, which refuse fewer
	// than 3 (a quorum of 1 or 2 nodes survives no node fault, so Redlock
	// on them is a single instance or worse). Required when NewLock is
	// set; ignored by the external provider (one per address).
	Nodes int `json:"nodes"`
	// Clients is the number of concurrent client slots.
	Clients int `json:"clients"`
	// TTL is the lease time-to-live.
	TTL time.Duration `json:"ttl_ns"`
	// RenewEvery is the watchdog interval of renewable locks (0: the
	// lock's default, TTL/3).
	RenewEvery time.Duration `json:"renew_every_ns"`
	// NodeTimeout bounds one lock command on one node (lockimpl default
	// TTL/10). Raise it for runs with latency faults longer than that.
	NodeTimeout time.Duration `json:"node_timeout_ns,omitempty"`
	// Fencing makes the resource reject stale fencing tokens. With a lock
	// that issues none (Lease.Fence 0) it changes nothing; the command line
	// refuses --fencing with such a built-in lock (lockimpl.IssuesFences).
	// Whether a custom lock issues tokens cannot be known before it runs.
	Fencing bool `json:"fencing"`
	// Drift and DriftFactor are the clock-drift allowance, Drift +
	// DriftFactor·TTL, that the lock checker grants a lease (a lease
	// invoked at c may end at c + TTL − allowance) — Redlock's assumption.
	// DriftFactor is also handed to the lock (lockimpl.Options), which
	// takes it off every validity it claims. Defaults 2ms and 0.01; a
	// negative value means none.
	Drift       time.Duration `json:"drift_ns,omitempty"`
	DriftFactor float64       `json:"drift_factor,omitempty"`
	// Persistence of the Redis nodes.
	Persistence cluster.Persistence `json:"persistence"`
	// TimeLimit is the length of the workload phase.
	TimeLimit time.Duration `json:"time_limit_ns"`
	// Seed seeds the run's one random source. 0 draws one (and records it).
	Seed int64 `json:"seed"`
	// Store is the store's root folder.
	Store string `json:"store"`
	// Provider is local, docker or external.
	Provider string `json:"provider"`
	// DockerImage is the Redis image of the docker provider (empty:
	// cluster.DefaultDockerImage).
	DockerImage string `json:"docker_image,omitempty"`
	// External holds the external provider's endpoints.
	External External `json:"external,omitempty"`
	// FaultInterval is the mean time between fault starts (each gap and
	// each fault's length are drawn around it).
	FaultInterval time.Duration `json:"fault_interval_ns"`
	// MinCoverage is the bar a run's faults must clear before its verdict
	// can be valid: at least this many faults of each requested kind must
	// touch a lock holder or a waiter (see analysis.Result.Coverage). 0
	// means the default, DefaultMinCoverage; negative means no bar (the
	// command line's --min-coverage 0). A requested kind that never applied makes the
	// verdict unknown whatever the bar. Runs without faults have no bar.
	MinCoverage int `json:"min_coverage,omitempty"`
	// TargetHolder is the probability that a random fault is aimed at the
	// lock holder or a waiter and timed against its lease (Jepsen's
	// targeted nemeses): a pause in the critical section, a cut from a
	// majority of nodes or from the resource, slow links late in an
	// acquire. 0 means the default, DefaultTargetHolder; negative means never (the command
	// line's --target-holder 0). Scripted plans are not affected.
	TargetHolder float64 `json:"target_holder,omitempty"`
	// Plan, when set, is the exact fault schedule (a scripted catalogue
	// row); Nemesis is then ignored.
	Plan *nemesis.Plan `json:"plan,omitempty"`
	// PlanFile is the file the command line read Plan from (--fault-plan),
	// or where a report wrote it for its replay command.
	PlanFile string `json:"plan_file,omitempty"`
	// Workloads tunes the workload; zero fields take defaults from the TTL.
	Workloads workloads.Options `json:"workload_options"`
	// ClientsStartAt delays the clients' first round to this time after the
	// run starts, so that faults scripted at time 0 (a partition shaping
	// who can reach which node) are in place first. Default 0.
	ClientsStartAt time.Duration `json:"clients_start_at_ns,omitempty"`
	// MaxWait makes an acquire that waited longer a liveness violation
	// (starvation). 0 means not checked.
	MaxWait time.Duration `json:"max_wait_ns,omitempty"`
	// SkipRecoveryCheck turns off the liveness requirement that clients
	// acquire again once faults are healed (and that no lock stays held
	// forever). It is on by default.
	SkipRecoveryCheck bool `json:"skip_recovery_check,omitempty"`
	// StopAtViolation ends the run at the first violation the live
	// counter finds (analysis.LiveCounter, checked every progress tick,
	// 0.5 s), instead of at the time limit: --until-invalid. Every fault
	// is healed and the history checked as at the time limit; the live
	// counter's violations are ones the final check reports as fatal.
	StopAtViolation bool `json:"stop_at_violation,omitempty"`
	// OnProgress, when set, is called about twice a second during the run
	// and once at its end.
	OnProgress func(Progress) `json:"-"`
	// Log, when set, receives a copy of lockstorm.log as it is written.
	// Its lines are stamped with the history's clock (seconds since the
	// history's zero, as ops' times), or "setup" before the history
	// exists.
	Log io.Writer `json:"-"`
	// KeepClusterDir keeps the nodes' data directories after the run.
	KeepClusterDir bool `json:"keep_cluster_dir"`
}

// ErrConfig wraps every configuration error: bad input, exit status 2.
// Its text still says "harness", where it was born: error lines keep
// their words.
var ErrConfig = errors.New("harness: bad configuration")

// WithDefaults returns c with zero fields filled (the defaults of
// Settings, then those that follow from other fields: the node count, the
// name, the workload's options), or an error naming the bad field and
// what it allows.
func (c Config) WithDefaults() (Config, error) {
	if c.NewLock != nil && c.Lock == "" {
		c.Lock = "custom"
	}
	c.fillDefaults()
	for _, check := range []func(*Config) error{
		(*Config).checkLock, (*Config).checkNemesis, (*Config).checkNodes,
		(*Config).checkTiming, (*Config).checkRest, (*Config).checkProvider,
		(*Config).checkClients, (*Config).checkTopology,
	} {
		if err := check(&c); err != nil {
			return c, fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	c.Name = cmp.Or(c.Name, c.Lock+"-"+c.Workload)
	c.Workloads = c.Workloads.WithDefaults(c.TTL)
	return c, nil
}

// lockIsLabel reports whether Lock only names the lock under test: a
// process client command (ClientCmd) with a name that is not a built-in
// or process lock's, such as a zoo entry's. It then decides no default
// (1 node, no FIFO check) and any --fencing is allowed.
func (c Config) lockIsLabel() bool {
	return c.ClientCmd != "" && c.Lock != "" && !slices.Contains(LockNames(), c.Lock)
}

// checkLock checks the lock and the workload, and sets Fair for the
// built-in FIFO locks.
func (c *Config) checkLock() error {
	if c.NewLock == nil && !c.lockIsLabel() {
		if !slices.Contains(LockNames(), c.Lock) {
			return fmt.Errorf("--lock must be one of %v, got %q", LockNames(), c.Lock)
		}
		c.Fair = c.Fair || FIFOLock(c.Lock)
	}
	if _, err := workloads.New(c.Workload, workloads.Options{}); err != nil {
		return fmt.Errorf("--%v", err)
	}
	return nil
}

// checkNemesis checks the fault kinds; "none" alone means no faults.
func (c *Config) checkNemesis() error {
	if slices.Contains(c.Nemesis, NoFaults) {
		if len(c.Nemesis) > 1 {
			return fmt.Errorf("--nemesis %s means no faults and takes no other kind, got %v", NoFaults, c.Nemesis)
		}
		c.Nemesis = nil
	}
	for _, k := range c.Nemesis {
		if !slices.Contains(nemesis.Kinds, k) {
			return fmt.Errorf("--nemesis must be %s or a comma-separated list of %v, got %q", NoFaults, nemesis.Kinds, k)
		}
	}
	return nil
}

// checkNodes sets the node count (one per address for the external
// provider; by lock when not given) and checks it and the client count.
func (c *Config) checkNodes() error {
	if c.Provider == "external" {
		c.Nodes = len(c.External.RedisAddrs)
	}
	if c.Nodes == 0 && c.NewLock != nil && c.Provider != "external" {
		return errors.New("Nodes must be set (1..15) when NewLock is set: a custom lock has no default node count")
	}
	if c.Nodes == 0 {
		c.Nodes = 1
		switch {
		case c.Topology == TopologyCluster:
			c.Nodes = 3 // masters
		case multiNode(c.Lock):
			c.Nodes = 5
		}
	}
	if c.Nodes < 1 || c.Nodes > 15 {
		return fmt.Errorf("--nodes must be between 1 and 15, got %d", c.Nodes)
	}
	if c.NewLock == nil && multiNode(c.Lock) && c.Nodes < 3 && c.Provider != "external" {
		return fmt.Errorf("--nodes must be at least 3 for %s, got %d: a quorum of 1 or 2 nodes survives no node fault (use single or renewable for one node)", c.Lock, c.Nodes)
	}
	if c.Clients < 1 || c.Clients > 64 {
		return fmt.Errorf("--clients must be between 1 and 64, got %d", c.Clients)
	}
	return nil
}

// checkTiming checks the TTL, the drift allowance and the renewal
// interval.
func (c *Config) checkTiming() error {
	if err := CheckTTL(c.TTL); err != nil {
		return err
	}
	if c.DriftFactor >= 0.5 || c.Drift >= c.TTL/2 {
		return fmt.Errorf("Drift + DriftFactor·TTL must leave most of the TTL (DriftFactor below 0.5, Drift below TTL/2), got %v and %v", c.Drift, c.DriftFactor)
	}
	if c.RenewEvery < 0 || (c.RenewEvery > 0 && c.RenewEvery >= c.TTL) {
		return fmt.Errorf("--renew-every must be positive and below the TTL (%v), got %v", c.TTL, c.RenewEvery)
	}
	w := c.Workloads
	if w.HoldMin < 0 || w.HoldMax < 0 || w.Think < 0 || w.AcquireTimeout < 0 {
		return fmt.Errorf("--hold-min, --hold-max, --think and --acquire-timeout must not be negative, got %v, %v, %v and %v",
			w.HoldMin, w.HoldMax, w.Think, w.AcquireTimeout)
	}
	if w.HoldMin > 0 && w.HoldMax > 0 && w.HoldMin > w.HoldMax {
		return fmt.Errorf("--hold-min (%v) must not exceed --hold-max (%v)", w.HoldMin, w.HoldMax)
	}
	return nil
}

// checkRest checks the persistence, the time limit, the fault interval
// and the aim probability.
func (c *Config) checkRest() error {
	if _, err := cluster.ParsePersistence(string(c.Persistence)); err != nil {
		return fmt.Errorf("--%v", err)
	}
	if c.TimeLimit < 0 {
		return fmt.Errorf("--time-limit must be positive, got %v", c.TimeLimit)
	}
	if c.FaultInterval < 100*time.Millisecond {
		return fmt.Errorf("--fault-interval must be at least 100ms, got %v", c.FaultInterval)
	}
	if c.TargetHolder > 1 {
		return fmt.Errorf("--target-holder must be a probability between 0 and 1, got %v", c.TargetHolder)
	}
	return nil
}

// NoFaults is the nemesis value that means no faults at all (as in Jepsen).
const NoFaults = "none"

// ClientName is the cluster's name for client slot i (0-based): "c1", ...
func ClientName(i int) string { return fmt.Sprintf("c%d", i+1) }
