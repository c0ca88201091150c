package config

import (
	"cmp"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/clients/python"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/lease"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// Setting is one setting of a run: a Config field set by the flag
// --Name and the plan key Name. Settings is the one home of the flags'
// names, types, defaults and help.
type Setting struct {
	// Name is the flag's name (without --) and the plan key.
	Name string
	// Help says what the setting means, without its default.
	Help string
	// Default describes a default the value's own default does not say
	// (one decided elsewhere or by other settings).
	Default string
	// Replay says when the replay command carries the setting; replayIf,
	// when set, must also hold.
	Replay   Replay
	replayIf func(Config) bool
	// value reads and writes the Config field, with its default.
	value value
}

// Replay says when the replay command carries a setting.
type Replay int

const (
	ReplayNever   Replay = iota // where a run is stored or what is kept, not what it does
	ReplayAlways                // always carried
	ReplayChanged               // carried when it differs from its default
)

// String is the README's word for r.
func (r Replay) String() string {
	return [...]string{ReplayNever: "no", ReplayAlways: "always", ReplayChanged: "if not default"}[r]
}

// Defaults of MinCoverage and TargetHolder.
const (
	DefaultMinCoverage  = 1
	DefaultTargetHolder = 0.8
)

// workloadSetting is a workload duration setting, replayed when it
// differs from its default derived from the TTL.
func workloadSetting(name, help, def string, field func(*workloads.Options) *time.Duration) Setting {
	return Setting{Name: name, Help: help, Default: def, Replay: ReplayChanged,
		replayIf: func(c Config) bool {
			d := workloads.Options{}.WithDefaults(c.TTL)
			return *field(&c.Workloads) != *field(&d)
		},
		value: duration(func(c *Config) *time.Duration { return field(&c.Workloads) }, 0)}
}

// Settings is the table of a run's settings, in the order of the replay
// command (the help lists flags by name).
func Settings() []Setting {
	return append([]Setting{
		{Name: "name", Help: "test name in the store", Default: "<lock>-<workload>",
			value: text(func(c *Config) *string { return &c.Name }, "")},
		{Name: "lock", Help: "lock under test: " + strings.Join(lockimpl.Names(), ", ") +
			"; as process clients (Python, python3-redis): " + strings.Join(python.Locks(), ", "), Replay: ReplayAlways,
			value: text(func(c *Config) *string { return &c.Lock }, "single")},
		{Name: "client-cmd", Help: "run each client as a process of this command, speaking JSON lines on stdin/stdout (docs/client-protocol.md), e.g. \"lockstorm client --lock single\"; --lock then only names the lock", Default: "none: in-process Go clients", Replay: ReplayChanged,
			value: text(func(c *Config) *string { return &c.ClientCmd }, "")},
		{Name: "client-dir", Help: "working directory of the process clients; a --client-cmd starting with a relative path (bin/client) is found in it", Default: "the current directory", Replay: ReplayChanged,
			value: text(func(c *Config) *string { return &c.ClientDir }, "")},
		{Name: "pause-model", Help: "what client-pause does: process (SIGSTOP of the client process, links frozen) or links (links frozen, the client keeps running)", Default: "process for process clients, else links", Replay: ReplayChanged,
			replayIf: func(c Config) bool { return c.PauseModel != defaultPauseModel(c) },
			value:    text(func(c *Config) *string { return &c.PauseModel }, "")},
		{Name: "workload", Help: "workload: " + strings.Join(workloads.Names(), ", "), Replay: ReplayAlways,
			value: text(func(c *Config) *string { return &c.Workload }, "counter")},
		{Name: "nemesis", Help: "comma-separated faults: " + strings.Join(nemesis.Kinds, ", "), Default: NoFaults + ", no faults", Replay: ReplayChanged,
			value: commaList(func(c *Config) *[]string { return &c.Nemesis })},
		{Name: "topology", Help: "standalone (independent Redis nodes) or cluster (a Redis Cluster: --nodes masters, each with one asynchronous replica; lock key lock:{lockstorm})", Replay: ReplayChanged,
			value: text(func(c *Config) *string { return &c.Topology }, TopologyStandalone)},
		{Name: "nodes", Help: "Redis nodes, 1..15 (masters on a cluster)", Default: "1; 5 for " + strings.Join(multiNodeLocks(), ", ") + ", which need at least 3; 3 masters on a cluster", Replay: ReplayAlways,
			value: integer(func(c *Config) *int { return &c.Nodes }, 0, nil)},
		{Name: "clients", Help: "concurrent clients, 1..64", Replay: ReplayAlways,
			value: integer(func(c *Config) *int { return &c.Clients }, DefaultClients, nil)},
		{Name: "ttl", Help: "lease time-to-live", Replay: ReplayAlways,
			value: duration(func(c *Config) *time.Duration { return &c.TTL }, lease.DefaultTTL)},
		{Name: "renew-every", Help: "watchdog renewal interval of renewable locks", Default: "ttl/3", Replay: ReplayChanged,
			value: duration(func(c *Config) *time.Duration { return &c.RenewEvery }, 0)},
		workloadSetting("hold-min", "shortest time a holder keeps the lock (counter: between its read and its write; api: inside the API; leader: a term is 2-4 x hold-max)", "ttl/20", func(w *workloads.Options) *time.Duration { return &w.HoldMin }),
		workloadSetting("hold-max", "longest time a holder keeps the lock (holds are drawn between hold-min and hold-max)", "ttl/4", func(w *workloads.Options) *time.Duration { return &w.HoldMax }),
		workloadSetting("think", "pause of a client between two rounds", "ttl/20", func(w *workloads.Options) *time.Duration { return &w.Think }),
		workloadSetting("acquire-timeout", "longest wait of one acquire call; then it gives up (fail) and the client tries again after --think", "2 x ttl", func(w *workloads.Options) *time.Duration { return &w.AcquireTimeout }),
		workloadSetting("op-timeout", "longest wait of one call other than acquire (a write, a release, a renewal); a paused client's calls must outlast its pause", "4 x ttl", func(w *workloads.Options) *time.Duration { return &w.OpTimeout }),
		{Name: "node-timeout", Help: "longest wait of one lock command on one node", Default: "ttl/10", Replay: ReplayChanged,
			value: duration(func(c *Config) *time.Duration { return &c.NodeTimeout }, 0)},
		{Name: "clients-start-at", Help: "time after the run's start of the clients' first round, so that faults planned at 0 are in place first", Replay: ReplayChanged,
			value: duration(func(c *Config) *time.Duration { return &c.ClientsStartAt }, 0)},
		{Name: "trust-lost", Help: "holders keep working until the lock says the lease is lost (a watchdog's lost event) instead of stopping at their own validity deadline, as code on a watchdog lock does", Replay: ReplayChanged,
			value: flag(func(c *Config) *bool { return &c.Workloads.TrustLostSignal })},
		{Name: "fair", Help: "the lock queues its waiters and promises grants in arrival order: the liveness checker requires FIFO grants, and an aimed latency's first waiter aim times a waiter's leave out of order (set by itself for fair, fair-naive and the Python FIFO locks)", Replay: ReplayChanged,
			replayIf: func(c Config) bool { return !FIFOLock(c.Lock) },
			value:    flag(func(c *Config) *bool { return &c.Fair })},
		{Name: "fencing", Help: "the resource rejects writes with stale fencing tokens (needs a lock that issues them: fenced, fenced-redlock)", Replay: ReplayChanged,
			// Without tokens it changes nothing, and the command line refuses it.
			replayIf: func(c Config) bool { return IssuesFences(c.Lock) || c.lockIsLabel() },
			value:    flag(func(c *Config) *bool { return &c.Fencing })},
		{Name: "persistence", Help: "Redis persistence: none, aof-everysec, aof-always", Replay: ReplayAlways,
			value: text(func(c *Config) *string { return (*string)(&c.Persistence) }, string(cluster.PersistNone))},
		{Name: "fault-plan", Help: "JSON file of a scripted fault plan (the fault-plan.json a campaign cell's report leaves next to it): these faults at these times instead of faults drawn from --nemesis", Default: "none: faults drawn from the seed", Replay: ReplayChanged,
			replayIf: func(c Config) bool { return c.Plan != nil },
			value:    text(func(c *Config) *string { return &c.PlanFile }, "")},
		{Name: "time-limit", Help: "length of the run", Replay: ReplayAlways,
			value: duration(func(c *Config) *time.Duration { return &c.TimeLimit }, DefaultTimeLimit)},
		{Name: "fault-interval", Help: "mean time between faults", Replay: ReplayAlways,
			value: duration(func(c *Config) *time.Duration { return &c.FaultInterval }, DefaultFaultInterval)},
		{Name: "seed", Help: "seed of the run's random source", Default: "drawn and printed", Replay: ReplayAlways,
			value: integer(func(c *Config) *int64 { return &c.Seed }, 0, nil)},
		{Name: "target-holder", Help: "probability that a random fault is aimed at the lock holder or a waiter, timed against its lease; 0 never", Replay: ReplayChanged,
			value: probability(func(c *Config) *float64 { return &c.TargetHolder }, DefaultTargetHolder)},
		{Name: "min-coverage", Help: "faults of each requested kind that must touch a lock holder or waiter for a valid verdict; 0 turns the bar off", Replay: ReplayChanged,
			value: integer(func(c *Config) *int { return &c.MinCoverage }, DefaultMinCoverage, GivenMinCoverage)},
		{Name: "store", Help: "folder of the run store",
			value: text(func(c *Config) *string { return &c.Store }, "store")},
	}, providerSettings()...)
}

// providerSettings are the last rows of Settings: where Redis runs.
func providerSettings() []Setting {
	return []Setting{
		{Name: "provider", Help: "where Redis runs: local (redis-server processes), docker (containers), external (given endpoints)", Replay: ReplayChanged,
			value: text(func(c *Config) *string { return &c.Provider }, "local")},
		{Name: "docker-image", Help: "Redis image of the docker provider", Default: cluster.DefaultDockerImage + "; make docker-image builds lockstorm/redis:7", Replay: ReplayChanged,
			value: text(func(c *Config) *string { return &c.DockerImage }, "")},
		{Name: "keep", Help: "keep the nodes' data folders (local) or containers (docker) after the run",
			value: flag(func(c *Config) *bool { return &c.KeepClusterDir })},
		{Name: "redis-addrs", Help: "external provider: Redis endpoints host:port,host:port,...", Replay: ReplayChanged,
			value: list(func(c *Config) *[]string { return &c.External.RedisAddrs })},
		{Name: "toxiproxy", Help: "external provider: toxiproxy server API host:port", Replay: ReplayChanged,
			value: text(func(c *Config) *string { return &c.External.Toxiproxy }, "")},
		{Name: "toxiproxy-listen-host", Help: "external provider: host the toxiproxy proxies listen on", Default: "the API's host", Replay: ReplayChanged,
			value: text(func(c *Config) *string { return &c.External.ListenHost }, "")},
		{Name: "redis-password-env", Help: "external provider: environment variable holding the Redis password", Replay: ReplayChanged,
			value: text(func(c *Config) *string { return &c.External.PasswordEnv }, "")},
		{Name: "redis-tls", Help: "external provider: the endpoints speak TLS", Replay: ReplayChanged,
			value: flag(func(c *Config) *bool { return &c.External.TLS })},
		{Name: "allow-non-loopback", Help: "external provider: allow endpoints off this host's loopback (faults disrupt whatever they touch)", Replay: ReplayChanged,
			value: flag(func(c *Config) *bool { return &c.External.AllowNonLoopback })},
	}
}

// multiNodeLocks are the built-in locks that default to 5 nodes.
func multiNodeLocks() []string {
	var out []string
	for _, n := range LockNames() {
		if multiNode(n) {
			out = append(out, n)
		}
	}
	return out
}

// setting is the row of Settings named name.
func setting(name string) (Setting, bool) {
	for _, s := range Settings() {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}

// fillDefaults gives every zero field the table's default.
func (c *Config) fillDefaults() {
	for _, s := range Settings() {
		s.value.fill(c)
	}
}

// GivenMinCoverage maps an explicit --min-coverage to Config.MinCoverage:
// a given 0 means no bar (-1).
func GivenMinCoverage(v int) int {
	if v <= 0 {
		return -1
	}
	return v
}

// GivenTargetHolder maps an explicit --target-holder to
// Config.TargetHolder: a given 0 means never (-1).
func GivenTargetHolder(v float64) float64 { return cmp.Or(v, -1) }
