package sweep

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// Spec is a parsed, checked sweep.
type Spec struct {
	// Name names the sweep's folder, store/sweeps/<Name>/, and its runs'
	// test name in the store, sweep-<Name>. A rerun with the same name
	// resumes.
	Name string
	Grid Grid
	// Runs is the number of seeded runs per cell (the campaign's
	// --seeds): run k uses seed k, as every campaign's.
	Runs int
	// TimeLimit is each run's length.
	TimeLimit time.Duration
	Store     string
	// Clients is the number of concurrent client slots.
	Clients int
	// HoldMin and HoldMax bound a holder's drawn time between its read and
	// its write, in absolute time (not scaled by the TTL): a holder slower
	// than a short TTL writes after its lease ran out.
	HoldMin, HoldMax time.Duration
	// Topology is config.TopologyStandalone (one Redis node) or
	// config.TopologyCluster (a 3-master Redis Cluster, the key
	// hash-tagged).
	Topology string
	// Fresh reruns every cell even when its file exists.
	Fresh bool
	// Process, when set, is the lock under test as process clients (a
	// --client-cmd or a --zoo-entry); nil runs lockstorm's own locks.
	Process *Process
	// HoldTTLs, when set, are the holds in TTLs of each cell ([1, 2] for
	// a watchdog entry: one to two TTLs), in place of HoldMin and HoldMax.
	HoldTTLs [2]float64
}

// Fixed parts of every sweep run's workload and fault schedule.
const (
	// FirstPauseAt is when the first client pause starts.
	FirstPauseAt = time.Second
	// PauseEvery is the time between two pause starts.
	PauseEvery = 2500 * time.Millisecond
	// minAcquireTimeout bounds one acquire call from below, so the
	// availability map shows faults rather than a TTL-scaled timeout.
	minAcquireTimeout = 2 * time.Second
)

// Raw is a sweep as written: flag values or a YAML plan with keys named
// like the flags. List keys take a comma-separated string or a YAML list.
//
//	name: ttl-study
//	ttl: [200ms, 1s]
//	renew: [none, ttl/3]
//	pause: [0, 300ms, 1.5s]
//	fencing-axis: [off, on]
//	seeds: 3
//	time-limit: 8s
type Raw struct {
	Name  string `yaml:"name"`
	TTL   List   `yaml:"ttl"`
	Renew List   `yaml:"renew"`
	Pause List   `yaml:"pause"`
	// Fencing is the fencing axis, --fencing-axis.
	Fencing   List   `yaml:"fencing-axis"`
	Seeds     int    `yaml:"seeds"`
	TimeLimit string `yaml:"time-limit"`
	Store     string `yaml:"store"`
	Clients   int    `yaml:"clients"`
	HoldMin   string `yaml:"hold-min"`
	HoldMax   string `yaml:"hold-max"`
	Topology  string `yaml:"topology"`
	// Nemesis is the fault axis: client-pause, partition or both.
	Nemesis List `yaml:"nemesis"`
	// ClientCmd, ClientDir and Lock run a process client (Lock its
	// label); ZooEntry runs a zoo entry's.
	ClientCmd string `yaml:"client-cmd"`
	ClientDir string `yaml:"client-dir"`
	Lock      string `yaml:"lock"`
	ZooEntry  string `yaml:"zoo-entry"`
	// Given says which flags the command line gave (see Resolve's
	// defaults that depend on the lock under test); keys of a spec file
	// count as given too.
	Given func(key string) bool `yaml:"-" json:"-"`
	// Process, Subject and HoldTTLs are a resolved lock under test
	// (Resolve), carried by ToRaw so that a merge of a sweep's shards
	// rebuilds the same Spec without building the entry again.
	Process  *Process   `yaml:"-"`
	Subject  Subject    `yaml:"-"`
	HoldTTLs [2]float64 `yaml:"-"`
	// file, set by LoadRaw, is the spec file and the keys it gave that
	// no flag overrode: Spec's errors name those as keys of the file.
	file *specFile
}

// DefaultRaw is the default sweep: TTL 200ms and 1s × renewal none and
// ttl/3, plus the fenced lock × holder pauses of 300ms and 1.5s, one seed
// and the run's time limit per cell (the campaign defaults: --seeds 1,
// --time-limit 20s): 12 runs, about 4.5 minutes on two cores. It has no
// pause-0 row, which would add 6 runs: the 300ms row already shows a TTL
// shorter than the holders' work failing without renewal, and the 1.5s
// row what only fencing survives.
func DefaultRaw() Raw {
	return Raw{Name: "default", TTL: "200ms,1s", Renew: "none,ttl/3", Pause: "300ms,1.5s", Fencing: "off,on", Nemesis: NemesisClientPause, Seeds: 1,
		TimeLimit: config.DefaultTimeLimit.String(), Store: "store", Clients: config.DefaultClients, HoldMin: "100ms", HoldMax: "400ms",
		Topology: config.TopologyStandalone}
}

// List is a comma-separated list; in YAML also a sequence of scalars.
type List string

// UnmarshalYAML accepts a scalar or a sequence of scalars.
func (l *List) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = List(n.Value)
		return nil
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return listError("want a list of plain values, got " + nodeKind(c) + " in it")
			}
			parts = append(parts, c.Value)
		}
		*l = List(strings.Join(parts, ","))
		return nil
	}
	return listError("want a value or a list, got " + nodeKind(n))
}

// Merge returns r with every field that set reports as given taken from
// o (flags given explicitly override a YAML plan). Keys are the flag
// names.
func (r Raw) Merge(o Raw, set func(key string) bool) Raw {
	pick := func(key string, apply func()) {
		if set(key) {
			apply()
		}
	}
	pick("name", func() { r.Name = o.Name })
	pick("ttl", func() { r.TTL = o.TTL })
	pick("renew", func() { r.Renew = o.Renew })
	pick("pause", func() { r.Pause = o.Pause })
	pick("fencing-axis", func() { r.Fencing = o.Fencing })
	pick("seeds", func() { r.Seeds = o.Seeds })
	pick("time-limit", func() { r.TimeLimit = o.TimeLimit })
	pick("store", func() { r.Store = o.Store })
	pick("clients", func() { r.Clients = o.Clients })
	pick("hold-min", func() { r.HoldMin = o.HoldMin })
	pick("hold-max", func() { r.HoldMax = o.HoldMax })
	pick("topology", func() { r.Topology = o.Topology })
	pick("nemesis", func() { r.Nemesis = o.Nemesis })
	pick("client-cmd", func() { r.ClientCmd = o.ClientCmd })
	pick("client-dir", func() { r.ClientDir = o.ClientDir })
	pick("lock", func() { r.Lock = o.Lock })
	pick("zoo-entry", func() { r.ZooEntry = o.ZooEntry })
	r.file = r.file.without(set)
	return r
}

// FillDefaults fills r's empty fields from DefaultRaw (a YAML plan need
// not list every key).
func (r Raw) FillDefaults() Raw {
	d := DefaultRaw()
	fill := func(s *string, def string) {
		if strings.TrimSpace(*s) == "" {
			*s = def
		}
	}
	fill(&r.Name, d.Name)
	fill((*string)(&r.TTL), string(d.TTL))
	fill((*string)(&r.Renew), string(d.Renew))
	fill((*string)(&r.Pause), string(d.Pause))
	fill((*string)(&r.Fencing), string(d.Fencing))
	fill(&r.TimeLimit, d.TimeLimit)
	fill(&r.Store, d.Store)
	fill(&r.HoldMin, d.HoldMin)
	fill(&r.HoldMax, d.HoldMax)
	fill((*string)(&r.Nemesis), string(d.Nemesis))
	if r.Seeds == 0 {
		r.Seeds = d.Seeds
	}
	if r.Clients == 0 {
		r.Clients = d.Clients
	}
	return r
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Spec parses and checks r (call FillDefaults first for a partial plan).
// Every error wraps ErrSpec and names the flag, or the key of the spec
// file the bad value came from ("sweep spec: ttl: must be ...").
func (r Raw) Spec() (Spec, error) {
	s, err := r.spec()
	return s, r.file.name(err)
}

func (r Raw) spec() (Spec, error) {
	s := Spec{Name: r.Name, Runs: r.Seeds, Store: r.Store, Clients: r.Clients, Topology: r.Topology, Process: r.Process, HoldTTLs: r.HoldTTLs}
	s.Grid.Lock = r.Subject
	var err error
	switch s.Topology {
	case "":
		s.Topology = config.TopologyStandalone
	case config.TopologyStandalone, config.TopologyCluster:
	default:
		return s, bad("--topology must be %s or %s, got %q", config.TopologyStandalone, config.TopologyCluster, s.Topology)
	}
	if !nameRE.MatchString(s.Name) {
		return s, bad("--name must be letters, digits, '.', '_' or '-' (up to 64), got %q", s.Name)
	}
	if s.Grid.TTLs, err = ParseDurations("ttl", string(r.TTL)); err != nil {
		return s, err
	}
	if s.Grid.Renews, err = ParseRenews("renew", string(r.Renew)); err != nil {
		return s, err
	}
	for _, rn := range s.Grid.Renews {
		for _, ttl := range s.Grid.TTLs {
			if iv := rn.Interval(ttl); iv > 0 && iv >= ttl {
				return s, bad("--renew %s must renew more often than the TTL (%v)", rn.Spec, ttl)
			}
		}
	}
	if s.Grid.Pauses, err = ParseDurations("pause", string(r.Pause)); err != nil {
		return s, err
	}
	if s.Grid.Fencing, err = ParseFencing("fencing-axis", string(r.Fencing)); err != nil {
		return s, err
	}
	if s.Grid.Nemeses, err = ParseNemeses("nemesis", string(r.Nemesis)); err != nil {
		return s, err
	}
	if s.TimeLimit, err = parseDur("time-limit", r.TimeLimit); err != nil {
		return s, err
	}
	if err := s.parseHolds(r.HoldMin, r.HoldMax); err != nil {
		return s, err
	}
	if s.Runs < 1 {
		return s, bad("--seeds must be at least 1, got %d", s.Runs)
	}
	if s.Clients < 2 || s.Clients > 64 {
		return s, bad("--clients must be between 2 and 64 (contention needs two), got %d", s.Clients)
	}
	if strings.TrimSpace(s.Store) == "" {
		return s, bad("--store must name a folder")
	}
	if maxP := maxDur(s.Grid.Pauses); maxP > 0 {
		if need := FirstPauseAt + maxP + s.recovery(); s.TimeLimit < need {
			return s, bad("--time-limit %v leaves no room for a %v pause (needs at least %v: first pause at %v, then %v to recover)",
				s.TimeLimit, maxP, need, FirstPauseAt, s.recovery())
		}
	}
	return s, nil
}

// parseHolds parses the holds' bounds.
func (s *Spec) parseHolds(lo, hi string) error {
	var err error
	if s.HoldMin, err = parseDur("hold-min", lo); err != nil {
		return err
	}
	if s.HoldMax, err = parseDur("hold-max", hi); err != nil {
		return err
	}
	if s.HoldMin > s.HoldMax {
		return bad("--hold-min (%v) must not exceed --hold-max (%v)", s.HoldMin, s.HoldMax)
	}
	return nil
}

// Resolve is Spec with the lock under test made ready: a --zoo-entry's
// requires check and build (ZooEntry), or a --client-cmd's process. A
// watchdog entry's holders hold one to two TTLs unless the holds were
// given, as in the zoo. Errors wrap ErrSpec.
func (r Raw) Resolve(ctx context.Context) (Spec, error) {
	s, err := r.Spec()
	if err != nil {
		return s, err
	}
	if r.Lock != "" && r.ClientCmd == "" && r.ZooEntry == "" {
		return s, bad("--lock labels a --client-cmd's lock (a sweep picks lockstorm's own locks by cell): give --client-cmd")
	}
	s.Process, s.Grid.Lock, err = ResolveProcess(ctx, r.ZooEntry, r.ClientCmd, r.ClientDir, r.Lock)
	if err != nil || s.Process == nil {
		return s, err
	}
	if s.Process.Watchdog && !r.given("hold-min") && !r.given("hold-max") {
		s.HoldTTLs = [2]float64{1, 2}
	}
	if !s.Process.Fences && !s.Process.FencesUnknown && !r.given("fencing-axis") {
		s.Grid.Fencing = []bool{false} // the default axis's "on" needs tokens
	}
	return s, s.Process.check(s)
}

// given reports whether key was given on the command line or in the
// spec file.
func (r Raw) given(key string) bool {
	return (r.Given != nil && r.Given(key)) || (r.file != nil && r.file.keys[key])
}

func parseDur(flag, v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d <= 0 {
		return 0, bad("--%s must be a positive duration like 8s or 300ms, got %q", flag, v)
	}
	return d, nil
}

func maxDur(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// recovery is the fault-free time every run keeps after its last pause,
// in which clients must acquire again (the liveness check).
func (s Spec) recovery() time.Duration { return max(time.Second, 2*maxDur(s.Grid.TTLs)) }

// PauseTimes are the start times of the client pauses, the same in every
// cell: every PauseEvery from FirstPauseAt while the longest pause of the
// grid still leaves the recovery time before the time limit.
func (s Spec) PauseTimes() []time.Duration {
	maxP := maxDur(s.Grid.Pauses)
	var out []time.Duration
	for at := FirstPauseAt; at+maxP+s.recovery() <= s.TimeLimit; at += PauseEvery {
		out = append(out, at)
	}
	return out
}

// HolderFaults is the scripted plan of faults of kind (NemesisClientPause
// or NemesisPartition) of length d at the given times, each aimed at
// whoever holds the lock at that moment. A partition cuts the holder from
// all of the nodes (n1..nodes); when the lock renews (renews), it starts
// within milliseconds after one of the holder's extensions returned
// (nemesis.TargetRenewal), so that the next extension meets it, the
// moment a watchdog's promise is tested.
func HolderFaults(times []time.Duration, d time.Duration, kind string, renews bool, nodes int) *nemesis.Plan {
	if d <= 0 || len(times) == 0 {
		return nil
	}
	f := nemesis.Fault{Kind: nemesis.KindClientPause, Clients: []string{nemesis.TargetHolder}}
	if kind == NemesisPartition {
		f = nemesis.Fault{Kind: nemesis.KindPartition, Shape: nemesis.ShapeClientFromK, Clients: []string{nemesis.TargetHolder},
			Target: nemesis.AimHolder, Duration: d}
		for i := 1; i <= nodes; i++ {
			f.Nodes = append(f.Nodes, fmt.Sprintf("n%d", i))
		}
		if renews {
			f.Clients, f.Target = []string{nemesis.TargetRenewal}, nemesis.AimRenewal
		}
	}
	var steps []nemesis.Step
	for _, at := range times {
		steps = append(steps, nemesis.Step{At: at, Duration: d, Fault: f})
	}
	p := nemesis.Scripted(0, steps...)
	return &p
}

// PauseModel is how the sweep pauses its holders. On standalone nodes
// the real pause: every cell runs its clients as processes (`lockstorm
// client --lock L`), and a pause stops the holder's process with SIGSTOP,
// its watchdog thread included, as a stop-the-world GC pause does; an
// in-process watchdog would keep running through the pause and warn its
// holder, which no frozen process can (config.PauseProcess). On a Redis
// Cluster, where process clients do not run yet, the links' freeze
// (config.PauseLinks): softer, and the page says so.
func (s Spec) PauseModel() string {
	if s.Topology == config.TopologyCluster {
		return config.PauseLinks
	}
	return config.PauseProcess
}

// Config is the harness configuration of one cell. With lockstorm's own
// locks: the `single` lock without renewal, the `renewable` lock
// otherwise, the `fenced` lock (no watchdog) with a fencing resource when
// the cell is fenced, each as a process client paused for real
// (PauseModel). With a Process: its command in every cell, the cell's
// renewal as its RenewEvery (LOCKSTORM_RENEW_MS; none for a fenced
// cell). Always the counter workload with holders trusting the
// lost-signal (so a holder without a watchdog writes after its lease ran
// out), and holder-targeted faults of the cell's kind and length
// (HolderFaults).
func (s Spec) Config(c Cell) config.Config {
	lock, every := "single", c.RenewValue().Interval(c.TTL)
	switch {
	case c.Fenced:
		lock, every = "fenced", 0
	case every > 0:
		lock = "renewable"
	}
	cmd, dir, nodes, nodeTimeout := "lockstorm client --lock "+lock, "", 1, time.Duration(0)
	if p := s.Process; p != nil {
		lock, cmd, dir, nodes, nodeTimeout = p.Label, p.Cmd, p.Dir, max(p.Nodes, 1), p.NodeTimeout
	}
	if s.Topology == config.TopologyCluster {
		cmd, nodes = "", 3
	}
	holdMin, holdMax := s.HoldMin, s.HoldMax
	if s.HoldTTLs[1] > 0 {
		holdMin, holdMax = time.Duration(s.HoldTTLs[0]*float64(c.TTL)), time.Duration(s.HoldTTLs[1]*float64(c.TTL))
	}
	return config.Config{
		Name: "sweep-" + s.Name, Cell: c.ReportTitle(lock), Lock: lock, ClientCmd: cmd, ClientDir: dir, PauseModel: s.PauseModel(),
		Topology: s.Topology, Workload: "counter", Nodes: nodes, Clients: s.Clients, NodeTimeout: nodeTimeout,
		TTL: c.TTL, RenewEvery: every, Fencing: c.Fenced, TimeLimit: s.TimeLimit, Seed: int64(c.Run),
		Store: s.Store, Plan: HolderFaults(s.PauseTimes(), c.Pause, nemesisOf(c.Nemesis), every > 0, nodes),
		Workloads: workloads.Options{
			HoldMin: holdMin, HoldMax: holdMax, TrustLostSignal: true,
			AcquireTimeout: max(2*c.TTL, minAcquireTimeout),
			// A paused client does not time out its own requests: its
			// calls outlast the longest pause of the grid.
			OpTimeout: max(4*c.TTL, 2*maxDur(s.Grid.Pauses)+time.Second),
		},
	}
}
