package main

import (
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/store"
)

// replayPre is the replay line on a run's report page.
var replayPre = regexp.MustCompile(`<pre class="replay">([^<]*)</pre>`)

// replayCell opens the report of the run in dir, runs the replay line it
// shows (with bin for lockstorm, into a fresh store) and returns the
// replayed run, loaded and checked.
func replayCell(t *testing.T, bin, dir string) *analysis.Result {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, store.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	m := replayPre.FindSubmatch(page)
	if m == nil {
		t.Fatalf("%s: the report shows no replay line", dir)
	}
	line := html.UnescapeString(string(m[1]))
	words, err := config.SplitCommand(line)
	if err != nil || len(words) < 2 || words[0] != "lockstorm" || words[1] != "run" {
		t.Fatalf("replay line %q: %v", line, err)
	}
	if !strings.Contains(line, "--fault-plan") {
		t.Errorf("replay line %q does not carry the cell's scripted faults", line)
	}
	again := t.TempDir()
	cmd := exec.Command(bin, append(words[1:], "--store", again)...)
	cmd.Env = append(os.Environ(), "CI=1", "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
		t.Fatalf("%s: exit %d (%v)\n%s", line, code, err, out)
	}
	t.Logf("%s\n%s", line, out)
	return loadRun(t, filepath.Join(again, "*", "*", store.TestFile))
}

// sameFaults fails t unless the replayed run had the cell's settings (but
// for its name, its cell label, store and plan file), its fault plan and
// as many fault windows of each kind.
func sameFaults(t *testing.T, cell, replay *analysis.Result) {
	t.Helper()
	a, b := cell.Config, replay.Config
	for _, c := range []*config.Config{&a, &b} {
		c.Name, c.Cell, c.Store, c.PlanFile = "", "", "", ""
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("replayed settings differ:\ncell   %+v\nreplay %+v", a, b)
	}
	if cell.Plan == nil || !reflect.DeepEqual(cell.Plan, replay.Plan) {
		t.Errorf("fault plans differ:\ncell   %+v\nreplay %+v", cell.Plan, replay.Plan)
	}
	kinds := func(r *analysis.Result) map[string]int {
		out := map[string]int{}
		if r.Coverage != nil {
			for _, w := range r.Coverage.Windows {
				out[w.Kind]++
			}
		}
		return out
	}
	if k, l := kinds(cell), kinds(replay); len(k) == 0 || !reflect.DeepEqual(k, l) {
		t.Errorf("fault windows: cell %v, replay %v", k, l)
	}
}

// loadRun is the run stored in the only folder matching pattern (the
// "latest" link aside).
func loadRun(t *testing.T, pattern string) *analysis.Result {
	t.Helper()
	var dirs []string
	all, _ := filepath.Glob(pattern)
	for _, d := range all {
		if !strings.Contains(d, store.LatestLink) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) != 1 {
		t.Fatalf("%s: %d runs, want 1", pattern, len(dirs))
	}
	res, err := analysis.LoadChecked(filepath.Dir(dirs[0]))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Opening a compare cell's report and a sweep cell's, and running the
// replay line each shows, reproduces the cell: its settings, its fault
// plan and the fault windows it recorded.
func TestCellReplayReproducesFaults(t *testing.T) {
	t.Parallel() // long, and shares no state with the package's other tests (issue 28)
	bin := binary(t)
	st := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command(bin, append(args, "--store", st)...)
		cmd.Env = append(os.Environ(), "CI=1", "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() > 1 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run("compare", "--ttl", "300ms", "--time-limit", "4s", "--seeds", "2", "--only", "unfenced", "--shard", "1/2")
	cell := loadRun(t, filepath.Join(st, "compare-fenced-unfenced", "*", store.TestFile))
	if cell.Config.Seed != 2 {
		t.Errorf("shard 1/2 of seeds 1..2 ran seed %d, want 2", cell.Config.Seed)
	}
	sameFaults(t, cell, replayCell(t, bin, cell.Dir))

	run("sweep", "--name", "r", "--ttl", "300ms", "--renew", "none", "--pause", "600ms", "--fencing",
		"--seeds", "2", "--shard", "1/2", "--time-limit", "4s")
	cell = loadRun(t, filepath.Join(st, "sweep-r", "*", store.TestFile))
	if cell.Config.Seed != 2 || !cell.Config.Fencing || cell.Plan == nil || cell.Plan.Steps[0].Duration != 600*time.Millisecond {
		t.Errorf("sweep shard 1/2 ran seed %d, fencing %v, plan %+v; want seed 2, fenced, 600ms pauses", cell.Config.Seed, cell.Config.Fencing, cell.Plan)
	}
	sameFaults(t, cell, replayCell(t, bin, cell.Dir))
}
