package lockimpl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Builder builds a lock over clients (one per node, in node order) with
// opt.
type Builder func(clients []redis.UniversalClient, opt Options) (Locker, error)

// entry is one lock New can build.
type entry struct {
	multi bool // uses every client; single-node locks use clients[0]
	build Builder
}

func one(f func(redis.UniversalClient, Options) Locker) entry {
	return entry{build: func(c []redis.UniversalClient, o Options) (Locker, error) { return f(c[0], o), nil }}
}

var registry = map[string]entry{
	nameSingle:          one(func(c redis.UniversalClient, o Options) Locker { return NewSingle(c, o) }),
	nameSingleWait:      one(func(c redis.UniversalClient, o Options) Locker { return NewSingleWait(c, o) }),
	nameRenewable:       one(func(c redis.UniversalClient, o Options) Locker { return NewRenewable(c, o) }),
	nameFair:            one(func(c redis.UniversalClient, o Options) Locker { return NewFair(c, o) }),
	nameFairNaive:       one(func(c redis.UniversalClient, o Options) Locker { return NewFairNaive(c, o) }),
	nameFenced:          one(func(c redis.UniversalClient, o Options) Locker { return NewFenced(c, o) }),
	nameUnsafeDel:       one(func(c redis.UniversalClient, o Options) Locker { return NewUnsafeDel(c, o) }),
	nameUnsafeGetDel:    one(func(c redis.UniversalClient, o Options) Locker { return NewUnsafeGetDel(c, o) }),
	nameUnsafeNoTTL:     one(func(c redis.UniversalClient, o Options) Locker { return NewUnsafeNoTTL(c, o) }),
	nameUnsafeOverclaim: one(func(c redis.UniversalClient, o Options) Locker { return NewUnsafeOverclaim(c, o) }),
	nameUnsafeCrossSlot: one(func(c redis.UniversalClient, o Options) Locker { return NewUnsafeCrossSlot(c, o) }),
	nameRedlock: {multi: true, build: func(c []redis.UniversalClient, o Options) (Locker, error) {
		return NewRedlock(c, o)
	}},
	nameFencedRedlock: {multi: true, build: func(c []redis.UniversalClient, o Options) (Locker, error) {
		return NewFencedRedlock(c, o)
	}},
}

// The order Names lists the locks in: the correct built-in ones, then the
// registered ones in registration order, then the broken ones.
var (
	builtinOrder = []string{nameSingle, nameSingleWait, nameRenewable, nameRedlock, nameFair, nameFairNaive, nameFenced, nameFencedRedlock}
	brokenOrder  = []string{nameUnsafeDel, nameUnsafeGetDel, nameUnsafeNoTTL, nameUnsafeCrossSlot, nameUnsafeOverclaim}
	registered   []string
)

// Register makes a lock buildable by name through New (and so through
// the harness's --lock): multi says it uses every client (as Redlock
// does), else New hands it clients[0] only. The adapters of locks
// written by others (package lockimpl/adapters) register themselves this
// way; call it from an init function, before any New or Names. It panics
// when the name is taken.
func Register(name string, multi bool, build Builder) {
	if _, taken := registry[name]; taken {
		panic("lockimpl: Register: lock " + name + " already registered")
	}
	registry[name] = entry{multi: multi, build: build}
	registered = append(registered, name)
}

// Names lists every lock New accepts: the built-in ones and the
// registered ones (the adapters once lockimpl/adapters is imported).
func Names() []string { return slices.Concat(builtinOrder, registered, brokenOrder) }

// MultiNode reports whether the named lock uses every client given to New
// (Redlock and its variants); the others use only clients[0].
func MultiNode(name string) bool { return registry[name].multi }

// IssuesFences reports whether the named lock gives every lease a fencing
// token (fenced, fenced-redlock, unsafe-crossslot). The others leave
// Lease.Fence 0, so a fencing resource has nothing to compare.
func IssuesFences(name string) bool {
	return name == nameFenced || name == nameFencedRedlock || name == nameUnsafeCrossSlot
}

// Broken reports whether the named lock is one of the deliberately broken
// variants (expected to fail the checkers).
func Broken(name string) bool { return strings.HasPrefix(name, "unsafe-") }

// New builds the named lock over clients (one per node, in node order;
// single-node locks use clients[0]). An unknown name is an error listing
// the allowed names.
func New(name string, clients []redis.UniversalClient, opt Options) (Locker, error) {
	e, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("%w %q: allowed: %s", ErrUnknownLock, name, strings.Join(Names(), ", "))
	}
	if len(clients) == 0 {
		return nil, fmt.Errorf("%w: lock %q", ErrNoClients, name)
	}
	return e.build(clients, opt)
}
