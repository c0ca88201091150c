package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/procclient"
	"github.com/lockstorm/lockstorm/protocol"
)

// startProcess starts the slot's client process, reaching the nodes
// through the slot's proxies; its lock is the procclient.Client speaking
// to it. A broken process is replaced (watchBroken).
func (s *slot) startProcess(ctx context.Context) (lockimpl.Locker, error) {
	c, cfg := s.run.cluster, s.run.cfg
	addrs := make([]string, 0, len(c.Nodes()))
	for _, n := range c.Nodes() {
		a, err := c.Addr(s.name, n)
		if err != nil {
			return nil, err
		}
		addrs = append(addrs, a)
	}
	env := []string{
		protocol.EnvNodes + "=" + strings.Join(addrs, ","),
		protocol.EnvNodeNames + "=" + strings.Join(c.Nodes(), ","),
		protocol.EnvSlot + "=" + strconv.Itoa(s.index),
		protocol.EnvTTL + "=" + millis(cfg.TTL),
	}
	if cfg.RenewEvery > 0 {
		env = append(env, protocol.EnvRenew+"="+millis(cfg.RenewEvery))
	}
	if cfg.NodeTimeout > 0 {
		env = append(env, protocol.EnvNodeTimeout+"="+millis(cfg.NodeTimeout))
	}
	pc, err := procclient.Start(ctx, procclient.Config{Name: s.name, Argv: s.run.clientArgv, Env: env, Dir: cfg.ClientDir, TTL: cfg.TTL, Clock: s.clock,
		Log: func(line string) { s.run.logf("%s", line) }})
	if err != nil {
		return nil, fmt.Errorf("%w: client %s: %v", config.ErrConfig, s.name, err)
	}
	s.mu.Lock()
	s.proc = pc
	s.mu.Unlock()
	s.run.logf("client %s: process %d is pid %d", s.name, s.worker.Process(), pc.Pid())
	go s.watchBroken(pc)
	return pc, nil
}

// warmProcess waits until the slot's process client, if any, serves: it
// asks it (outside the history) to release a token nobody holds, which
// any lock answers not held after one round trip, so that its first
// acquire measures the lock, not the interpreter's start.
func (s *slot) warmProcess(ctx context.Context) error {
	pc := s.process()
	if pc == nil {
		return nil
	}
	// A key of its own in the same hash slot: a release that does not
	// check the token must not delete the real lock's key.
	key := s.run.cfg.Workloads.Key + ":lockstorm-warm-up"
	l := lockimpl.NewLease(key, "lockstorm-warm-up-"+s.name, 0, s.run.cfg.TTL, time.Now())
	var err error
	// An unknown outcome (a timeout) is asked again.
	for try := 0; try < warmUpTries; try++ {
		if err = pc.Release(ctx, l); err == nil || errors.Is(err, lockimpl.ErrNotHeld) {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(s.run.cfg.TTL / 10)
	}
	return fmt.Errorf("%w: client %s (pid %d) did not serve its warm-up request (a release of a token nobody holds) in %d tries: %v", config.ErrConfig, s.name, pc.Pid(), warmUpTries, err)
}

// warmUpTries is how often the warm-up release is asked.
const warmUpTries = 3

// millis is d in whole milliseconds, at least 1.
func millis(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) }

// watchBroken replaces the slot's process pc when it breaks (its op in
// flight already ended info), as after a crash, unless the harness
// retired it.
func (s *slot) watchBroken(pc *procclient.Client) {
	select {
	case <-pc.Broken():
	case <-s.run.workCtx.Done():
		return
	}
	s.mu.Lock()
	current := s.proc == pc
	s.mu.Unlock()
	if !current {
		return
	}
	select {
	case <-s.run.stopWork: // the run is ending: its round ends on its own
		return
	default:
	}
	s.run.logf("client %s pid %d is broken (%v): a new process takes the slot", s.name, pc.Pid(), pc.Err())
	if err := s.crash(s.run.workCtx); err != nil && s.run.workCtx.Err() == nil {
		s.run.logf("client %s: replacing its broken process: %v", s.name, err)
	}
}

// retire kills the slot's process client, if any (SIGKILL of its process
// group): the first step of a client crash.
func (s *slot) retire() {
	s.mu.Lock()
	pc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if pc == nil {
		return
	}
	select {
	case <-pc.Broken(): // already gone (exited, or killed for not answering)
		_ = pc.Kill()
		return
	default:
	}
	if err := pc.Kill(); err != nil {
		s.run.logf("client %s: kill pid %d: %v", s.name, pc.Pid(), err)
		return
	}
	s.run.logf("client %s: pid %d killed (SIGKILL)", s.name, pc.Pid())
}

// process is the slot's current process client (nil for a Go client).
func (s *slot) process() *procclient.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// signalStop sends SIGSTOP to the slot's process at once (see
// procclient.Client.SignalStop); false when the slot has no process or
// the signal failed.
func (s *slot) signalStop() bool {
	pc := s.process()
	return pc != nil && pc.SignalStop() == nil
}

// pause stops the slot's process (SIGSTOP) and every timeout of it.
func (s *slot) pause() error {
	s.clock.Pause()
	pc := s.process()
	if pc == nil {
		return nil
	}
	if err := pc.Pause(); err != nil {
		return err
	}
	s.run.logf("client %s: pid %d stopped (SIGSTOP)", s.name, pc.Pid())
	return nil
}

// resume continues the slot's process (SIGCONT) and its timeouts.
func (s *slot) resume() error {
	defer s.clock.Resume()
	pc := s.process()
	if pc == nil {
		return nil
	}
	if err := pc.Resume(); err != nil {
		return err
	}
	s.run.logf("client %s: pid %d continued (SIGCONT)", s.name, pc.Pid())
	return nil
}

// pauseClient is the nemesis hook of a real pause (PauseProcess): the
// process stops, then its links freeze, so that its workload (run by the
// harness on its behalf) sends nothing meanwhile.
func (r *run) pauseClient(ctx context.Context, client string) error {
	s, err := r.slot(client)
	if err != nil {
		return err
	}
	if err := s.pause(); err != nil {
		return err
	}
	return r.cluster.Freeze(ctx, client)
}

// resumeClient ends a real pause: the links thaw, the process continues.
func (r *run) resumeClient(ctx context.Context, client string) error {
	s, err := r.slot(client)
	if err != nil {
		return err
	}
	terr := r.cluster.Thaw(ctx, client)
	if err := s.resume(); err != nil {
		return err
	}
	return terr
}

// slot is the client slot named client.
func (r *run) slot(client string) (*slot, error) {
	if i := slices.IndexFunc(r.slots, func(s *slot) bool { return s.name == client }); i >= 0 {
		return r.slots[i], nil
	}
	return nil, fmt.Errorf("harness: no client %q", client)
}

// nemesisEnv is what the faults act on: the cluster and the client hooks.
func (r *run) nemesisEnv() nemesis.Env {
	env := nemesis.Env{Cluster: r.cluster, CrashClient: r.crashClient, Key: r.cfg.Workloads.Key}
	if r.cfg.PauseModel == config.PauseProcess {
		env.PauseClient, env.ResumeClient = r.pauseClient, r.resumeClient
	}
	return env
}
