package cluster

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// live is the registry of clusters not yet stopped, for StopAll.
var live = struct {
	sync.Mutex
	m map[Cluster]struct{}
}{m: map[Cluster]struct{}{}}

// Track adds a started cluster to those StopAll stops; a provider calls
// it as soon as there is something to clean up.
func Track(c Cluster) {
	live.Lock()
	live.m[c] = struct{}{}
	live.Unlock()
}

// Untrack removes a cluster from StopAll's list; a provider's Stop calls it.
func Untrack(c Cluster) {
	live.Lock()
	delete(live.m, c)
	live.Unlock()
}

// StopAll stops every cluster started by this process that is still
// running, and joins their Stop errors. The lockstorm command defers it in
// its run function (so it also runs while a panic unwinds) and calls it
// on a second SIGINT or SIGTERM before exiting (the first one cancels the
// run, which stops its cluster itself); HandleSignals, for programs that
// embed the package, calls it on the first SIGINT or SIGTERM.
func StopAll() error {
	live.Lock()
	cs := make([]Cluster, 0, len(live.m))
	for c := range live.m {
		cs = append(cs, c)
	}
	live.Unlock()
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Stop())
	}
	return errors.Join(errs...)
}

// HandleSignals makes SIGINT and SIGTERM stop every cluster (StopAll) and
// then exit with the conventional status 128+signal (130, 143). The
// returned function undoes it. Call it once, early in main.
func HandleSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			_ = StopAll()
			code := 1
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}
