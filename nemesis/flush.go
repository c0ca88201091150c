package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

func init() {
	Register(Spec{Kind: KindFlush, Needs: []Capability{NeedAdmin, NeedOwnData}, Params: []string{"nodes"},
		Colour: rgb(0xbc, 0xbd, 0x22), New: func(env Env) Nemesis { return &Flush{Env: env} }})
}

// KindFlush is a node's data wiped while it keeps running.
const KindFlush = "flush"

// flushAll runs FLUSHALL on the server at addr and returns how many keys
// its database 0 held just before.
func flushAll(ctx context.Context, addr string) (int64, error) {
	rdb := adminClient(addr)
	defer rdb.Close()
	var size *redis.IntCmd
	_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		size = p.DBSize(ctx)
		p.FlushAll(ctx)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return size.Val(), nil
}

// Flush empties one node with FLUSHALL, run on the node's own address
// (Cluster.AdminAddr, past the proxies, so it works under any link
// fault): every lock key on it is gone at once while the node keeps
// answering, which is data loss without downtime. A lock that trusts a
// key to stay until its TTL runs out (Redlock's quorum, a single node)
// can then be granted to a second client while the first still holds it.
// Unlike a crash, no persistence brings the keys back: FLUSHALL is itself
// written to the append-only file.
//
// Stop does nothing: lost data is not restored, just as after a real
// flush. Draw picks a node; the fault's window (Duration, 1 TTL) only
// separates it from the next fault in a schedule (its shortest step is
// the default half TTL). The start's record says how many keys each node
// lost (Outcome).
type Flush struct {
	Env Env
	permanent

	mu   sync.Mutex
	lost []string // "n1 lost 3 keys", one per node of the latest Start
}

// Draw draws a flush of one node.
func (*Flush) Draw(r *rand.Rand, t Topology) Fault {
	return Fault{Kind: KindFlush, Nodes: []string{pick(r, t.Nodes)}, Duration: t.ttl()}
}

// Start flushes each of the fault's nodes (several for a fault aimed at a
// lease), counting the keys of database 0 it held in the same
// transaction.
func (fl *Flush) Start(ctx context.Context, f Fault) error {
	var lost []string
	err := forNodes(ctx, f, func(ctx context.Context, n string) error {
		addr, err := fl.Env.Cluster.AdminAddr(n)
		if err != nil {
			return err
		}
		keys, err := flushAll(ctx, addr)
		if err != nil {
			return fmt.Errorf("nemesis: flush %s: %w", n, err)
		}
		lost = append(lost, fmt.Sprintf("%s lost %d %s", n, keys, plural(keys, "key")))
		return nil
	})
	fl.mu.Lock()
	fl.lost = lost
	fl.mu.Unlock()
	return err
}

// plural is word, with an s unless n is 1.
func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Outcome says how many keys each node lost in the latest Start, e.g.
// "n1 lost 3 keys".
func (fl *Flush) Outcome(Fault) string {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return strings.Join(fl.lost, ", ")
}

// Aim flushes the nodes that granted the holder's lease, enough of them
// to break its quorum, soon after it was granted: the lease is gone there
// while the holder still counts on it.
func (*Flush) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault { return aimLease(f) }
