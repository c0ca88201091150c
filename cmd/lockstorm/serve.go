package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/reports"
)

func serveCommand() *cobra.Command {
	var (
		store string
		port  int
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "browse the stored runs on http://127.0.0.1:PORT",
		Long: `serve lists the runs, sweeps and comparisons of a store and serves their reports on
http://127.0.0.1:PORT until interrupted. A run whose verdict is unknown says why: interrupted
(stopped before its time limit), incomplete (cut short otherwise), coverage shortfall (its
faults did not exercise the lock enough to back a green verdict) or undecided (a clock event,
a checker that could not decide); hover it for the full reason.

Exit status: 0 after an interrupt, 2 on bad input (no such store, port in use).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if st, err := os.Stat(store); err != nil || !st.IsDir() {
				return usage("--store %q is not a folder of runs", store)
			}
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				return usage("--port %d: %v", port, err)
			}
			onInterrupt("stopped") // serve injects no faults: nothing to heal
			srv := &http.Server{Handler: reports.StoreHandler(store), ReadHeaderTimeout: 10 * time.Second}
			fmt.Printf("serving %s on http://%s/ (Ctrl-C to stop)\n", store, ln.Addr())
			go func() {
				<-cmd.Context().Done()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
			}()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return &exitError{code: exitUsage, err: err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&store, "store", "store", "folder of the run store")
	cmd.Flags().IntVar(&port, "port", 8080, "port on 127.0.0.1")
	return cmd
}
