package reports

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// The replay line passes --fencing only for locks that issue fencing
// tokens (for the others `lockstorm run` refuses it), and --target-holder
// and --min-coverage only when they differ from the defaults; an explicit
// 0 (stored as -1) replays as 0.
func TestReplayCommandFlags(t *testing.T) {
	aim := func(aim float64, cover int) config.Config {
		return config.Config{Lock: "single", Workload: "counter", Nodes: 1, Clients: 3, Seed: 5, Persistence: "none", TargetHolder: aim, MinCoverage: cover}
	}
	fenced := func(lock string) config.Config { return config.Config{Lock: lock, Fencing: true} }
	for _, tc := range []struct {
		c         config.Config
		want, not []string
	}{
		{aim(0, 0), nil, []string{"--target-holder", "--min-coverage"}},
		{aim(config.DefaultTargetHolder, config.DefaultMinCoverage), nil, []string{"--target-holder", "--min-coverage"}},
		{aim(-1, -1), []string{"--target-holder 0", "--min-coverage 0"}, nil},
		{aim(0.5, 3), []string{"--target-holder 0.5", "--min-coverage 3"}, nil},
		{fenced("fenced"), []string{"--fencing"}, nil},
		{fenced("fenced-redlock"), []string{"--fencing"}, nil},
		{fenced("redlock"), nil, []string{"--fencing"}},
		{fenced("renewable"), nil, []string{"--fencing"}},
	} {
		got := ReplayCommand(tc.c)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("lock %s aim %v cover %d: %q lacks %q", tc.c.Lock, tc.c.TargetHolder, tc.c.MinCoverage, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("lock %s aim %v cover %d: %q has %q", tc.c.Lock, tc.c.TargetHolder, tc.c.MinCoverage, got, w)
			}
		}
	}
}

// Analysing a run folder whose test.json has an empty config gives no
// replay line but "unknown" in the summary, junit.xml and the page.
func TestAnalyzeEmptyConfigHasNoReplayLine(t *testing.T) {
	dir := t.TempDir()
	h, _ := pauseHistory()
	noErr(t, history.WriteFile(filepath.Join(dir, store.HistoryFile), h))
	noErr(t, os.WriteFile(filepath.Join(dir, store.TestFile), []byte(`{"config": {}, "completed": true, "records": `+strconv.Itoa(len(h))+`}`), 0o644))
	res, _, err := analysis.Analyze(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, res)
	var sum bytes.Buffer
	Summary(&sum, res)
	if !strings.Contains(sum.String(), "replay: unknown, the stored configuration is empty\n") || strings.Contains(sum.String(), "''") || strings.Contains(sum.String(), "lockstorm run") {
		t.Errorf("summary:\n%s", sum.String())
	}
	if index := storetest.Read(t, dir, store.IndexFile); strings.Contains(index, `<pre class="replay">`) || !strings.Contains(index, "Replay: unknown, the stored configuration is empty") {
		t.Errorf("index.html shows a replay line or lacks the note")
	}
	junit := storetest.Read(t, dir, store.JUnitFile)
	if !strings.Contains(string(junit), "replay: unknown, the stored configuration is empty") || strings.Contains(string(junit), "lockstorm run") {
		t.Errorf("junit.xml's replay:\n%s", junit)
	}
}
