package nemesis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/ctxtime"
)

// FHeal is the F of the nemesis record pair around a final heal of
// everything (Runner.Heal): invoke, then ok or info.
const FHeal = "heal"

// DefaultCleanupTimeout bounds the stops and the heal that run after the
// Runner's context is cancelled.
const DefaultCleanupTimeout = 15 * time.Second

// Runner executes a Plan against a cluster, recording every fault's start
// and stop as a nemesis op pair in the history: invoke (F=start or stop,
// Fault=kind, Detail=Fault.String(), Nodes=targets) followed by ok, or by
// info with the error when the outcome is unknown. The nemesis is one
// Jepsen process: its ops never interleave, even when Heal is called from
// another goroutine.
//
// Every exit path heals: the end of the plan, a cancelled context, and a
// panic in a nemesis all stop the active faults and call Cluster.HealAll.
type Runner struct {
	// Set holds the nemeses by kind (see New).
	Set Set
	// Cluster is healed with HealAll at the end.
	Cluster cluster.Cluster
	// Rec is the run's history; its clock is the plan's clock.
	Rec *history.Recorder
	// Logf, if set, reports faults that failed to start or stop (they are
	// also info records in the history).
	Logf func(format string, args ...any)
	// CleanupTimeout bounds cleanup after cancellation (default
	// DefaultCleanupTimeout).
	CleanupTimeout time.Duration
	// Resolve, if set, rewrites a fault just before it starts; the stop
	// and the records use the rewritten fault. The harness uses it to turn
	// the placeholders TargetHolder and TargetWaiter into the client that
	// holds, or waits for, the lock at that moment. Resolve may wait for
	// that moment: the time it takes delays the fault's stop as well (not
	// past the final heal), so the fault keeps its planned length.
	Resolve func(Fault) Fault
	// Finish, if set, is closed when the run ends on time (its time limit,
	// not an interrupt). The runner then starts no new op, lets the op in
	// flight complete under its own context (a container pause that takes
	// a second finishes instead of being cut short and recorded as info),
	// heals everything within CleanupTimeout, and Run returns nil.
	// Cancelling Run's context still cuts everything short, as for Ctrl-C.
	Finish <-chan struct{}

	opMu   sync.Mutex            // one nemesis op at a time
	mu     sync.Mutex            // guards active and lag
	active map[int]activeFt      // step index -> fault started and not stopped
	lag    map[int]time.Duration // step index -> time its Resolve took
}

type activeFt struct {
	nem Nemesis
	f   Fault
}

// event is a step's start or stop, due at a time since the run started.
type event struct {
	at    time.Duration
	step  int
	start bool
}

// events orders the plan's starts and stops by time; a stop comes before
// a start due at the same time.
func events(p Plan) []event {
	evs := make([]event, 0, 2*len(p.Steps))
	for i, s := range p.Steps {
		evs = append(evs, event{s.At, i, true}, event{s.end(), i, false})
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if a.start != b.start {
			if a.start {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.step, b.step)
	})
	return evs
}

// Run executes the plan: each step's fault starts at its time and stops
// after its duration, and at p.HealAt everything is healed (an FHeal op
// pair). Run returns after that heal, not at p.End: the recovery phase
// belongs to the caller. Times are measured from Rec.Start(). Ops run one
// at a time, so a start that takes time (a crash's restart delay) delays
// the events due meanwhile; their records carry the real times.
//
// A fault that fails to start or stop is an info record, not an error of
// Run. Run returns ctx's error if cancelled (after healing), a panic of a
// nemesis as an error (after healing), and any error of the final heal.
func (r *Runner) Run(ctx context.Context, p Plan) (err error) {
	if err := p.Validate(r.Set); err != nil {
		return err
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("nemesis: panic: %v\n%s", v, debug.Stack())
		}
		if err != nil || ctx.Err() != nil {
			hctx, cancel := r.cleanupContext(ctx)
			defer cancel()
			err = errors.Join(err, ctx.Err(), r.Heal(hctx))
		}
	}()
	// waitCtx ends the waits between events: at ctx's end, or at Finish.
	waitCtx, cancelWait := context.WithCancel(ctx)
	defer cancelWait()
	if r.Finish != nil {
		go func() {
			select {
			case <-r.Finish:
				cancelWait()
			case <-waitCtx.Done():
			}
		}()
	}
	finished := func() error {
		hctx, cancel := r.cleanupContext(ctx)
		defer cancel()
		return r.Heal(hctx)
	}
	origin := r.Rec.Start()
	for _, ev := range events(p) {
		at := ev.at
		if !ev.start {
			r.mu.Lock()
			at = min(at+r.lag[ev.step], p.HealAt)
			r.mu.Unlock()
		}
		if !sleepUntil(waitCtx, origin.Add(at)) {
			if ctx.Err() == nil {
				return finished()
			}
			return nil // the deferred cleanup heals and reports ctx.Err()
		}
		s := p.Steps[ev.step]
		if ev.start {
			r.start(ctx, ev.step, s.Fault)
		} else {
			r.stop(ctx, ev.step)
		}
	}
	if !sleepUntil(waitCtx, origin.Add(p.HealAt)) {
		if ctx.Err() == nil {
			return finished()
		}
		return nil
	}
	return r.Heal(ctx)
}

func (r *Runner) cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := r.CleanupTimeout
	if d <= 0 {
		d = DefaultCleanupTimeout
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// sleepUntil waits until t; false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool { return ctxtime.Until(ctx, t) }

// start starts step i's fault and marks it active (even when the start
// failed, so that its stop still cleans up whatever was applied).
func (r *Runner) start(ctx context.Context, i int, f Fault) {
	nem, err := r.Set.Get(f.Kind)
	if err != nil {
		return // Validate ruled this out
	}
	var lag time.Duration
	if r.Resolve != nil {
		t0 := time.Now()
		f = r.Resolve(f)
		lag = time.Since(t0)
	}
	r.mu.Lock()
	if r.active == nil {
		r.active, r.lag = map[int]activeFt{}, map[int]time.Duration{}
	}
	r.lag[i] = lag
	r.active[i] = activeFt{nem, f}
	r.mu.Unlock()
	var outcome func() string
	if o, ok := nem.(Outcomer); ok {
		outcome = func() string { return o.Outcome(f) }
	}
	r.op(history.FStart, f, func() error { return nem.Start(ctx, f) }, outcome)
}

// Outcomer is offered by nemeses that learn how a fault was applied only
// while applying it (a failover's promotion and its duration): the text is
// added to the Detail of the start's completion record.
type Outcomer interface {
	Outcome(Fault) string
}

// stop stops step i's fault if it is active.
func (r *Runner) stop(ctx context.Context, i int) {
	r.mu.Lock()
	a, ok := r.active[i]
	delete(r.active, i)
	r.mu.Unlock()
	if ok {
		r.op(history.FStop, a.f, func() error { return a.nem.Stop(ctx, a.f) }, nil)
	}
}

// op records an invoke, runs do, and records ok or info. A non-nil outcome
// adds how the fault was applied to the completion's Detail.
func (r *Runner) op(fn string, f Fault, do func() error, outcome func() string) error {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	rec := history.Op{
		Type: history.Invoke, Process: history.NemesisProcess, F: fn,
		Fault: f.Kind, Detail: f.String(), Nodes: f.Nodes, Clients: f.Clients,
	}
	r.Rec.Record(rec)
	defer func() {
		if v := recover(); v != nil {
			rec.Type, rec.Error = history.Info, fmt.Sprintf("panic: %v", v)
			r.Rec.Record(rec) // keep the pair complete, then let Run heal
			panic(v)
		}
	}()
	err := do()
	rec.Type = history.OK
	if outcome != nil && err == nil {
		if out := outcome(); out != "" {
			rec.Detail += " (" + out + ")"
		}
	}
	if err != nil {
		rec.Type, rec.Error = history.Info, err.Error()
		if r.Logf != nil {
			r.Logf("nemesis: %s %s: %v", fn, f, err)
		}
	}
	r.Rec.Record(rec)
	return err
}

// Heal stops every active fault (latest first, each a recorded stop), then
// heals the whole cluster with Cluster.HealAll, recorded as an FHeal op
// pair with Fault "all". It is safe to call at any time, from any goroutine, and more than
// once.
func (r *Runner) Heal(ctx context.Context) error {
	r.mu.Lock()
	idx := make([]int, 0, len(r.active))
	for i := range r.active {
		idx = append(idx, i)
	}
	r.mu.Unlock()
	slices.Sort(idx)
	slices.Reverse(idx)
	for _, i := range idx {
		r.stop(ctx, i)
	}
	return r.op(FHeal, Fault{Kind: "all"}, func() error {
		return r.Cluster.HealAll(ctx)
	}, nil)
}
