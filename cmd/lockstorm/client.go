package main

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

// clientCommand runs a built-in lock behind the client line protocol
// (docs/client-protocol.md) on stdin and stdout, configured by the
// LOCKSTORM_* environment.
func clientCommand() *cobra.Command {
	var name string
	cmd := newCommand("client", "run a built-in lock as a process client: JSON lines on stdin/stdout (docs/client-protocol.md)", func(cmd *cobra.Command) error {
		env, err := protocol.ReadEnv(os.Getenv)
		if err != nil {
			return usage("client: %v", err)
		}
		lock, closeLock, err := env.NewLock(name)
		if err != nil {
			return usage("client: %v", err)
		}
		defer closeLock()
		cfg := protocol.Config{TTL: env.Options.WithDefaults(len(env.Nodes)).TTL, Log: os.Stderr}
		if err := protocol.Serve(cmd.Context(), os.Stdin, os.Stdout, lock, cfg); err != nil {
			return &exitError{code: exitUnknown, err: err}
		}
		return nil
	})
	cmd.Flags().StringVar(&name, "lock", "single", "lock to serve: "+strings.Join(lockimpl.Names(), ", "))
	cmd.Long = `client runs a built-in Go lock as a process client: it reads requests from stdin and
writes answers and events to stdout, one JSON object per line (docs/client-protocol.md),
on the nodes and TTL of its LOCKSTORM_* environment. ` + "`lockstorm run --client-cmd \"lockstorm client --lock NAME\"`" + ` runs one per client slot.

Exit status: 0 at the end of stdin, 2 on a bad environment or lock, 3 on a read or write error.`
	return cmd
}
