package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/cluster/rediscluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/pauseclock"
	"github.com/lockstorm/lockstorm/lockimpl"
	_ "github.com/lockstorm/lockstorm/lockimpl/adapters" // registers --lock redsync and redislock for every entry point
	"github.com/lockstorm/lockstorm/procclient"
	"github.com/lockstorm/lockstorm/resource"
	"github.com/lockstorm/lockstorm/workloads"
)

// slot is one client slot: its links, and the process running in it (a
// crash ends it, unreleased, and starts a fresh one).
type slot struct {
	name   string
	index  int // 0-based slot number
	run    *run
	worker *workloads.Worker
	jitter *lockimpl.Jitter // retry jitter of the slot's locks (slotJitter)
	// clock is the process's running time, paused in a real pause
	// (PauseProcess) so that its timeouts do not fire meanwhile.
	clock *pauseclock.Clock
	// crashMu: one crash at a time (the nemesis, a broken process client).
	crashMu sync.Mutex

	mu      sync.Mutex
	proc    *procclient.Client // the current process client (process clients)
	cancel  context.CancelFunc // ends the current process
	done    chan struct{}      // closed when the current process has returned
	closers []func() error     // the current process's connections
	rcs     []redis.UniversalClient
}

// connect builds the slot's lock (a Go lock, or a process client) and
// resource client on fresh connections through the slot's proxies.
func (s *slot) connect(ctx context.Context) (lockimpl.Locker, *resource.Client, []func() error, error) {
	var lock lockimpl.Locker
	var closers []func() error
	var err error
	if s.run.cfg.ProcessClients() {
		lock, err = s.startProcess(ctx)
		if err == nil {
			closers = append(closers, lock.(*procclient.Client).Close)
		}
	} else {
		lock, closers, err = s.goLock()
	}
	if err != nil {
		return nil, nil, closers, err
	}
	raddr := s.run.res.Addr()
	if !s.run.directResource {
		if raddr, err = s.run.cluster.Addr(s.name, resourceTarget); err != nil {
			return nil, nil, closers, err
		}
	}
	res := resource.NewClient(raddr)
	closers = append(closers, res.Close)
	return lock, res, closers, nil
}

// goLock builds the slot's Go lock on one go-redis client per node, or on
// one cluster client for a Redis Cluster.
func (s *slot) goLock() (lockimpl.Locker, []func() error, error) {
	if rc, ok := s.run.cluster.(*rediscluster.Cluster); ok {
		return s.clusterLock(rc)
	}
	c := s.run.cluster
	var rcs []redis.UniversalClient
	var closers []func() error
	for _, n := range c.Nodes() {
		addr, err := c.Addr(s.name, n)
		if err != nil {
			return nil, closers, err
		}
		o := lockimpl.ClientOptions(addr) // no hidden retries, deadlines honoured
		o.PoolSize = 4
		o.Protocol = 2 // RESP2: no HELLO, a reconnect costs one round trip
		// Small buffers: a run whose commands time out opens thousands of
		// connections a second, each zeroing go-redis's 32 KiB default.
		o.ReadBufferSize, o.WriteBufferSize = connBufferSize, connBufferSize
		if err := clientOptions(c, n, o); err != nil {
			return nil, closers, err
		}
		rc := redis.NewClient(o)
		rcs = append(rcs, rc)
		closers = append(closers, rc.Close)
	}
	lock, err := s.buildLock(rcs, c.Nodes()) // nil on an error
	return lock, closers, err
}

// lockOptions are the options of every client's lock, before NodeNames
// and the renewal hook.
func lockOptions(c config.Config) lockimpl.Options {
	return lockimpl.Options{TTL: c.TTL, RenewEvery: c.RenewEvery, NodeTimeout: c.NodeTimeout, DriftFactor: c.DriftFactor}
}

// buildLock builds the run's lock on the slot's node clients, keeping
// them for the warm-up.
func (s *slot) buildLock(rcs []redis.UniversalClient, names []string) (lockimpl.Locker, error) {
	cfg := s.run.cfg
	opt := lockOptions(cfg)
	opt.NodeNames, opt.RenewHook, opt.Jitter = names, s.worker.RenewHook, s.jitter
	opt = opt.WithDefaults(len(rcs))
	var lock lockimpl.Locker
	var err error
	if cfg.NewLock != nil {
		lock, err = cfg.NewLock(rcs, opt)
	} else {
		lock, err = lockimpl.New(cfg.Lock, rcs, opt)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: lock %s: %v", config.ErrConfig, cfg.Lock, err)
	}
	s.mu.Lock()
	s.rcs = rcs
	s.mu.Unlock()
	return lock, nil
}

// start runs a process in the slot until ctx ends or it is crashed; warm
// opens its connections first, so that its first acquire measures the
// lock, not connection setup.
func (s *slot) start(ctx context.Context, warm bool) error {
	s.clock.Resume() // a new process is not stopped
	lock, res, closers, err := s.connect(ctx)
	if err != nil {
		closeAll(closers)
		return err
	}
	if warm {
		if err := s.warm(ctx, res); err != nil {
			closeAll(closers)
			return err
		}
	}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	s.mu.Lock()
	s.worker.Lock, s.worker.Resource = lock, res
	s.cancel, s.done, s.closers = cancel, done, closers
	s.mu.Unlock()
	go func() {
		defer close(done)
		defer s.run.recoverPanic("client " + s.name)
		select {
		case <-s.run.begin: // every client is ready
		case <-pctx.Done():
			return
		}
		if !workloads.Sleep(pctx, time.Until(s.run.rec.Start().Add(s.run.cfg.ClientsStartAt)), nil) && pctx.Err() != nil {
			return
		}
		_ = s.run.workload.Run(pctx, s.worker)
	}()
	return nil
}

// warm opens the slot's connections to every node and to the resource.
func (s *slot) warm(ctx context.Context, res *resource.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, rc := range s.rcs {
		if err := rc.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("harness: client %s: first PING: %w", s.name, err)
		}
	}
	if err := res.Ping(ctx); err != nil {
		return fmt.Errorf("harness: client %s: resource: %w", s.name, err)
	}
	return s.warmProcess(ctx)
}

// crash kills the slot's process without a release (closing its
// connections ends its watchdog too); a fresh process takes the slot.
func (s *slot) crash(ctx context.Context) error {
	s.crashMu.Lock()
	defer s.crashMu.Unlock()
	s.mu.Lock()
	cancel, done, closers := s.cancel, s.done, s.closers
	s.mu.Unlock()
	if cancel == nil {
		return errors.New("harness: slot " + s.name + " has no process")
	}
	// Halted and disconnected before its context ends: a lock's clean-up
	// on cancellation (leaving a queue) must not reach a server.
	s.worker.Halt()
	s.retire()
	closeAll(closers)
	cancel()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.worker.Crash()
	return s.start(s.run.workCtx, false)
}

// wait blocks until the slot's current process has returned.
func (s *slot) wait() {
	for waited := (chan struct{})(nil); ; {
		s.mu.Lock()
		done := s.done
		s.mu.Unlock()
		if done == nil || done == waited { // none, or no new one since
			return
		}
		<-done
		waited = done
	}
}

// close ends the slot's process and closes its connections.
func (s *slot) close() {
	s.mu.Lock()
	cancel, closers := s.cancel, s.closers
	s.closers, s.proc = nil, nil // a process closed here is not replaced
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	closeAll(closers)
}

func closeAll(fs []func() error) {
	for _, f := range fs {
		_ = f()
	}
}

// newSlot prepares slot i; start runs it.
func newSlot(r *run, i int, procs *workloads.Processes, seed int64) *slot {
	name := config.ClientName(i)
	w := workloads.NewWorker(name, i)
	w.Rec, w.Procs, w.Opt, w.TTL, w.Stop = r.rec, procs, r.cfg.Workloads, r.cfg.TTL, r.stopWork
	w.Rand = rand.New(rand.NewPCG(uint64(seed), uint64(i)+1))
	s := &slot{name: name, index: i, run: r, worker: w, jitter: slotJitter(seed, i), clock: &pauseclock.Clock{}}
	w.OnRelease = func() { r.releases.happened(name) }
	w.OnRenewal = func() { r.renewals.happened(name) }
	if r.cfg.PauseModel == config.PauseProcess {
		w.Clock = s.clock // the worker is the process's application code
	}
	return s
}

// slotJitter is slot i's lock retry jitter, seeded from the run's seed on
// a PCG stream apart from the workers': the same per client for the same
// seed, continued by a process restarted in the slot.
func slotJitter(seed int64, i int) *lockimpl.Jitter {
	return lockimpl.NewJitter(rand.New(rand.NewPCG(uint64(seed), 1<<32|uint64(i))).Uint64())
}

// connBufferSize is each go-redis connection's read and write buffer, bytes.
const connBufferSize = 4 << 10

// resourceTarget is the cluster target name of the protected resource.
const resourceTarget = "res"

// gracePeriod is how long workers may finish their round after the time limit.
func gracePeriod(cfg config.Config) time.Duration {
	return cfg.Workloads.AcquireTimeout + 4*cfg.Workloads.OpTimeout + time.Second
}
