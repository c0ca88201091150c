package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/workloads"
)

// A run that records more than its live window keeps only recent records
// in memory, reads the whole history back from history.jsonl for the
// check, and still aims its faults at holders (the targeter catches up on
// every progress tick).
func TestRunBeyondLiveWindowChecksWholeFile(t *testing.T) {
	old := liveWindow
	liveWindow = 1 // one chunk of records stays in memory
	t.Cleanup(func() { liveWindow = old })
	res := storetest.Run(t, Run, Config{Lock: "single", Clients: 8, TTL: 20 * time.Millisecond,
		Workloads: workloads.Options{HoldMin: time.Millisecond, HoldMax: time.Millisecond, Think: time.Millisecond},
		Nemesis:   []string{"partition"}, FaultInterval: 300 * time.Millisecond, MinCoverage: -1,
		TimeLimit: 10 * time.Second, Seed: 3, Store: t.TempDir()})
	log := storetest.Read(t, res.Dir, store.LogFile)
	if !strings.Contains(log, "read back from history.jsonl") {
		t.Skipf("the run recorded only %d records, within its window: nothing to read back", len(res.History))
	}
	for i, op := range res.History {
		if op.Index != int64(i) {
			t.Fatalf("record %d has index %d", i, op.Index)
		}
	}
	var tf testFile
	storetest.ReadJSON(t, res.Dir, store.TestFile, &tf)
	if tf.Records != len(res.History) || !tf.Completed {
		t.Errorf("test.json: %d records, completed %v; the check read %d", tf.Records, tf.Completed, len(res.History))
	}
	if res.Verdict.Valid != checker.Valid {
		t.Errorf("verdict %v: %s", res.Verdict.Valid, res.Verdict.Error)
	}
	if !strings.Contains(log, "holder") {
		t.Logf("log:\n%s", log)
	}
}

// A history whose in-memory check would need more than half of the
// available memory is not loaded.
func TestTooBigToCheck(t *testing.T) {
	for _, c := range []struct {
		n     int
		avail int64
		big   bool
	}{{1000, 1 << 30, false}, {1 << 20, 1 << 30, true}, {100_000, 1 << 30, false}, {150_000, 1 << 30, true}, {50_000_000, -1, false}} {
		why := tooBigToCheck(c.n, c.avail)
		if (why != "") != c.big || c.big && !strings.Contains(why, "lockstorm analyze") {
			t.Errorf("tooBigToCheck(%d, %d) = %q, want big %v", c.n, c.avail, why, c.big)
		}
	}
	if memAvailable() <= 0 {
		t.Errorf("MemAvailable not read from /proc/meminfo: %d", memAvailable())
	}
}
