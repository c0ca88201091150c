package lockimpl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// errQueued: a command's deadline passed while it still waited in a
// pipe's queue, so it was never sent (notSent reports true).
var errQueued = errors.New("lockimpl: command not sent (deadline passed in queue)")

// pipe batches the commands that concurrent callers send to one node into
// pipelines: one write and one read for many commands, which saves
// syscalls on both sides when many workers share a node. At most one
// pipeline per node is in flight; commands arriving meanwhile form the
// next batch. A caller waits for its own command only until its own
// deadline; a command whose deadline passed before it was sent is
// dropped and reported as never sent (errQueued), which keeps timeouts
// under a partition honest: queued means certainly not applied.
//
// No goroutine lives while the pipe is idle: the caller that finds no
// pipeline in flight runs the batch itself, and hands on to a new
// goroutine only if more commands queued up meanwhile.
type pipe struct {
	c redis.UniversalClient

	mu       sync.Mutex
	queue    []*pipeReq
	inflight bool
}

// pipeReq is one queued command.
type pipeReq struct {
	ctx   context.Context
	cmd   redis.Cmder
	state atomic.Int32 // reqQueued, reqSent or reqAbandoned
	done  chan struct{}
}

const (
	reqQueued int32 = iota
	reqSent
	reqAbandoned
)

func newPipe(c redis.UniversalClient) *pipe { return &pipe{c: c} }

// do sends cmd in the next pipeline and waits for its reply or ctx. The
// caller may read cmd only when do returns a nil error or cmd's own
// error (not a context error): otherwise the pipeline may still write it.
func (p *pipe) do(ctx context.Context, cmd redis.Cmder) error {
	r := &pipeReq{ctx: ctx, cmd: cmd, done: make(chan struct{})}
	p.mu.Lock()
	p.queue = append(p.queue, r)
	lead := !p.inflight
	p.inflight = true
	p.mu.Unlock()
	if lead {
		p.run()
	}
	select {
	case <-r.done:
		return cmd.Err()
	case <-ctx.Done():
		if r.state.CompareAndSwap(reqQueued, reqAbandoned) {
			return fmt.Errorf("%w: %w", errQueued, ctx.Err())
		}
		return ctx.Err() // sent: outcome unknown
	}
}

// run sends one batch, then passes the pipe on if more commands queued.
func (p *pipe) run() {
	p.mu.Lock()
	batch := p.queue
	p.queue = nil
	p.mu.Unlock()
	p.exec(batch)
	p.mu.Lock()
	more := len(p.queue) > 0
	if !more {
		p.inflight = false
	}
	p.mu.Unlock()
	if more {
		go p.run()
	}
}

// exec sends the live commands of a batch as one pipeline, under the
// latest of their deadlines.
func (p *pipe) exec(batch []*pipeReq) {
	live := batch[:0]
	var deadline time.Time
	for _, r := range batch {
		if r.ctx.Err() == nil && r.state.CompareAndSwap(reqQueued, reqSent) {
			live = append(live, r)
			if d, ok := r.ctx.Deadline(); !ok {
				deadline = time.Now().Add(time.Minute)
			} else if d.After(deadline) {
				deadline = d
			}
		}
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if len(live) == 1 {
		_ = p.c.Process(ctx, live[0].cmd)
	} else {
		pl := p.c.Pipeline()
		for _, r := range live {
			_ = pl.Process(ctx, r.cmd)
		}
		_, _ = pl.Exec(ctx)
	}
	for _, r := range live {
		close(r.done)
	}
}

// evalInt runs a script that returns an integer through the pipe by
// EVALSHA, falling back to EVAL when the node does not know the script
// yet (NOSCRIPT: not executed, so resending is safe).
func (p *pipe) evalInt(ctx context.Context, s *redis.Script, src string, keys []string, args ...any) (int64, error) {
	build := func(verb, body string) *redis.Cmd {
		a := make([]any, 0, 3+len(keys)+len(args))
		a = append(a, verb, body, len(keys))
		for _, k := range keys {
			a = append(a, k)
		}
		a = append(a, args...)
		return redis.NewCmd(ctx, a...)
	}
	cmd := build("evalsha", s.Hash())
	err := p.do(ctx, cmd)
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		cmd = build("eval", src)
		err = p.do(ctx, cmd)
	}
	if err != nil {
		return 0, err
	}
	return cmd.Int64()
}

// setNX is SET key token NX PX ttl GET through the pipe (see setNX).
func (p *pipe) setNX(ctx context.Context, key, token string, ttl time.Duration) (bool, error) {
	cmd := redis.NewStatusCmd(ctx, "set", key, token, "px", ms(ttl), "nx", "get")
	err := p.do(ctx, cmd)
	switch {
	case errors.Is(err, redis.Nil):
		return true, nil
	case err != nil:
		return false, err
	}
	return cmd.Val() == token, nil
}
