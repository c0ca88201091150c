package nemesis

import (
	"errors"
	"fmt"
	"slices"
)

// ErrUnknownKind means a fault kind is neither registered nor in the Set.
var ErrUnknownKind = errors.New("nemesis: unknown fault kind")

// Set maps a fault kind to the nemesis that draws and applies it.
type Set map[string]Nemesis

// New returns a Set of every registered kind (Kinds) with default
// settings, acting on env. Replace an entry to change its settings or to
// plug in a nemesis of your own.
func New(env Env) Set {
	set := Set{}
	for _, s := range Specs() {
		set[s.Kind] = s.New(env)
	}
	return set
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
