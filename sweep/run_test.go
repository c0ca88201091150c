package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
)

// fakeRunner stands in for harness.Run: it records the configurations it
// was given and returns a made-up result (3 lost updates when the TTL is
// below 500ms) in a fresh folder of the store.
type fakeRunner struct {
	mu    sync.Mutex
	calls []config.Config
	// interruptAt, when > 0, makes that call (1-based) cancel and return
	// an interrupted result, as harness.Run does after Ctrl-C.
	interruptAt int
	cancel      context.CancelFunc
}

func (f *fakeRunner) run(ctx context.Context, cfg config.Config) (*analysis.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, cfg)
	n := len(f.calls)
	f.mu.Unlock()
	dir := filepath.Join(cfg.Store, cfg.Name, time.Now().Format("150405.000000000"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	res := &analysis.Result{Dir: dir, Config: cfg}
	if n == f.interruptAt {
		f.cancel()
		res.Interrupted = true
		return res, nil
	}
	res.Verdict = fakeVerdict(cfg.TTL < 500*time.Millisecond)
	return res, nil
}

func fakeVerdict(broken bool) checker.Result {
	lost, v := int64(0), checker.Valid
	if broken {
		lost, v = 3, checker.Invalid
	}
	var lv checker.LivenessDetails
	lv.Acquires.OK, lv.Acquires.Fail = 18, 2
	lv.SuccessRate = 0.9
	lv.Wait = checker.Percentiles{N: 18, P50: int64(20 * time.Millisecond), P99: int64(900 * time.Millisecond)}
	return checker.Result{Name: "standard", Valid: v, Results: []checker.Result{
		{Name: "resource", Valid: v, Details: checker.ResourceDetails{Counter: map[string]checker.CounterSummary{
			"lockstorm": {Acked: 20, Lost: lost}}}},
		{Name: "exclusion", Valid: v, Details: checker.ExclusionDetails{Overlaps: 1, WritesAfterValidity: map[string]int{"accepted": 4}}},
		{Name: "liveness", Valid: checker.Valid, Details: lv},
	}}
}

func smallSpec(t *testing.T, store string) Spec {
	t.Helper()
	r := DefaultRaw()
	r.Name, r.Store, r.TTL, r.Renew, r.Pause, r.TimeLimit = "t", store, "200ms,1s", "none", "0,300ms", "4s"
	r.Seeds, r.Fencing = 1, "off"
	s, err := r.Spec()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func cellFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, CellsDir, "*.json"))
	return m
}

// A rerun skips every finished cell; removing one cell's file reruns
// exactly that cell; --fresh reruns all.
func TestResumeSkipsFinishedCells(t *testing.T) {
	store := t.TempDir()
	spec := smallSpec(t, store)
	f := &fakeRunner{}
	res, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: f.run})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 4 || res.Ran != 4 || res.Skipped != 0 || !res.Complete() {
		t.Fatalf("first run: %d calls, ran %d, skipped %d", len(f.calls), res.Ran, res.Skipped)
	}
	if n := len(cellFiles(t, res.Dir)); n != 4 {
		t.Fatalf("%d cell files", n)
	}
	for _, name := range []string{TableMDFile, TableCSVFile, ViolationsFile, AvailabilityFile, IndexFile, SpecFile} {
		if st, err := os.Stat(filepath.Join(res.Dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}

	f2 := &fakeRunner{}
	res, err = Run(context.Background(), spec, config.Campaign{}, Options{Runner: f2.run})
	if err != nil {
		t.Fatal(err)
	}
	if len(f2.calls) != 0 || res.Skipped != 4 || len(res.Cells) != 4 {
		t.Fatalf("resume: %d calls, skipped %d, cells %d", len(f2.calls), res.Skipped, len(res.Cells))
	}
	if res.Cells[0].LostUpdates != 3 || res.Cells[3].LostUpdates != 0 {
		t.Fatalf("resumed metrics wrong: %+v", res.Cells)
	}

	// Remove the 1s / 300ms cell: only it runs again.
	gone := Cell{TTL: time.Second, Renew: "none", Pause: 300 * time.Millisecond, Run: 1}
	if err := os.Remove(filepath.Join(res.Dir, CellsDir, gone.ID()+".json")); err != nil {
		t.Fatal(err)
	}
	f3 := &fakeRunner{}
	if res, err = Run(context.Background(), spec, config.Campaign{}, Options{Runner: f3.run}); err != nil {
		t.Fatal(err)
	}
	if len(f3.calls) != 1 || f3.calls[0].TTL != time.Second || f3.calls[0].Plan == nil || f3.calls[0].Plan.Steps[0].Duration != 300*time.Millisecond {
		t.Fatalf("rerun of the missing cell: %+v", f3.calls)
	}
	if res.Ran != 1 || res.Skipped != 3 {
		t.Fatalf("ran %d skipped %d", res.Ran, res.Skipped)
	}

	spec.Fresh = true
	f4 := &fakeRunner{}
	if _, err = Run(context.Background(), spec, config.Campaign{}, Options{Runner: f4.run}); err != nil {
		t.Fatal(err)
	}
	if len(f4.calls) != 4 {
		t.Fatalf("fresh: %d calls", len(f4.calls))
	}
}

// An interrupted run is not kept; the cells before it are, and a rerun
// continues from the interrupted cell.
func TestInterruptKeepsFinishedCells(t *testing.T) {
	store := t.TempDir()
	spec := smallSpec(t, store)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeRunner{interruptAt: 2, cancel: cancel}
	res, err := Run(ctx, spec, config.Campaign{}, Options{Runner: f.run})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Cells) != 1 || res.Complete() || len(f.calls) != 2 {
		t.Fatalf("interrupted=%v cells=%d calls=%d", res.Interrupted, len(res.Cells), len(f.calls))
	}
	if n := len(cellFiles(t, res.Dir)); n != 1 {
		t.Fatalf("%d cell files after the interruption, want 1", n)
	}
	// The partial table is written.
	if b, err := os.ReadFile(filepath.Join(res.Dir, TableMDFile)); err != nil || strings.Count(string(b), "\n") != 3 {
		t.Fatalf("partial table: %q %v", b, err)
	}
	f2 := &fakeRunner{}
	res, err = Run(context.Background(), spec, config.Campaign{}, Options{Runner: f2.run})
	if err != nil || len(f2.calls) != 3 || !res.Complete() {
		t.Fatalf("resume after interrupt: %d calls, complete %v, %v", len(f2.calls), res.Complete(), err)
	}
	if f2.calls[0].TTL != 200*time.Millisecond || f2.calls[0].Plan == nil {
		t.Fatalf("resume did not start at the interrupted cell: %+v", f2.calls[0])
	}
}

// A run that cannot start is a run without a verdict: its cell file is
// not written, the campaign cannot judge its claim, and the sweep goes
// on. A cancelled context before a cell starts marks the sweep
// interrupted without running it.
func TestRunErrorAndCancelledContext(t *testing.T) {
	store := t.TempDir()
	spec := smallSpec(t, store)
	boom := errors.New("redis-server not found")
	calls := 0
	res, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: func(context.Context, config.Config) (*analysis.Result, error) {
		calls++
		return nil, boom
	}})
	if err != nil || calls != 4 || len(res.Cells) != 0 || len(cellFiles(t, res.Dir)) != 0 {
		t.Fatalf("err %v after %d calls, %d cells", err, calls, len(res.Cells))
	}
	if st := res.Campaign.Status(); st != checker.Unknown || !strings.Contains(res.Campaign.Outcomes[0].Error, boom.Error()) {
		t.Fatalf("status %v, outcome %+v", st, res.Campaign.Outcomes[0])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &fakeRunner{}
	res, err = Run(ctx, spec, config.Campaign{}, Options{Runner: f.run})
	if err != nil || !res.Interrupted || len(f.calls) != 0 {
		t.Fatalf("cancelled: %v interrupted=%v calls=%d", err, res.Interrupted, len(f.calls))
	}
}

// Resuming under a name whose cells were run with other fixed settings is
// refused, naming the setting.
func TestResumeRefusesOtherSettings(t *testing.T) {
	store := t.TempDir()
	spec := smallSpec(t, store)
	f := &fakeRunner{}
	if _, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: f.run}); err != nil {
		t.Fatal(err)
	}
	spec.TimeLimit = 5 * time.Second
	_, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: f.run})
	if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "--time-limit 5s, stored 4s") {
		t.Fatalf("err %v", err)
	}
	// A sweep stored with the old default of 3 clients, resumed with 4.
	spec.TimeLimit, spec.Clients = smallSpec(t, store).TimeLimit, 3
	_, err = Run(context.Background(), spec, config.Campaign{}, Options{Runner: f.run})
	if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "--clients 3, stored 4") || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("err %v", err)
	}
}

// Each run prints the campaign's progress line, in grid order at
// --parallel 1; a resumed run says it was done before.
func TestProgressLines(t *testing.T) {
	spec := smallSpec(t, t.TempDir())
	var b strings.Builder
	if _, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: (&fakeRunner{}).run, Progress: &b}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "[4/4] ttl-1s_renew-none_pause-300ms seed 1: valid, claims hold (") && !strings.HasPrefix(lines[3], "[4/4] ttl-1s_renew-none_pause-300ms seed 1: valid, claims hold  ") {
		t.Fatalf("progress lines:\n%s", b.String())
	}
	b.Reset()
	if _, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: (&fakeRunner{}).run, Progress: &b}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "[1/4] ttl-200ms_renew-none_pause-0 seed 1: done before, invalid, claims hold") {
		t.Fatalf("resumed progress lines:\n%s", b.String())
	}
}

// Two seeds per cell with fencing off and on: every point runs twice with
// seeds 1 and 2, fenced cells run the fenced lock with a fencing
// resource, and the page shows k/N per point and the recommendation.
func TestRunsAndFencing(t *testing.T) {
	r := DefaultRaw()
	r.Name, r.Store, r.TTL, r.Renew, r.Pause, r.TimeLimit = "t", t.TempDir(), "200ms,1s", "none", "300ms", "5s"
	r.Seeds, r.Fencing = 2, "off,on"
	spec, err := r.Spec()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRunner{}
	res, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: f.run})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 2*2*1*2 || !res.Complete() {
		t.Fatalf("%d calls, complete %v", len(f.calls), res.Complete())
	}
	seeds := map[int64]int{}
	fenced := 0
	for _, c := range f.calls {
		seeds[c.Seed]++
		if c.Fencing {
			fenced++
			if c.Lock != "fenced" || c.ClientCmd != "lockstorm client --lock fenced" {
				t.Errorf("fenced cell runs %s (%q)", c.Lock, c.ClientCmd)
			}
		}
	}
	if seeds[1] != 4 || seeds[2] != 4 || fenced != 4 {
		t.Errorf("seeds %v, %d fenced runs; want 4 runs each of seeds 1 and 2, 4 fenced", seeds, fenced)
	}
	index, err := os.ReadFile(filepath.Join(res.Dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	// The fake runner breaks every 200ms run: 2/2 invalid there.
	for _, want := range []string{"2/2 invalid", "0/2 invalid", `class="recommendation"`,
		"smallest TTL with 0 of 2 invalid up to pauses of 300ms, the longest measured: 1s, without renewal"} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
}

// A store written before fencing was an axis and runs were repeated (its
// cells have no "fenced" field, its sweep.json no fencing) resumes: its
// cells are the unfenced run-1 cells; only the new ones run.
func TestResumeOldStore(t *testing.T) {
	store := t.TempDir()
	spec := smallSpec(t, store)
	dir := Dir(store, spec.Name)
	f := &fakeRunner{}
	if _, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: f.run}); err != nil {
		t.Fatal(err)
	}
	// Make the stored cells look old: drop the fields added since.
	for _, path := range cellFiles(t, dir) {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), `"fenced"`) {
			t.Fatalf("an unfenced cell stores fenced: %s", b)
		}
	}
	spec.Runs = 2
	spec.Grid.Fencing = []bool{false, true}
	f2 := &fakeRunner{}
	res, err := Run(context.Background(), spec, config.Campaign{}, Options{Runner: f2.run})
	if err != nil {
		t.Fatal(err)
	}
	// 4 points × 2 runs unfenced + 4 fenced cells ... of which 4 were stored.
	if res.Skipped != 4 || len(f2.calls) != 2*2*2*2-4 || !res.Complete() {
		t.Fatalf("skipped %d, ran %d, complete %v", res.Skipped, len(f2.calls), res.Complete())
	}
	for _, c := range f2.calls {
		if c.Seed == 1 && !c.Fencing {
			t.Errorf("run 1 of an unfenced cell ran again: %+v", c)
		}
	}
}
