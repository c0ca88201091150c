// Package harness runs one lockstorm test (a config.Config): it starts a
// cluster, the protected resource and the clients, drives a workload under
// a nemesis schedule for a time limit, heals every fault, and stores the
// history and the configuration for package analysis to check.
package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/resource"
	"github.com/lockstorm/lockstorm/workloads"
)

// createHistory opens the run's history file; tests replace it to make
// the history writes fail (a full disk).
var createHistory = history.CreateFile

// run is one test run in progress.
type run struct {
	cfg        config.Config
	dir        string   // the run's folder in the store
	clients    []string // the client slots' names
	clientArgv []string // the process clients' command line
	versions   map[string]string
	cluster    cluster.Cluster
	rec        *history.Recorder
	tgt        *targeter         // aims targeted faults; nil without a fault plan
	releases   *clientEvents     // the workers' release starts, for faults aimed at them
	renewals   *clientEvents     // the workers' extensions that returned ok, likewise
	overhead   analysis.Overhead // measured in setup and finish
	ranFor     time.Duration
	res        *resource.Server
	workload   workloads.Workload
	slots      []*slot
	plan       *nemesis.Plan
	nemSet     nemesis.Set
	logf       func(format string, args ...any)
	log        *runLog

	directResource bool // the resource is not behind the proxies

	workCtx  context.Context // hard context of the workers
	stopWork chan struct{}   // closed at the time limit: no new rounds
	begin    chan struct{}   // closed when every client is ready (beginWork)

	panicMu sync.Mutex
	panics  []string
	abort   context.CancelFunc
}

// RunFunc runs one test; Run is the real one, campaigns' tests inject fakes.
type RunFunc func(ctx context.Context, cfg config.Config) (*analysis.Result, error)

// Run executes one test and stores its history and configuration under
// cfg.Store. Whatever happens (an error, ctx cancelled by Ctrl-C, a panic
// in a client) every fault is healed and every node stopped before Run
// returns. Configuration errors wrap config.ErrConfig and start nothing.
func Run(ctx context.Context, cfg config.Config) (*analysis.Result, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	return runChecked(ctx, cfg)
}

// runChecked is Run of a configuration WithDefaults has filled and checked.
func runChecked(ctx context.Context, cfg config.Config) (res *analysis.Result, err error) {
	r, err := newRun(cfg)
	if err != nil {
		return nil, err
	}
	if r.dir, err = store.NewRunDir(cfg.Store, cfg.Name); err != nil {
		return nil, err
	}
	res = &analysis.Result{Dir: r.dir, Config: r.cfg, Plan: r.plan}
	started := false // set once setup succeeded and the workload starts
	defer func() {
		if !started && err != nil {
			store.MarkSetupFailed(r.dir, err)
		}
	}()
	if r.log, err = openLog(r.dir, cfg.Log); err != nil {
		return res, err
	}
	defer r.log.close()
	r.logf = r.log.logf
	ctx, unlog := withRunLog(ctx, r.log)
	defer unlog()
	ctx, r.abort = context.WithCancel(ctx)
	defer r.abort()
	defer r.teardown(&err)
	if err := r.setup(ctx); err != nil {
		return res, err
	}
	started = true
	store.LinkLatest(r.dir)
	err = r.execute(ctx, res)
	return res, r.finish(ctx, res, err)
}

// newRun draws the run's seed (when cfg has none) and its fault plan,
// before anything starts: same seed, same plan.
func newRun(cfg config.Config) (*run, error) {
	if cfg.Seed == 0 {
		cfg.Seed = DrawSeed()
	}
	r := &run{cfg: cfg, logf: func(string, ...any) {}}
	r.workload, _ = workloads.New(cfg.Workload, cfg.Workloads)
	r.clients = make([]string, cfg.Clients)
	for i := range r.clients {
		r.clients[i] = config.ClientName(i)
	}
	nodes := make([]string, cfg.Nodes)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("n%d", i+1)
	}
	r.nemSet = newNemesisSet(r.nemesisEnv())
	var err error
	if cfg.ProcessClients() {
		if r.clientArgv, err = clientArgv(cfg); err != nil {
			return nil, err
		}
	}
	if r.plan, err = plan(cfg, r.nemSet, r.clients, nodes); err != nil {
		return nil, err
	}
	return r, nil
}

// setup writes test.json and starts the cluster, the history and the
// resource; teardown undoes what it started.
func (r *run) setup(ctx context.Context) error {
	cfg := r.cfg
	r.logf("run %s: lock %s, workload %s, %d nodes, %d clients, ttl %v, fencing %v, seed %d",
		cfg.Name, cfg.Lock, cfg.Workload, cfg.Nodes, cfg.Clients, cfg.TTL, cfg.Fencing, cfg.Seed)
	if r.plan != nil {
		r.logf("fault plan: %d faults, final heal at %v", len(r.plan.Steps), r.plan.HealAt)
	}
	r.versions = versions(nil, cfg)
	if err := r.writeTestFile(analysis.TestFile{}); err != nil {
		return err
	}
	c, err := startCluster(ctx, cfg, r.clients, r.plan.Needs(nemesis.NeedReplica))
	if err != nil {
		return fmt.Errorf("harness: start cluster: %w", err)
	}
	r.cluster = c
	for _, n := range c.Nodes() {
		a, _ := c.AdminAddr(n)
		r.logf("node %s at %s", n, a)
	}
	r.measureProxy(ctx, &r.overhead)
	r.nemSet = newNemesisSet(r.nemesisEnv())
	// Record the Redis version now that nodes run.
	r.versions = versions(c, cfg)
	_ = r.writeTestFile(analysis.TestFile{})
	if r.rec, err = createHistory(filepath.Join(r.dir, store.HistoryFile)); err != nil {
		return err
	}
	r.rec.KeepLast(liveTail) // memory stays flat: the whole history is in the file
	res, err := resource.Start(resource.Config{Fencing: cfg.Fencing, Clock: r.rec.Now})
	if err != nil {
		r.rec.Close()
		return err
	}
	r.res = res
	if err := r.spillWrites(); err != nil {
		r.rec.Close()
		return err
	}
	if cfg.Provider == "external" {
		// A toxiproxy server elsewhere cannot reach the harness's loopback,
		// where the resource listens: clients reach it directly, so link
		// faults (and client pauses) do not delay resource writes.
		r.logf("external provider: the resource is reached directly, not through the proxies")
		r.directResource = true
	} else if err := c.AddUpstream(ctx, resourceTarget, res.Addr()); err != nil {
		r.rec.Close()
		return fmt.Errorf("harness: resource proxy: %w", err)
	}
	return nil
}

// writeTestFile writes test.json: tf with the run's configuration, plan
// and versions.
func (r *run) writeTestFile(tf analysis.TestFile) error {
	tf.Config, tf.Plan, tf.Versions = r.cfg, r.plan, r.versions
	return store.WriteJSON(filepath.Join(r.dir, store.TestFile), tf)
}

// teardown closes the resource and stops the cluster, when started; a
// failed stop becomes *err unless there is one already.
func (r *run) teardown(err *error) {
	if r.res != nil {
		r.res.Close()
	}
	if r.cluster == nil {
		return
	}
	if serr := r.cluster.Stop(); serr != nil && *err == nil {
		*err = fmt.Errorf("harness: stop cluster: %w", serr)
	}
}

// nemesisFinishTimeout bounds the wait, after the time limit and the
// clients' last rounds, for the nemesis to complete its op in flight and
// heal.
const nemesisFinishTimeout = 2 * nemesis.DefaultCleanupTimeout

// execute runs the clients and the nemesis, then heals.
func (r *run) execute(ctx context.Context, res *analysis.Result) (err error) {
	healCtx := context.WithoutCancel(ctx)
	defer func() {
		// Final heal on every path, panics included.
		p := recover()
		hctx, cancel := context.WithTimeout(healCtx, 30*time.Second)
		defer cancel()
		if herr := r.cluster.HealAll(hctx); herr != nil && err == nil {
			err = fmt.Errorf("harness: final heal: %w", herr)
		}
		if p != nil {
			err = fmt.Errorf("harness: panic: %v\n%s", p, debug.Stack())
		}
	}()

	workCtx, cancelWork := context.WithCancel(ctx)
	defer cancelWork()
	r.workCtx, r.stopWork = workCtx, make(chan struct{})
	if err := r.startSlots(workCtx); err != nil {
		close(r.stopWork)
		cancelWork()
		r.waitSlots()
		return err
	}
	r.beginWork()
	if r.plan != nil {
		r.tgt = newTargeter(r)
		r.tgt.startKeyEvents(workCtx)
		defer r.tgt.close()
	}
	stopClocks := r.watchClocks(workCtx)
	defer func() { res.ClockEvents = stopClocks() }()
	nemDone, nemFinish := make(chan error, 1), make(chan struct{})
	go func() {
		defer func() {
			if p := recover(); p != nil {
				nemDone <- fmt.Errorf("harness: nemesis panic: %v", p)
			}
		}()
		nemDone <- r.runNemesis(workCtx, nemFinish)
	}()
	var tr tracker
	start := time.Now()
	reached := r.waitTimeLimit(ctx, res, &tr, start)
	// No fault starts after the time limit; the one in flight completes.
	close(nemFinish)
	if reached {
		r.recoverAfterLateHeal(ctx, res, start, nemDone)
	}
	r.ranFor = time.Since(start)
	close(r.stopWork)
	nerr := r.windDown(ctx, cancelWork, nemDone)
	r.progress(&tr, start, true)
	if nerr != nil && !errors.Is(nerr, context.Canceled) {
		return nerr
	}
	return nil
}

// startSlots starts one slot per client, all at once (an interpreter can
// take a second to start); their workloads wait for beginWork.
func (r *run) startSlots(workCtx context.Context) error {
	r.releases, r.renewals = newClientEvents(), newClientEvents()
	r.begin = make(chan struct{})
	procs := workloads.NewProcesses(r.cfg.Clients)
	for i := 0; i < r.cfg.Clients; i++ {
		r.slots = append(r.slots, newSlot(r, i, procs, r.cfg.Seed))
	}
	errs := make([]error, len(r.slots))
	var wg sync.WaitGroup
	for i, s := range r.slots {
		wg.Go(func() { errs[i] = s.start(workCtx, true) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// beginWork starts the clients' workloads, every client being ready, with
// the history's clock (and lockstorm.log's) restarted now: the plan and
// the time limit count from here, however long the clients took to start.
func (r *run) beginWork() {
	if !r.rec.Restart() {
		r.logf("the history's clock could not restart: records came before the clients began")
	}
	r.log.setZero(r.rec.Start())
	close(r.begin)
}

// waitTimeLimit waits for the time limit, an interrupt (res.Interrupted),
// a failed history write (res.Incomplete) or, with --until-invalid, the
// first violation, showing progress. It reports whether the time limit
// was reached.
func (r *run) waitTimeLimit(ctx context.Context, res *analysis.Result, tr *tracker, start time.Time) bool {
	timer := time.NewTimer(r.cfg.TimeLimit)
	defer timer.Stop()
	tick := time.NewTicker(progressInterval)
	defer tick.Stop()
	for {
		select {
		case <-timer.C:
			return true
		case <-ctx.Done():
			r.interrupt(ctx, res, start)
			return false
		case <-r.rec.Failed():
			// The history can no longer be stored: stop now, as on an
			// interrupt, and check what is in memory.
			res.Incomplete = "history write failed: " + r.rec.Err().Error()
			r.logf("stopping: %s", res.Incomplete)
			r.abort()
			return false
		case <-tick.C:
			r.tgt.catchUp()
			r.progress(tr, start, false)
			if r.cfg.StopAtViolation && tr.live.Total() > 0 {
				r.logf("stopping at the first violation (--until-invalid): %v", tr.live.Snapshot())
				return false
			}
		}
	}
}

// recoverAfterLateHeal gives a run whose final heal is still in flight at
// the time limit (a slow Docker restart) its recovery phase after that
// heal (waited for at most nemesisFinishTimeout), putting the nemesis's
// result back on nemDone for windDown.
func (r *run) recoverAfterLateHeal(ctx context.Context, res *analysis.Result, start time.Time, nemDone chan error) {
	select {
	case err := <-nemDone:
		nemDone <- err // healed in time: nothing to extend
		return
	default:
	}
	var err error
	select {
	case err = <-nemDone:
	case <-ctx.Done():
		r.interrupt(ctx, res, start)
		return
	case <-time.After(nemesisFinishTimeout):
		return // windDown cuts it short
	}
	nemDone <- err
	_, _, recovery := phases(r.cfg)
	r.logf("the final heal came after the time limit: the clients run %v more, the recovery phase", recovery)
	select {
	case <-time.After(recovery):
	case <-ctx.Done():
		r.interrupt(ctx, res, start)
	}
}

// windDown lets the rounds in flight finish within the grace period,
// waits for the nemesis to heal (at most nemesisFinishTimeout), closes
// the slots and returns the nemesis's error.
func (r *run) windDown(ctx context.Context, cancelWork context.CancelFunc, nemDone chan error) (nerr error) {
	finished := make(chan struct{})
	go func() { r.waitSlots(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(gracePeriod(r.cfg)):
		cancelWork()
		<-finished
	case <-ctx.Done():
		cancelWork()
		<-finished
	}
	select {
	case nerr = <-nemDone:
	case <-ctx.Done():
		cancelWork()
		nerr = <-nemDone
	case <-time.After(nemesisFinishTimeout):
		r.logf("nemesis did not finish within %v of the time limit: cutting it short", nemesisFinishTimeout)
		cancelWork()
		nerr = <-nemDone
	}
	cancelWork()
	for _, s := range r.slots {
		s.close()
	}
	return nerr
}

// progress logs new nemesis records (stamped with their own history
// times) and reports a snapshot.
func (r *run) progress(tr *tracker, start time.Time, done bool) {
	for _, op := range r.rec.Since(tr.seen) {
		if op.IsNemesis() && op.Type != history.Invoke {
			r.log.logAt(op.Time, "nemesis %s %s %s: %s %s", op.F, op.Type, op.Fault, op.Detail, op.Error)
		}
	}
	p := tr.snapshot(r, start)
	p.Done = done
	if r.cfg.OnProgress != nil {
		r.cfg.OnProgress(p)
	}
}

func (r *run) waitSlots() {
	for _, s := range r.slots {
		s.wait()
	}
}

// recoverPanic turns a client goroutine's panic into a run error: the run
// stops (and heals) instead of crashing with faults in place.
func (r *run) recoverPanic(who string) {
	if p := recover(); p != nil {
		r.panicMu.Lock()
		r.panics = append(r.panics, fmt.Sprintf("%s: %v\n%s", who, p, debug.Stack()))
		r.panicMu.Unlock()
		r.abort()
	}
}

// crashClient is the nemesis hook for client-crash.
func (r *run) crashClient(ctx context.Context, client string) error {
	s, err := r.slot(client)
	if err != nil {
		return err
	}
	return s.crash(ctx)
}
