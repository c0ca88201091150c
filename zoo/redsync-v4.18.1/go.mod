module github.com/lockstorm/lockstorm/zoo/redsync-v4.18.1

go 1.26.0

require (
	github.com/lockstorm/lockstorm v0.0.0
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/bsm/redislock v0.9.4 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-redsync/redsync/v4 v4.18.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/lockstorm/lockstorm => ../..

// The adapter is the repository root's (lockimpl/adapters), which pins
// this release today; the replace keeps the entry on it if the root moves.
replace github.com/go-redsync/redsync/v4 => github.com/go-redsync/redsync/v4 v4.18.1
