package nemesis

import (
	"context"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

func init() {
	Register(Spec{Kind: KindClockJump, Order: 70, Needs: []Capability{NeedAdmin}, Params: []string{"nodes", "jump-by"},
		Colour: rgb(0x2c, 0xa0, 0x2c), New: func(env Env) Nemesis { return &ClockJump{Env: env} }})
}

// KindClockJump is a node's clock stepped, as key expiry sees it.
const KindClockJump = "clock-jump"

//go:embed clockjump.lua
var clockJumpLua string

var clockJumpScript = redis.NewScript(clockJumpLua)

// ClockJump steps one node's clock forward or backward, as far as key
// expiry is concerned, which is all a Redis lock depends on.
//
// Mechanism: instead of really moving a clock, an atomic Lua script run
// on the node through its AdminAddr (bypassing the proxies, so it works
// under any link fault) rewrites the remaining TTL of every key that has
// one: PTTL − JumpBy for a forward jump (deleting the key when that is
// <= 0, which is what a real forward step does: the key expires at once)
// and PTTL + |JumpBy| for a backward one. A step change of the clock
// shifts every existing key's remaining time by the step and changes
// nothing else for expiry: keys set after the step get their full TTL
// from the new clock, exactly as they do here. So this is an exact
// emulation at millisecond resolution, not an approximation.
//
// Why not libfaketime or an LD_PRELOAD time shim: Debian's libfaketime
// deadlocks against Redis's jemalloc at start ("unexpected recursive
// calls to clock_gettime", measured on these machines); a shim of our own
// is a C library to build, ship and keep in step with Redis's clock calls
// (it mixes monotonic and wall clocks), and neither works with the docker
// or external providers, where we cannot preload anything. The script
// needs only a Redis connection, so it works with every provider.
//
// Cost: the script blocks the node while it runs, about 2.5 µs per key
// (25 ms for 10,000 keys with a TTL, measured), negligible for lock keys.
//
// Limits: only database 0 is rewritten (where every lock library keeps
// its keys); a key written during the script's run cannot exist (scripts
// are atomic). Stop does nothing: a clock step is not undone, just as a
// real one is not; a later backward jump is a separate fault.
//
// Draw picks a node and a step of 0.5 to 2 TTLs, forward three times in
// four. The fault's window (Duration, 1 TTL) only separates it from the
// next fault in a schedule; its shortest step is the default half TTL.
type ClockJump struct {
	Env Env
	permanent
}

// Draw draws a clock jump.
func (c *ClockJump) Draw(r *rand.Rand, t Topology) Fault {
	n := pick(r, t.Nodes)
	by := scaled(r, t.ttl(), 0.5, 2)
	if r.IntN(4) == 0 {
		by = -by
	}
	return Fault{Kind: KindClockJump, Nodes: []string{n}, JumpBy: by, Duration: t.ttl()}
}

// Start steps the expiry clock of each of the fault's nodes (several for
// a fault aimed at a lease) by f.JumpBy.
func (c *ClockJump) Start(ctx context.Context, f Fault) error {
	return forNodes(ctx, f, func(ctx context.Context, n string) error {
		addr, err := c.Env.Cluster.AdminAddr(n)
		if err != nil {
			return err
		}
		_, _, err = JumpClock(ctx, addr, f.JumpBy)
		return err
	})
}

// JumpClock applies a clock step of by (positive = forward) to the expiry
// of every key with a TTL in database 0 of the Redis server at addr, and
// returns how many keys it moved and how many it deleted (their new
// remaining time was <= 0). by is rounded to a millisecond.
func JumpClock(ctx context.Context, addr string, by time.Duration) (moved, deleted int64, err error) {
	rdb := adminClient(addr)
	defer rdb.Close()
	res, err := clockJumpScript.Run(ctx, rdb, nil, by.Round(time.Millisecond).Milliseconds()).Int64Slice()
	if err != nil {
		return 0, 0, fmt.Errorf("nemesis: clock jump on %s: %w", addr, err)
	}
	if len(res) != 2 {
		return 0, 0, fmt.Errorf("nemesis: clock jump on %s: unexpected reply %v", addr, res)
	}
	return res[0], res[1], nil
}

// Aim jumps the clocks of the nodes that granted the holder's lease,
// enough of them to break its quorum, forward (the lease expires there at
// once), soon after it was granted.
func (c *ClockJump) Aim(r *rand.Rand, f Fault, t Topology, nth int) Fault {
	f = aimLease(f)
	if f.JumpBy < 0 {
		f.JumpBy = -f.JumpBy
	}
	return f
}
