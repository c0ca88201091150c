package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// storedPauseRun writes a completed run folder whose one client-pause hit
// c2, a client that never did anything, while c1 took and released the
// lock: a correct history whose fault exercised nothing. minCoverage is
// the stored config's min_coverage (0: the field absent, as in runs
// stored before it existed).
func storedPauseRun(t *testing.T, minCoverage int) string {
	t.Helper()
	dir := t.TempDir()
	nem := func(ms int64, ty history.Type, f string, fault string, clients ...string) history.Op {
		return history.Op{Time: ms * 1e6, Type: ty, Process: history.NemesisProcess, F: f, Fault: fault, Clients: clients}
	}
	cl := func(ms int64, ty history.Type, f, token string) history.Op {
		return history.Op{Time: ms * 1e6, Type: ty, Process: 0, Client: "c1", F: f, Key: "k", Token: token, TTL: 1e9}
	}
	h := history.History{
		cl(0, history.Invoke, history.FAcquire, ""),
		cl(1, history.OK, history.FAcquire, "a"),
		cl(100, history.Invoke, history.FRelease, "a"),
		cl(101, history.OK, history.FRelease, "a"),
		nem(200, history.Invoke, history.FStart, "client-pause", "c2"),
		nem(201, history.OK, history.FStart, "client-pause", "c2"),
		nem(500, history.Invoke, history.FStop, "client-pause", "c2"),
		nem(501, history.OK, history.FStop, "client-pause", "c2"),
		nem(502, history.Invoke, history.FHeal, "all"),
		nem(503, history.OK, history.FHeal, "all"),
		cl(600, history.Invoke, history.FAcquire, ""),
		cl(601, history.OK, history.FAcquire, "b"),
		cl(700, history.Invoke, history.FRelease, "b"),
		cl(701, history.OK, history.FRelease, "b"),
	}
	for i := range h {
		h[i].Index = int64(i)
	}
	if err := history.WriteFile(filepath.Join(dir, store.HistoryFile), h); err != nil {
		t.Fatal(err)
	}
	mc := ""
	if minCoverage != 0 {
		mc = fmt.Sprintf(`,"min_coverage":%d`, minCoverage)
	}
	tf := fmt.Sprintf(`{"config":{"lock":"single","workload":"counter","nemesis":["client-pause"],"nodes":1,"clients":2,"ttl_ns":1000000000,"seed":5%s},"completed":true,"records":%d}`, mc, len(h))
	if err := os.WriteFile(filepath.Join(dir, store.TestFile), []byte(tf), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A run whose faults touched no holder or waiter is unknown: exit 3, the
// shortfall named; with the bar off (min_coverage -1, as --min-coverage 0
// stores it) the same run is valid, exit 0.
func TestUnexercisedRunExitsThree(t *testing.T) {
	bin := binary(t)
	code, stdout, stderr := exec1(t, bin, "analyze", storedPauseRun(t, 0))
	want := "the one client-pause fault never touched a lock holder or waiter (need 1; --min-coverage 0 turns this off)"
	if code != 3 || !strings.Contains(stdout, "verdict: unknown") || !strings.Contains(stdout, want) ||
		!strings.Contains(stdout, "client-pause  planned 0  applied 1  holder 0 (0 at start)  waiter 0  write 0") {
		t.Fatalf("analyze: exit %d, want 3 naming %q\nstdout %s\nstderr %s", code, want, stdout, stderr)
	}
	code, stdout, stderr = exec1(t, bin, "analyze", storedPauseRun(t, -1))
	if code != 0 || !strings.Contains(stdout, "verdict: valid") {
		t.Fatalf("analyze with no bar: exit %d, want 0\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
