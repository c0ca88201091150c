package nemesis

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/lockstorm/lockstorm/history"
)

// checkNemesisRecords asserts the nemesis is a well-formed Jepsen process:
// each invoke is followed by its completion (same F and Fault) before the
// next invoke. It returns the completed ops.
func checkNemesisRecords(t *testing.T, h history.History) []history.Op {
	t.Helper()
	var open *history.Op
	var done []history.Op
	for _, op := range h {
		if !op.IsNemesis() {
			continue
		}
		switch {
		case op.Type == history.Invoke && open == nil:
			o := op
			open = &o
		case op.Type != history.Invoke && open != nil && op.F == open.F && op.Fault == open.Fault:
			done = append(done, op)
			open = nil
		default:
			t.Fatalf("ill-formed nemesis record %+v (open: %+v)", op, open)
		}
	}
	if open != nil {
		t.Fatalf("nemesis invoke without completion: %+v", *open)
	}
	return done
}

func count(ops []history.Op, f string) int {
	n := 0
	for _, op := range ops {
		if op.F == f {
			n++
		}
	}
	return n
}

// checkHealed asserts no link carries a fault and every client reaches
// every node.
func checkHealed(t *testing.T, c *local.Cluster) {
	t.Helper()
	if got := c.Proxies().Faulty(); len(got) != 0 {
		t.Errorf("faulty links left behind: %v", got)
	}
	for _, cl := range c.Clients() {
		for _, n := range c.Nodes() {
			if !reachable(t, c, cl, n) {
				t.Errorf("%s cannot reach %s after the run", cl, n)
			}
		}
	}
}

// Cancelling the runner's context mid-fault stops every active fault,
// heals the cluster, and leaves a well-formed history.
func TestRunnerCancelMidFaultHeals(t *testing.T) {
	c := startCluster(t, 3, "c1", "c2")
	rec := history.NewRecorder(nil)
	defer rec.Close()
	run := &Runner{Set: New(Env{Cluster: c}), Cluster: c, Rec: rec}
	p := Scripted(0,
		Step{At: 0, Duration: time.Minute, Fault: Fault{Kind: KindPartition, Shape: ShapeOneNode, Nodes: []string{"n2"}}},
		Step{At: 0, Duration: time.Minute, Fault: Fault{Kind: KindLatency, Nodes: []string{"n1"}, Clients: []string{"c1"}, Delay: 500 * time.Millisecond}},
		Step{At: 0, Duration: time.Minute, Fault: Fault{Kind: KindServerPause, Nodes: []string{"n3"}}},
		Step{At: 0, Duration: time.Minute, Fault: Fault{Kind: KindClientPause, Clients: []string{"c2"}}},
	)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- run.Run(ctx, p) }()
	time.Sleep(500 * time.Millisecond)
	if got := c.Proxies().Faulty(); len(got) == 0 {
		t.Fatal("no faulty links during the faults")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	checkHealed(t, c)
	ops := checkNemesisRecords(t, rec.History())
	if count(ops, history.FStart) != 4 || count(ops, history.FStop) != 4 || count(ops, FHeal) != 1 {
		t.Errorf("nemesis ops %+v: want 4 starts, 4 stops, 1 heal", ops)
	}
	for _, op := range ops {
		if op.Type != history.OK {
			t.Errorf("nemesis op not ok: %+v", op)
		}
	}
}

// A short random plan over every kind a local cluster runs (all but
// those of a Redis Cluster) runs to completion, records one start and
// one stop per step, and heals. The fault phase is 100 ms more than the
// shortest that holds one fault of every kind (MinFaultPhase).
func TestRunnerRandomPlan(t *testing.T) {
	kinds := Supported(NeedLinks, NeedProcess, NeedAdmin, NeedOwnData, NeedReplica)
	// n1 has a replica so that failover is among the kinds that can run.
	c := clustertest.StartReplicated(t, local.Config{Nodes: 3, Clients: []string{"c1", "c2"}, ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteManual}})
	var crashed []string
	env := Env{Cluster: c, CrashClient: func(ctx context.Context, cl string) error {
		crashed = append(crashed, cl)
		return nil
	}}
	set := New(env)
	o := Options{
		Kinds:       kinds,
		Topology:    env.Topology(200 * time.Millisecond),
		WarmUp:      100 * time.Millisecond,
		MinInterval: 50 * time.Millisecond, MaxInterval: 150 * time.Millisecond,
	}
	least, err := MinFaultPhase(set, o, kinds...)
	clustertest.Must(t, err)
	o.Faults = least + 100*time.Millisecond
	p, err := Schedule(NewRand(11), set, o)
	clustertest.Must(t, err)
	for _, k := range kinds {
		if !p.Uses(k) {
			t.Errorf("plan has no %s fault", k)
		}
	}
	rec := history.NewRecorder(nil)
	defer rec.Close()
	var logged []string
	run := &Runner{Set: set, Cluster: c, Rec: rec, Logf: func(f string, a ...any) { logged = append(logged, f) }}
	clustertest.Must(t, run.Run(clustertest.Context(t, 20*time.Second), p))
	ops := checkNemesisRecords(t, rec.History())
	if count(ops, history.FStart) != len(p.Steps) || count(ops, history.FStop) != len(p.Steps) || count(ops, FHeal) != 1 {
		t.Errorf("%d steps but ops %+v", len(p.Steps), ops)
	}
	for _, op := range ops {
		if op.Type != history.OK {
			t.Errorf("nemesis op not ok: %+v", op)
		}
	}
	if heal := ops[len(ops)-1]; heal.F != FHeal || time.Duration(heal.Time) < p.HealAt {
		t.Errorf("last nemesis op %+v, want a heal after %v", heal, p.HealAt)
	}
	t.Logf("%d steps, client crashes %v", len(p.Steps), crashed)
	checkHealed(t, c)
}

// boom is a nemesis whose Start panics.
type boom struct{}

func (boom) Kind() string                       { return "boom" }
func (boom) Draw(*rand.Rand, Topology) Fault    { return Fault{Kind: "boom"} }
func (boom) Start(context.Context, Fault) error { panic("boom") }
func (boom) Stop(context.Context, Fault) error  { return nil }

// A panicking nemesis is reported as an error after the runner healed the
// cluster, and its op is completed as info.
func TestRunnerPanicHeals(t *testing.T) {
	c := startCluster(t, 3, "c1")
	set := New(Env{Cluster: c})
	set["boom"] = boom{}
	rec := history.NewRecorder(nil)
	defer rec.Close()
	run := &Runner{Set: set, Cluster: c, Rec: rec}
	p := Scripted(0,
		Step{At: 0, Duration: time.Minute, Fault: Fault{Kind: KindPartition, Nodes: []string{"n1"}}},
		Step{At: 100 * time.Millisecond, Fault: Fault{Kind: "boom"}},
	)
	err := run.Run(clustertest.Context(t, 20*time.Second), p)
	if err == nil || !strings.Contains(err.Error(), "panic: boom") {
		t.Fatalf("Run = %v, want the panic", err)
	}
	checkHealed(t, c)
	ops := checkNemesisRecords(t, rec.History())
	var sawInfo bool
	for _, op := range ops {
		sawInfo = sawInfo || (op.Fault == "boom" && op.Type == history.Info)
	}
	if !sawInfo || count(ops, FHeal) != 1 {
		t.Errorf("ops %+v: want boom's start as info and one heal", ops)
	}
}

// The time Resolve waits for its target delays the fault's stop as well,
// so the fault keeps its planned length; the records name the resolved
// client and the aim.
func TestRunnerResolveKeepsDuration(t *testing.T) {
	c := startCluster(t, 1, "c1", "c2")
	set := New(Env{Cluster: c})
	p := Plan{Steps: []Step{{At: 50 * time.Millisecond, Duration: 400 * time.Millisecond,
		Fault: Fault{Kind: KindClientPause, Clients: []string{TargetHolder}, Target: AimHolder}}},
		HealAt: time.Second, End: time.Second}
	rec := history.NewRecorder(nil)
	defer rec.Close()
	run := &Runner{Set: set, Cluster: c, Rec: rec, Resolve: func(f Fault) Fault {
		time.Sleep(300 * time.Millisecond) // waiting for a holder
		f.Clients = []string{"c2"}
		return f
	}}
	clustertest.Must(t, run.Run(clustertest.Context(t, 20*time.Second), p))
	var startAt, stopAt time.Duration
	for _, op := range rec.History() {
		if op.Type != history.OK {
			continue
		}
		switch op.F {
		case history.FStart:
			startAt = time.Duration(op.Time)
			if len(op.Clients) != 1 || op.Clients[0] != "c2" || !strings.Contains(op.Detail, "target=holder") {
				t.Errorf("start record %+v, want clients [c2] and target=holder", op)
			}
		case history.FStop:
			stopAt = time.Duration(op.Time)
		}
	}
	if got := stopAt - startAt; got < 350*time.Millisecond {
		t.Errorf("fault lasted %v after its delayed start, want its planned 400ms", got)
	}
}

// slowStart is a nemesis whose Start takes 400 ms and fails if its
// context ends meanwhile.
type slowStart struct{ started chan struct{} }

func (slowStart) Kind() string                    { return "slow" }
func (slowStart) Draw(*rand.Rand, Topology) Fault { return Fault{Kind: "slow"} }
func (s slowStart) Start(ctx context.Context, _ Fault) error {
	close(s.started)
	select {
	case <-time.After(400 * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
func (slowStart) Stop(context.Context, Fault) error { return nil }

// Finish, closed while a fault is starting, lets that start complete (ok,
// not info), starts nothing after it, and heals.
func TestRunnerFinishLetsTheOpInFlightComplete(t *testing.T) {
	c := startCluster(t, 1, "c1")
	set := New(Env{Cluster: c})
	slow := slowStart{started: make(chan struct{})}
	set["slow"] = slow
	rec := history.NewRecorder(nil)
	defer rec.Close()
	finish := make(chan struct{})
	run := &Runner{Set: set, Cluster: c, Rec: rec, Finish: finish}
	p := Scripted(0,
		Step{At: 0, Duration: 2 * time.Second, Fault: Fault{Kind: "slow"}},
		Step{At: time.Second, Duration: time.Second, Fault: Fault{Kind: KindPartition, Nodes: []string{"n1"}}},
	)
	go func() { <-slow.started; close(finish) }()
	t0 := time.Now()
	if err := run.Run(clustertest.Context(t, 20*time.Second), p); err != nil {
		t.Fatalf("Run = %v, want nil after Finish", err)
	}
	if d := time.Since(t0); d > 900*time.Millisecond {
		t.Errorf("Run took %v after Finish, want it to return once the start in flight completed", d)
	}
	ops := checkNemesisRecords(t, rec.History())
	for _, op := range ops {
		if op.Type == history.Info {
			t.Errorf("op %+v is info: the start in flight was cut short", op)
		}
		if op.Fault == KindPartition {
			t.Errorf("op %+v: a fault started after Finish", op)
		}
	}
	if count(ops, FHeal) != 1 {
		t.Errorf("ops %+v: want one heal", ops)
	}
	checkHealed(t, c)
}
