package harness

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// A run cancelled at 1.5 s of 6 s (Ctrl-C) is incomplete: unknown, never
// valid; results.json says interrupted; test.json has no completion mark;
// analyze of it stays unknown.
func TestInterruptedRunIsUnknown(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(1500*time.Millisecond, func() { cancel(errors.New("SIGINT")) })
	res, err := Run(ctx, config.Config{Lock: "single", Clients: 2, TTL: 300 * time.Millisecond,
		TimeLimit: 6 * time.Second, Seed: 5, Store: t.TempDir()})
	clustertest.Must(t, err)
	if !res.Interrupted || res.Verdict.Valid != checker.Unknown {
		t.Fatalf("interrupted=%v verdict=%v %q, want interrupted and unknown", res.Interrupted, res.Verdict.Valid, res.Verdict.Error)
	}
	// The run's clock starts after its setup, which a loaded machine
	// stretches: the interrupt lands anywhere up to 1.5 s into the run.
	if !regexp.MustCompile(`^interrupted by SIGINT at [01]\.[0-9]s of 6s$`).MatchString(res.Incomplete) {
		t.Errorf("Incomplete = %q, want when and why", res.Incomplete)
	}
	var rf struct {
		Valid       string `json:"valid"`
		Interrupted bool   `json:"interrupted"`
	}
	if b := storetest.ReadJSON(t, res.Dir, store.ResultsFile, &rf); !rf.Interrupted {
		t.Errorf("results.json: %s, want interrupted true", b)
	}
	var tf analysis.TestFile
	if b := storetest.ReadJSON(t, res.Dir, store.TestFile, &tf); tf.Completed || tf.Incomplete == "" {
		t.Errorf("test.json: %s, want no completion mark and why", b)
	}
	got, _, err := analysis.Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid != checker.Unknown || !strings.Contains(got.Verdict.Error, "interrupted") {
		t.Errorf("analyze of the interrupted run: %v %q %v", got.Verdict.Valid, got.Verdict.Error, err)
	}
}

// analyze of a history of a run with faults whose final heal records were
// cut off (test.json's record count adjusted, so only the heal is
// missing) is unknown and names the missing heal; the checkers' results
// of what was recorded are still there.
func TestAnalyzeWithoutHealIsUnknown(t *testing.T) {
	plan := nemesis.Scripted(time.Second, nemesis.Step{At: 300 * time.Millisecond,
		Fault: nemesis.Fault{Kind: nemesis.KindLatency, Nodes: []string{"n1"}, Delay: 5 * time.Millisecond, Stream: cluster.Both}, Duration: 300 * time.Millisecond})
	res := storetest.Run(t, Run, config.Config{Lock: "single", Clients: 2, TTL: 300 * time.Millisecond,
		Plan: &plan, TimeLimit: plan.End, MinCoverage: -1, Seed: 7, Store: t.TempDir()})
	if res.Verdict.Valid != checker.Valid {
		t.Fatalf("baseline run: %v %q", res.Verdict.Valid, res.Verdict.Error)
	}
	got, _, err := analysis.Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid != checker.Valid {
		t.Fatalf("analyze of the whole run: %v %q %v", got.Verdict.Valid, got.Verdict.Error, err)
	}
	cut, h := -1, recordsOf(t, res)
	for i, op := range h {
		if op.IsNemesis() && op.F == nemesis.FHeal {
			cut = i
			break
		}
	}
	if cut < 0 {
		t.Fatal("no heal record in the run's history")
	}
	clustertest.Must(t, history.WriteFile(store.Path(res.Dir, store.HistoryFile), h[:cut]))
	var tf analysis.TestFile
	if b := storetest.ReadJSON(t, res.Dir, store.TestFile, &tf); !tf.Completed {
		t.Fatalf("test.json: %s, want the completion mark", b)
	}
	tf.Records = cut
	storetest.WriteJSON(t, res.Dir, store.TestFile, tf)
	got, _, err = analysis.Analyze(context.Background(), res.Dir)
	if err != nil || got.Verdict.Valid != checker.Unknown || !strings.Contains(got.Verdict.Error, "heal") {
		t.Fatalf("analyze without the heal: %v %q %v, want unknown naming the heal", got.Verdict.Valid, got.Verdict.Error, err)
	}
	if len(got.Verdict.Results) == 0 {
		t.Error("the checkers' results of what was recorded are gone")
	}
}
