package nemesis

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sync"
	"time"
)

// Capability is something a cluster provider can do to its nodes that a
// fault kind needs. The harness states what each provider offers; a kind
// runs on a provider that offers all of its Needs.
type Capability string

// Capabilities a fault kind may need.
const (
	// NeedLinks: cut, slow and hold the links from clients to nodes
	// (Cluster.Cut, AddLatency, Freeze: a toxiproxy in front of every node).
	NeedLinks Capability = "links"
	// NeedProcess: pause, resume, kill and restart a node's server process
	// (Cluster.Pause, Resume, Kill, Restart).
	NeedProcess Capability = "process"
	// NeedAdmin: reach a node's own Redis directly, past every proxy
	// (Cluster.AdminAddr), to run commands on it.
	NeedAdmin Capability = "admin"
	// NeedOwnData: the nodes are lockstorm's own (started for the run), so
	// a fault may destroy every key on them; never an external endpoint,
	// whose other data is someone else's.
	NeedOwnData Capability = "own-data"
	// NeedReplica: an asynchronous replica of the primary node to promote
	// (cluster.ReplicationOf); a cluster whose plan needs it starts one.
	NeedReplica Capability = "replica"
)

// Spec is everything lockstorm knows of one fault kind: the kind's own
// file registers it (Register, from its init), and the harness (the
// --nemesis list, provider checks, whether to start a replica), the
// schedule and the reports (plot colours, client slots) read it from
// here. Coverage needs no fact of a kind: it reads the targets each
// record carries (history.Op's Clients and Nodes). Adding a fault is one
// file that registers its Spec, plus its test.
type Spec struct {
	// Kind is the fault's name: in --nemesis, the history's Fault field,
	// plots and coverage.
	Kind string
	// Order places the kind in Kinds (the --nemesis list), lower first;
	// zero puts it after every ordered kind, by name. The first kinds keep
	// their historical order through it; a new kind needs none.
	Order int
	// Params are the Fault fields the kind reads, by their Detail names
	// (faultParams: "nodes", "clients", "delay", ...). Kind,
	// Duration and Target belong to every kind. A plan whose fault sets
	// another field is refused (Plan.Validate).
	Params []string
	// Needs are the provider capabilities the fault uses.
	Needs []Capability
	// Colour is the kind's colour in every plot (red is kept for overlaps
	// and failures).
	Colour color.NRGBA
	// EndsClients is true when a completed start ends the processes of the
	// clients it names (client-crash): the slot's next records come from a
	// fresh process id.
	EndsClients bool
	// Busy is how long a fault's start itself takes (a crash's restart
	// delay, a failover's promotion); nil means no time. The schedule adds
	// it before the fault's window.
	Busy func(Fault) time.Duration
	// Squeeze shortens a fault's start so that it takes at most d; nil
	// when the start cannot be shortened. The schedule's first round uses
	// it to fit every requested kind.
	Squeeze func(f *Fault, d time.Duration)
	// New returns the kind's nemesis, with default settings, acting on env.
	New func(env Env) Nemesis
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Spec{}
)

// Kinds lists every registered fault kind, by Spec.Order. Register keeps
// it up to date; read it, do not change it.
var Kinds []string

// Register adds a fault kind. Each kind's file calls it from its init, in
// the style of toxiproxy's toxics. It panics on an empty or duplicate
// kind, an unknown parameter or a missing New: these are programming
// errors found at start.
func Register(s Spec) {
	if s.Kind == "" || s.New == nil {
		panic("nemesis: Register needs a Kind and a New")
	}
	for _, p := range s.Params {
		if !slices.Contains(paramNames(), p) {
			panic(fmt.Sprintf("nemesis: %s registers unknown parameter %q (known: %v)", s.Kind, p, paramNames()))
		}
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[s.Kind]; dup {
		panic("nemesis: fault kind " + s.Kind + " registered twice")
	}
	registry[s.Kind] = s
	kinds := make([]string, 0, len(registry))
	for k := range registry {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(registry[a]), rank(registry[b])), cmp.Compare(a, b))
	})
	Kinds = kinds
}

// rank is where s goes in Kinds: its Order, or after every ordered kind.
func rank(s Spec) int {
	if s.Order == 0 {
		return math.MaxInt
	}
	return s.Order
}

// Lookup returns the registered Spec of a kind.
func Lookup(kind string) (Spec, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	s, ok := registry[kind]
	return s, ok
}

// Specs returns every registered Spec, in the order of Kinds.
func Specs() []Spec {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Spec, 0, len(Kinds))
	for _, k := range Kinds {
		out = append(out, registry[k])
	}
	return out
}

// Supported returns the kinds, in the order of Kinds, whose Needs are all
// among caps.
func Supported(caps ...Capability) []string {
	var out []string
	for _, s := range Specs() {
		if s.runsWith(caps) {
			out = append(out, s.Kind)
		}
	}
	return out
}

// runsWith reports whether caps hold every capability s needs.
func (s Spec) runsWith(caps []Capability) bool {
	for _, n := range s.Needs {
		if !slices.Contains(caps, n) {
			return false
		}
	}
	return true
}

// busy is how long a start of f takes (Spec.Busy; zero for an unknown
// kind).
func busy(f Fault) time.Duration {
	if s, ok := Lookup(f.Kind); ok && s.Busy != nil {
		return s.Busy(f)
	}
	return 0
}

// Needs reports whether the plan (nil: no plan) has a step whose kind
// needs the capability c, e.g. NeedReplica: the cluster must start a
// replica.
func (p *Plan) Needs(c Capability) bool {
	if p == nil {
		return false
	}
	for _, s := range p.Steps {
		if spec, ok := Lookup(s.Fault.Kind); ok && slices.Contains(spec.Needs, c) {
			return true
		}
	}
	return false
}

// rgb is an opaque colour for Spec.Colour.
func rgb(r, g, b uint8) color.NRGBA { return color.NRGBA{R: r, G: g, B: b, A: 0xff} }
