// Package config is what a lockstorm run is asked to do: Config, the
// table of its settings (flags, plan keys, replay command, README flag
// list), the defaults the subcommands share, and WithDefaults, which
// fills and checks a Config. It starts nothing.
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
// (one per node, in node order, each through the client's own proxies).
// opt is already filled by lockimpl.Options.WithDefaults; the README's
// "Your own lock" section lists what the lock must promise.
type NewLockFunc func(clients []redis.UniversalClient, opt lockimpl.Options) (lockimpl.Locker, error)

// Config is everything a run needs. Zero fields take the defaults of
// WithDefaults (the settings table's, and those documented here). The
// command line and plans refuse an explicit 0 TTL, node count, client
// count or time limit (CheckGiven).
type Config struct {
	// Name is the test's name in the store.
	Name string `json:"name"`
	// Cell names the sweep or comparison cell the run is one of, by its
	// settings, for the report's title; empty for a run of its own.
	Cell string `json:"cell,omitempty"`
	// Lock names a lock of lockimpl (see lockimpl.Names); a built-in
	// lock's name also decides the default node count and the FIFO
	// check. With NewLock, Lock is only a label (default "custom").
	Lock string `json:"lock"`
	// NewLock, when set, builds the lock under test instead of Lock;
	// Nodes must then be set.
	NewLock NewLockFunc `json:"-"`
	// ClientCmd, when set, runs every client slot as a process of this
	// command line (split as a shell would) speaking the client line
	// protocol (docs/client-protocol.md); Lock then only names the lock.
	// "lockstorm" is this binary when none is on PATH.
	ClientCmd string `json:"client_cmd,omitempty"`
	// ClientDir is the process clients' working directory (default
	// lockstorm's own); a relative ClientCmd with a slash is found in it.
	ClientDir string `json:"client_dir,omitempty"`
	// PauseModel is what a client-pause does: PauseProcess (SIGSTOP of
	// the client's process group) or PauseLinks (its links frozen only).
	// Default PauseProcess for process clients, else PauseLinks.
	PauseModel string `json:"pause_model,omitempty"`
	// Topology is standalone (default) or cluster (a Redis Cluster of
	// Nodes masters with one replica each; the key is then ClusterKey).
	Topology string `json:"topology,omitempty"`
	// Fair makes the liveness checker require FIFO grants; set for the
	// built-in fair and fair-naive locks.
	Fair bool `json:"fair,omitempty"`
	// Workload is counter, cron, api or leader.
	Workload string `json:"workload"`
	// Nemesis lists the fault kinds to draw from; empty, or just "none",
	// means no faults.
	Nemesis []string `json:"nemesis"`
	// Nodes is the number of Redis nodes (1..15). Default 1, or 5 for
	// the Redlock-like built-in locks, which refuse fewer than 3.
	// Required with NewLock; the external provider has one per address.
	Nodes int `json:"nodes"`
	// Clients is the number of concurrent client slots.
	Clients int `json:"clients"`
	// TTL is the lease time-to-live.
	TTL time.Duration `json:"ttl_ns"`
	// RenewEvery is the watchdog interval of renewable locks (0: TTL/3).
	RenewEvery time.Duration `json:"renew_every_ns"`
	// NodeTimeout bounds one lock command on one node (0: TTL/10).
	NodeTimeout time.Duration `json:"node_timeout_ns,omitempty"`
	// Fencing makes the resource reject stale fencing tokens; it changes
	// nothing with a lock that issues none.
	Fencing bool `json:"fencing"`
	// Drift + DriftFactor·TTL is the clock-drift allowance the lock
	// checker grants a lease (DriftFactor is also handed to the lock).
	// Defaults 2ms and 0.01; negative means none.
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
	// DockerImage is the docker provider's Redis image (empty:
	// cluster.DefaultDockerImage).
	DockerImage string `json:"docker_image,omitempty"`
	// External holds the external provider's endpoints.
	External External `json:"external,omitempty"`
	// FaultInterval is the mean time between fault starts.
	FaultInterval time.Duration `json:"fault_interval_ns"`
	// MinCoverage is how many faults of each requested kind must touch a
	// holder or waiter for a valid verdict (analysis.Result.Coverage): 0
	// means DefaultMinCoverage, negative no bar (--min-coverage 0).
	MinCoverage int `json:"min_coverage,omitempty"`
	// TargetHolder is the probability that a random fault is aimed at
	// the holder or a waiter, timed against its lease: 0 means
	// DefaultTargetHolder, negative never (--target-holder 0).
	TargetHolder float64 `json:"target_holder,omitempty"`
	// Plan, when set, is the exact fault schedule; Nemesis is then ignored.
	Plan *nemesis.Plan `json:"plan,omitempty"`
	// PlanFile is the file Plan was read from (--fault-plan) or written to.
	PlanFile string `json:"plan_file,omitempty"`
	// Workloads tunes the workload; zero fields take defaults from the TTL.
	Workloads workloads.Options `json:"workload_options"`
	// ClientsStartAt delays the clients' first round, so that faults
	// scripted at time 0 are in place first.
	ClientsStartAt time.Duration `json:"clients_start_at_ns,omitempty"`
	// MaxWait makes an acquire that waited longer a liveness violation
	// (starvation). 0 means not checked.
	MaxWait time.Duration `json:"max_wait_ns,omitempty"`
	// SkipRecoveryCheck turns off the liveness requirement that clients
	// acquire again once faults are healed.
	SkipRecoveryCheck bool `json:"skip_recovery_check,omitempty"`
	// StopAtViolation ends the run at the first violation the live
	// counter finds (--until-invalid); the history is still healed and
	// checked as at the time limit.
	StopAtViolation bool `json:"stop_at_violation,omitempty"`
	// OnProgress, when set, is called about twice a second during the run
	// and once at its end.
	OnProgress func(Progress) `json:"-"`
	// Log, when set, receives a copy of lockstorm.log as it is written.
	Log io.Writer `json:"-"`
	// KeepClusterDir keeps the nodes' data directories after the run.
	KeepClusterDir bool `json:"keep_cluster_dir"`
}

// ErrConfig wraps every configuration error (exit status 2); its text
// keeps the word "harness".
var ErrConfig = errors.New("harness: bad configuration")

// WithDefaults returns c with zero fields filled, or an error naming the
// bad field and what it allows.
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

// lockIsLabel reports whether Lock only labels a ClientCmd's lock (a zoo
// entry's): it then decides no default and allows any --fencing.
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

// checkNodes sets the node count when not given and checks it and the
// client count.
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

// checkTiming checks the TTL, the drift, the renewal and the holds.
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

// checkRest checks the persistence, time limit, fault interval and aim.
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
