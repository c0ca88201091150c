package lockimpl

import "github.com/redis/go-redis/v9"

// NewFencedRedlock returns a Redlock whose leases carry a fencing token.
// Each node takes the lock and increments its own counter in one script;
// the lease's token is the largest counter among the granting quorum, and
// a second round raises every granting node's counter to that token
// before Acquire returns (still inside the validity).
//
// What the token guarantees: if lease B is granted after lease A stopped
// holding its quorum (expired or released), B's quorum shares a node with
// A's, that node's counter was raised to A.Fence before A returned, so
// B.Fence > A.Fence. Tokens therefore strictly increase in grant order.
//
// What it does not: it relies on the same assumptions as Redlock itself
// (bounded clock drift, no node forgetting its keys within a TTL) and on
// counters surviving: a node that restarts without persistence (or loses
// its last writes under aof-everysec) resets its counter, and if the
// overlap node is such a node a later lease can carry a smaller or equal
// token. Tokens are not dense (gaps are normal) and a client that never
// completed its second round may have pushed counters up: only order
// matters. Fencing protects the resource only if it checks the token.
func NewFencedRedlock(nodes []redis.UniversalClient, opt Options) (*Redlock, error) {
	return newRedlock(nodes, opt, nameFencedRedlock, true)
}
