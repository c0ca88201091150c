module github.com/lockstorm/lockstorm/zoo/redsync-v4.12.0

go 1.26.0

require (
	github.com/go-redsync/redsync/v4 v4.18.1
	github.com/hashicorp/go-multierror v1.1.1
	github.com/lockstorm/lockstorm v0.0.0
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/bsm/redislock v0.9.4 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/hashicorp/errwrap v1.1.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/lockstorm/lockstorm => ../..

// The repository root requires redsync v4.18.1, which minimal version
// selection would pick over v4.12.0: this replace forces the old release.
replace github.com/go-redsync/redsync/v4 => github.com/go-redsync/redsync/v4 v4.12.0
