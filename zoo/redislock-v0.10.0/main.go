// Command client is the lockstorm zoo's client for github.com/bsm/redislock
// (a single-instance lock) with Refresh as its watchdog: the line protocol
// of docs/client-protocol.md on stdin and stdout (protocol.Main), on the
// first LOCKSTORM_NODES proxy. The redislock-v0.9.4 and redislock-v0.10.0
// entries link this same file; each entry's go.mod pins the release, and
// the client names the release it was built with.
//
// The adapter is lockimpl/adapters' Redislock, the one the in-process
// --lock redislock runs, with a watchdog that calls Refresh every
// LOCKSTORM_RENEW_MS (adapters.NewRedislockRenewed): redislock has none of
// its own, and v0.10.0's README shows this very loop as its "external
// watchdog". README.md has the mapping and the failure classification.
package main

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/lockimpl/adapters"
	"github.com/lockstorm/lockstorm/protocol"
)

var name = "redislock " + protocol.ModuleVersion("github.com/bsm/redislock")

func main() {
	protocol.Main(name, func(env protocol.Env, opt lockimpl.Options) (lockimpl.Locker, func(), error) {
		// One go-redis client on the one node, configured as lockstorm's
		// own locks are: context deadlines honoured, no silent retries.
		c := redis.NewClient(lockimpl.ClientOptions(env.Nodes[0]))
		// Between attempts: exponential backoff from 16 ms (the least the
		// library's doc recommends for its ExponentialBackoff) to 64 ms.
		opt.RetryMin, opt.RetryMax = 16*time.Millisecond, 64*time.Millisecond
		return adapters.NewRedislockRenewed(c, opt), func() { c.Close() }, nil
	})
}
