// Command lockstorm runs Jepsen-style correctness tests of Redis locks
// under injected faults. It maps flags to a harness configuration and
// prints what the harness and checkers found; the logic lives in the
// packages it calls.
//
// Exit status: 0 valid, 1 invalid, 2 usage or setup error, 3 unknown.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/harness"
)

// Exit statuses.
const (
	exitValid   = 0
	exitInvalid = 1
	exitUsage   = 2
	exitUnknown = 3
)

// exitError carries an exit status out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func usage(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// newCommand is a subcommand without arguments that runs run.
func newCommand(use, short string, run func(cmd *cobra.Command) error) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd) }}
}

func main() {
	os.Exit(run())
}

func run() int {
	defer cluster.StopAll()
	ctx, stop := interruptContext()
	defer stop()

	root := &cobra.Command{
		Use:           "lockstorm",
		Short:         "Jepsen-style fault injection and checking for Redis distributed locks",
		Version:       harness.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError)
	root.SetHelpCommand(helpCommand(root))
	root.AddCommand(runCommand(), analyzeCommand(), catalogCommand(), serveCommand(), sweepCommand(), mergeCommand(), compareCommand(), powerCommand(), clientCommand(), zooCommand(), shrinkCommand())
	err := root.ExecuteContext(ctx)
	var ee *exitError
	switch {
	case err == nil:
		return exitValid
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "lockstorm:", plain(ee.err.Error()))
		}
		return ee.code
	default:
		// cobra's own errors: unknown command, missing argument.
		fmt.Fprintln(os.Stderr, "lockstorm:", plain(err.Error()))
		return exitUsage
	}
}

// interruptNote is what the first SIGINT or SIGTERM prints: a command
// that injects no faults (serve) replaces it with a plain "stopped".
var interruptNote atomic.Pointer[string]

// onInterrupt sets what the first SIGINT or SIGTERM prints.
func onInterrupt(note string) { interruptNote.Store(&note) }

// interruptContext ends on the first SIGINT or SIGTERM, so the run heals
// every fault and stops cleanly; a second signal stops every node at once
// and exits.
// The context's cause names the signal ("SIGINT", "SIGTERM"): the run's
// incomplete reason says what stopped it.
func interruptContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		var sig os.Signal
		select {
		case sig = <-ch:
		case <-ctx.Done():
			return
		}
		note := "interrupted: healing faults and stopping (again to force)"
		if p := interruptNote.Load(); p != nil {
			note = *p
		}
		fmt.Fprintln(os.Stderr, "lockstorm:", note)
		name := "SIGTERM"
		if sig == os.Interrupt {
			name = "SIGINT"
		}
		cancel(errors.New(name))
		if _, ok := <-ch; ok {
			_ = cluster.StopAll()
			os.Exit(130)
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}
