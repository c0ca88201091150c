package power

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// fakeRun is a test double of harness.Run: seed s of a broken scenario is
// invalid with a fatal anomaly complete at s seconds, odd seeds of a
// correct one valid and even ones unknown. It tracks how many run at once.
type fakeRun struct {
	mu            sync.Mutex
	running, peak int
	calls         atomic.Int32
}

func (f *fakeRun) run(ctx context.Context, cfg config.Config) (*analysis.Result, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.running++
	f.peak = max(f.peak, f.running)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.running--; f.mu.Unlock() }()
	select {
	case <-time.After(20 * time.Millisecond):
	case <-ctx.Done():
		return &analysis.Result{Config: cfg, Interrupted: true}, nil
	}
	res := &analysis.Result{Config: cfg, Dir: fmt.Sprintf("%s/%s/seed%d", cfg.Store, cfg.Name, cfg.Seed)}
	switch {
	case cfg.Lock == "unsafe-del":
		res.History = history.Slice(historytest.At(0, cfg.Seed*1000))
		res.Verdict = checker.Result{Valid: checker.Invalid, Anomalies: []checker.Anomaly{{Kind: "lost-update", Fatal: true, Ops: []int64{0, 1}}}}
	case cfg.Seed%2 == 1:
		res.Verdict.Valid = checker.Valid
	}
	return res, nil
}

// flags are the campaign flags of a test: seeds 1..seeds, parallel runs
// at once, into store.
func flags(seeds, parallel int, store string) config.Campaign {
	f := config.Campaign{Seeds: seeds, Parallel: parallel}
	f.Run.Store, f.Run.TimeLimit = store, config.DefaultTimeLimit
	return f
}

// lines counts the progress lines written to it and calls each with the
// count.
type lines struct {
	n    int
	each func(n int)
}

func (l *lines) Write(b []byte) (int, error) {
	for range strings.Count(string(b), "\n") {
		l.n++
		if l.each != nil {
			l.each(l.n)
		}
	}
	return len(b), nil
}

func TestRunAggregatesInTableOrderAndBoundsParallelism(t *testing.T) {
	sc, _ := Select([]string{"unsafe-del", "fenced-fencing"})
	for _, p := range []int{1, 3} {
		f := &fakeRun{}
		progress := &lines{}
		rep, _, err := Run(t.Context(), Spec{Scenarios: sc}, flags(5, p, t.TempDir()), Options{Runner: f.run, Progress: progress})
		if err != nil {
			t.Fatal(err)
		}
		if f.peak > p || (p > 1 && f.peak < 2) {
			t.Errorf("parallel %d: %d runs at once", p, f.peak)
		}
		if progress.n != 10 {
			t.Errorf("parallel %d: %d progress lines, want 10", p, progress.n)
		}
		b, c := rep.Rows[0], rep.Rows[1]
		if b.Name != "unsafe-del" || b.Invalid != 5 || b.Median != 3*time.Second || b.P90 != 5*time.Second || b.Mark != Pass {
			t.Errorf("parallel %d: broken row %+v", p, b)
		}
		for i, o := range b.Outcomes {
			if o.Seed != int64(i+1) {
				t.Errorf("parallel %d: outcome %d has seed %d", p, i, o.Seed)
			}
		}
		if c.Valid != 3 || c.Unknown != 2 || c.Invalid != 0 || c.Mark != Pass {
			t.Errorf("parallel %d: correct row %+v", p, c)
		}
		if rep.Interrupted {
			t.Error("not interrupted, but marked so")
		}
	}
}

func TestRunInterruptedKeepsFinishedRuns(t *testing.T) {
	sc, _ := Select([]string{"unsafe-del"})
	f := &fakeRun{}
	ctx, cancel := context.WithCancel(t.Context())
	progress := &lines{each: func(n int) {
		if n == 3 {
			cancel()
		}
	}}
	rep, _, err := Run(ctx, Spec{Scenarios: sc}, flags(20, 1, t.TempDir()), Options{Runner: f.run, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Rows[0].Runs != 3 || f.calls.Load() > 4 {
		t.Errorf("interrupted after 3 runs: interrupted %v, %d runs kept, %d started", rep.Interrupted, rep.Rows[0].Runs, f.calls.Load())
	}
}

func TestRunStopsOnRefusedConfig(t *testing.T) {
	sc, _ := Select([]string{"unsafe-del", "redislock"})
	var calls atomic.Int32
	_, _, err := Run(t.Context(), Spec{Scenarios: sc}, flags(10, 1, t.TempDir()), Options{Runner: func(ctx context.Context, cfg config.Config) (*analysis.Result, error) {
		calls.Add(1)
		return nil, fmt.Errorf("%w: --time-limit too short for client-pause", config.ErrConfig)
	}})
	if !errors.Is(err, config.ErrConfig) || calls.Load() > 2 {
		t.Errorf("Run = %v after %d runs; want ErrConfig after the first", err, calls.Load())
	}
}

func TestRunErrorIsAnErrorOutcome(t *testing.T) {
	sc, _ := Select([]string{"unsafe-del"})
	rep, _, err := Run(t.Context(), Spec{Scenarios: sc}, flags(2, 1, t.TempDir()), Options{Runner: func(ctx context.Context, cfg config.Config) (*analysis.Result, error) {
		return &analysis.Result{Dir: "x"}, errors.New("harness: start cluster: no redis-server\nmore")
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Rows[0]
	if r.Errors != 2 || r.Invalid != 0 || r.Unknown != 0 || r.Mark != Miss || r.Outcomes[0].Error != "harness: start cluster: no redis-server" {
		t.Errorf("row %+v", r)
	}
}
