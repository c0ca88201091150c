package lockimpl

import (
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// entry builds one lock from the clients (one per node, in node order).
type entry struct {
	multi bool // uses every client; single-node locks use clients[0]
	build func(clients []redis.UniversalClient, opt Options) (Locker, error)
}

func one(f func(redis.UniversalClient, Options) Locker) entry {
	return entry{build: func(c []redis.UniversalClient, o Options) (Locker, error) { return f(c[0], o), nil }}
}

var registry = map[string]entry{
	nameSingle:       one(func(c redis.UniversalClient, o Options) Locker { return NewSingle(c, o) }),
	nameRenewable:    one(func(c redis.UniversalClient, o Options) Locker { return NewRenewable(c, o) }),
	nameFair:         one(func(c redis.UniversalClient, o Options) Locker { return NewFair(c, o) }),
	nameFairNaive:    one(func(c redis.UniversalClient, o Options) Locker { return NewFairNaive(c, o) }),
	nameFenced:       one(func(c redis.UniversalClient, o Options) Locker { return NewFenced(c, o) }),
	nameUnsafeDel:    one(func(c redis.UniversalClient, o Options) Locker { return NewUnsafeDel(c, o) }),
	nameUnsafeGetDel: one(func(c redis.UniversalClient, o Options) Locker { return NewUnsafeGetDel(c, o) }),
	nameUnsafeNoTTL:  one(func(c redis.UniversalClient, o Options) Locker { return NewUnsafeNoTTL(c, o) }),
	nameRedislock:    one(func(c redis.UniversalClient, o Options) Locker { return NewRedislock(c, o) }),
	nameRedlock: {multi: true, build: func(c []redis.UniversalClient, o Options) (Locker, error) {
		return NewRedlock(c, o)
	}},
	nameFencedRedlock: {multi: true, build: func(c []redis.UniversalClient, o Options) (Locker, error) {
		return NewFencedRedlock(c, o)
	}},
	nameRedsync: {multi: true, build: func(c []redis.UniversalClient, o Options) (Locker, error) {
		return NewRedsync(c, o)
	}},
}

// order is the order Names lists the locks in: correct ones, adapters,
// broken ones.
var order = []string{
	nameSingle, nameRenewable, nameRedlock, nameFair, nameFairNaive, nameFenced, nameFencedRedlock,
	nameRedsync, nameRedislock,
	nameUnsafeDel, nameUnsafeGetDel, nameUnsafeNoTTL,
}

// Names lists every lock New accepts.
func Names() []string { return append([]string(nil), order...) }

// MultiNode reports whether the named lock uses every client given to New
// (Redlock and its variants); the others use only clients[0].
func MultiNode(name string) bool { return registry[name].multi }

// IssuesFences reports whether the named lock gives every lease a fencing
// token (fenced, fenced-redlock). The others leave Lease.Fence 0, so a
// fencing resource has nothing to compare.
func IssuesFences(name string) bool { return name == nameFenced || name == nameFencedRedlock }

// Broken reports whether the named lock is one of the deliberately broken
// variants (expected to fail the checkers).
func Broken(name string) bool { return strings.HasPrefix(name, "unsafe-") }

// New builds the named lock over clients (one per node, in node order;
// single-node locks use clients[0]). An unknown name is an error listing
// the allowed names.
func New(name string, clients []redis.UniversalClient, opt Options) (Locker, error) {
	e, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("%w %q: allowed: %s", ErrUnknownLock, name, strings.Join(order, ", "))
	}
	if len(clients) == 0 {
		return nil, fmt.Errorf("%w: lock %q", ErrNoClients, name)
	}
	return e.build(clients, opt)
}
