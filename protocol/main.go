package protocol

import (
	"context"
	"fmt"
	"os"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Main is the whole main function of a process client written in Go (a
// zoo entry's adapter): it reads the LOCKSTORM_* environment, builds the
// lock with build on the env's nodes and options (opt is env.Options
// filled by WithDefaults for the nodes), serves it on stdin and stdout
// until stdin ends, calls the lock's close function, and exits: 0 at the
// end of stdin, 2 on a bad environment or a lock build could not make,
// 3 on a read or write error. Its lines on stderr start with name.
func Main(name string, build func(env Env, opt lockimpl.Options) (lock lockimpl.Locker, close func(), err error)) {
	os.Exit(run(name, build))
}

func run(name string, build func(Env, lockimpl.Options) (lockimpl.Locker, func(), error)) int {
	env, err := ReadEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	opt := env.Options.WithDefaults(len(env.Nodes))
	lock, closeLock, err := build(env, opt)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	if closeLock != nil {
		defer closeLock()
	}
	if err := Serve(context.Background(), os.Stdin, os.Stdout, lock, Config{TTL: opt.TTL, Log: os.Stderr}); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 3
	}
	return 0
}
