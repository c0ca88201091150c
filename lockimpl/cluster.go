package lockimpl

import (
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Running the locks on a Redis Cluster: a single-node lock is given one
// *redis.ClusterClient (from ClusterClientOptions) for the whole cluster
// and a hash-tagged lock key such as "lock:{lockstorm}". Every key the
// built-in locks derive from it appends a suffix ("lock:{lockstorm}:fence",
// ":queue", ":hb", ":seq"), so it hashes to the same slot and each
// multi-key script runs on the one master owning that slot. CheckSlots
// verifies that before a run; ClusterCapable says which locks may run on a
// cluster at all.

// ErrNotOnCluster: the lock needs independent Redis nodes, which a Redis
// Cluster is not.
var ErrNotOnCluster = errors.New("lockimpl: this lock needs independent Redis nodes and a Redis Cluster is not that: " +
	"a cluster is one lock service, each key living on one master (failing over to an asynchronously replicated replica), " +
	"so a Redlock quorum over it would be one vote counted several times; run it on separate nodes instead")

// ClusterCapable reports whether the named lock can run on a Redis Cluster
// (through one ClusterClient): every lock that uses a single node can;
// those that need several independent nodes (redlock, fenced-redlock,
// redsync: MultiNode) cannot, and an unknown name cannot. A lock that is
// not capable is refused with ErrNotOnCluster.
func ClusterCapable(name string) bool {
	e, ok := registry[name]
	return ok && !e.multi
}

// ClusterClientOptions returns the go-redis cluster options the locks
// expect for a Redis Cluster reachable at addrs (any of its masters):
// context deadlines honoured and no command ever sent twice. go-redis's
// cluster client otherwise resends a command after a connection error or
// a timeout and follows redirects by resending: a resent release whose
// first copy ran reports "not held" for a release that happened. With
// MaxRedirects -1 it sends each command once; a MOVED or ASK reply (a
// slot moved, after a failover) comes back to the lock as an error the
// lock knows the server refused (Refused), while the client reloads the
// slot table, so the lock's next attempt goes to the new owner. Slot
// migration (ASK) is therefore not followed: the harness does not
// reshard during a run.
func ClusterClientOptions(addrs ...string) *redis.ClusterOptions {
	return &redis.ClusterOptions{
		Addrs:                 addrs,
		MaxRedirects:          -1,
		MaxRetries:            -1,
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
		ReadTimeout:           3 * time.Second,
		WriteTimeout:          3 * time.Second,
		DisableIdentity:       true,
	}
}

// NewClusterClient is redis.NewClusterClient(ClusterClientOptions(addrs...)).
func NewClusterClient(addrs ...string) *redis.ClusterClient {
	return redis.NewClusterClient(ClusterClientOptions(addrs...))
}

// Refused reports whether err is a server's reply that it did not run the
// command: a cluster redirect (MOVED, ASK), CLUSTERDOWN, TRYAGAIN or
// CROSSSLOT, each sent before any execution. Like NotSent it makes an
// attempt certainly failed, provided the client did not resend the
// command after an earlier, unknown attempt (ClientOptions and
// ClusterClientOptions never do).
func Refused(err error) bool {
	if err == nil {
		return false
	}
	if _, moved := redis.IsMovedError(err); moved {
		return true
	}
	if _, ask := redis.IsAskError(err); ask {
		return true
	}
	return redis.IsClusterDownError(err) || redis.IsTryAgainError(err) || isCrossSlot(err)
}
