package nemesis

import (
	"fmt"
	"slices"
)

// Kinds lists every implemented fault kind, in a fixed order.
var Kinds = []string{
	KindPartition, KindLatency, KindClientPause, KindClientCrash,
	KindServerPause, KindCrash, KindClockJump, KindFailover,
}

// Set maps a fault kind to the nemesis that draws and applies it.
type Set map[string]Nemesis

// New returns a Set of every implemented kind with default settings,
// acting on env. Replace an entry to change its settings or to plug in a
// nemesis of your own.
func New(env Env) Set {
	return Set{
		KindPartition:   &Partition{Env: env},
		KindLatency:     &Latency{Env: env},
		KindClientPause: &ClientPause{Env: env},
		KindClientCrash: &ClientCrash{Env: env},
		KindServerPause: &ServerPause{Env: env},
		KindCrash:       &Crash{Env: env},
		KindClockJump:   &ClockJump{Env: env},
		KindFailover:    &Failover{Env: env},
	}
}

// Get returns the nemesis of a kind.
func (s Set) Get(kind string) (Nemesis, error) {
	n, ok := s[kind]
	if !ok {
		known := make([]string, 0, len(s))
		for k := range s {
			known = append(known, k)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownKind, kind, known)
	}
	return n, nil
}
