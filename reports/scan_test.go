package reports

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// passOf runs the report's pass over h, a run of clients client slots
// with the resource log writes (nil: none), as WriteWith does: the pass
// over the history and its resource log.
func passOf(t testing.TB, h history.History, writes []resource.Write, clients int) *runScan {
	t.Helper()
	return passOfResult(t, &analysis.Result{History: history.Slice(h), Writes: writes, Config: config.Config{Clients: clients}})
}

// passOfResult is passOf of a result.
func passOfResult(t testing.TB, res *analysis.Result) *runScan {
	return must[*runScan](t)(scanRun(res))
}

// buildSlots is the slot map of a whole history h in memory, a run of
// clients slots: its records followed by a slotTracker, as the report's
// pass follows them (the report itself takes it from the pass).
func buildSlots(h history.History, clients int) slotMap {
	t := newSlotTracker(max(clients, 0))
	for i := range h {
		t.add(&h[i])
	}
	return t.slotMap(h)
}

// runLeases are the lease options of a run with the default config.
var runLeases = analysis.LeaseOptions(config.Config{})

// historyDetail is the detail of a whole history h of a run of clients
// slots, with the resource log writes and the lost increments lost.
func historyDetail(h history.History, writes []resource.Write, lost []lostPair, clients int) *detail {
	return detailOf(h, buildSlots(h, clients), checker.FaultWindows(h), writes, lost, runLeases)
}

// holdersPNG draws holders.png of the whole history h (drawHolders), its
// overview from the report's pass.
func holdersPNG(h history.History, writes []resource.Write, lost []lostPair, ws []checker.Window, end int64, clients int) ([]byte, error) {
	s, err := scanRun(&analysis.Result{History: history.Slice(h), Config: config.Config{Clients: clients}})
	if err != nil {
		return nil, err
	}
	return drawHolders(holdersArgs{d: detailOf(h, buildSlots(h, clients), ws, writes, lost, runLeases), end: end, pad: spanPad(0),
		overview: s.overview})
}

// oracleHistories are the histories whose plots the pass must draw as
// the in-memory code did: hand-built, generated (exact and dense), the
// checker's testdata, and malformed times.
func oracleHistories(t *testing.T) map[string]history.History {
	t.Helper()
	pause, _ := pauseHistory()
	hs := map[string]history.History{"pause": pause, "gen-3000": bigHistory(3000, 8, 1), "gen-30000": bigHistory(30000, 8, 2),
		"evil": evilHistory([]int64{5, 1 << 62, -3, 7}, 1<<60)}
	tds, _ := filepath.Glob("../checker/testdata/*.jsonl")
	for _, p := range tds {
		if h, _, err := history.ReadFile(p); err == nil {
			hs[filepath.Base(p)] = h
		}
	}
	return hs
}

// The pass keeps the data the latency, rate and fencing plots draw as the
// in-memory code took it (oracle_test.go), from memory and from a file.
func TestPassKeepsTheInMemoryData(t *testing.T) {
	for name, h := range oracleHistories(t) {
		writes := writesOf(h)
		for _, src := range []string{"memory", "file"} {
			res := &analysis.Result{History: history.Slice(h), Writes: writes, Config: config.Config{Clients: 3}}
			if src == "file" {
				res = fileResult(t, h)
				res.Writes = writes
			}
			s := passOfResult(t, res)
			for _, done := range []bool{false, true} {
				byType := map[string][]clientOp{}
				var types []string
				for _, op := range clientOps(h) {
					if done && !op.Completed {
						continue
					}
					if !slices.Contains(types, op.F) {
						types = append(types, op.F)
					}
					if !slices.Contains([]history.Type{history.OK, history.Fail, history.Info}, op.Type) {
						op.Type = "other"
					}
					op.Proc, op.Inv, op.Comp = 0, 0, 0
					byType[op.F] = append(byType[op.F], op)
				}
				if got := s.ops.present(done); !slices.Equal(got, orderTypes(types)) {
					t.Errorf("%s (%s, done %v): types %v, in memory %v", name, src, done, got, types)
				}
				for _, f := range types {
					var got []clientOp
					s.ops.each(f, done, func(_ int, op clientOp) { got = append(got, op) })
					if !slices.Equal(got, byType[f]) {
						t.Errorf("%s (%s, done %v): %s operations differ from the in-memory ones", name, src, done, f)
					}
				}
			}
			for _, c := range []struct {
				s      *runScan
				writes []resource.Write
			}{{s, writes}, {passOf(t, h, nil, 3), nil}} {
				pts, _ := c.s.fencePoints()
				for i := range pts {
					pts[i].key = ""
				}
				if !slices.Equal(pts, oldFencePoints(h, c.writes)) || !slices.Equal(c.s.issued(), oldIssued(h)) {
					t.Errorf("%s (%s, %d log entries): fencing.png's points or tokens issued differ from the in-memory ones", name, src, len(c.writes))
				}
			}
		}
	}
}

// writesOf is a resource log for h: every acknowledged write, accepted,
// at the middle of its operation; every rejected one, stale.
func writesOf(h history.History) []resource.Write {
	var out []resource.Write
	for _, sp := range clientOps(h) {
		if sp.F != history.FWrite || !sp.Completed || sp.Type == history.Info {
			continue
		}
		r := h[sp.Inv]
		out = append(out, resource.Write{Time: (sp.Call + sp.Done) / 2, Key: r.Key, Value: r.Value, Fence: r.Fence,
			Accepted: sp.Type == history.OK, Stale: sp.Type == history.Fail})
	}
	return out
}

// fileResult is a result whose history h is in a file (its Source a
// file), as a stored run's is.
func fileResult(t testing.TB, h history.History) *analysis.Result {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "history.jsonl")
	noErr(t, history.WriteFile(path, h))
	return &analysis.Result{Dir: dir, History: history.File(path), Records: len(h), Config: config.Config{Clients: 3}}
}

// The holders overview from the pass's leases is the one from the
// history in memory (holds and overlaps).
func TestPassOverviewEqualsInMemory(t *testing.T) {
	for name, h := range oracleHistories(t) {
		if name == "evil" {
			continue // times past 2^62 ns: columns of no width
		}
		assertOccupancy(t, h, 8)
	}
	res := pauseResult("")
	res.Verdict = analysis.Checkers(res).Check(context.Background(), historyOf(res))
	assertOccupancy(t, historyOf(res), 3)
}

// assertOccupancy fails unless the overview of h from the pass equals
// the in-memory one.
func assertOccupancy(t *testing.T, h history.History, clients int) {
	t.Helper()
	end := endTime(h)
	hs := holds(h, runLeases)
	ovs := overlaps(hs)
	sm := buildSlots(h, clients)
	want := oldNewOccupancy(&detail{hs: hs, ovs: ovs, sm: sm, h: h}, xMax(end))
	s := passOf(t, h, nil, clients)
	got := s.overview(end)
	if s.leases.log.start.len() != len(hs) || len(s.leases.log.clashes) != len(ovs) {
		t.Errorf("%d records: the pass has %d leases, %d pairs at once; in memory %d, %d", len(h), s.leases.log.start.len(), len(s.leases.log.clashes), len(hs), len(ovs))
	}
	for r := range min(want.rows, got.rows) {
		for c := range want.cols {
			if math.Abs(got.held[r][c]-want.held[r][c]) > 1e-9 || math.Abs(got.late[r][c]-want.late[r][c]) > 1e-9 || got.clash[r][c] != want.clash[r][c] {
				t.Fatalf("%d records, row %d column %d: the pass has held %.4f late %.4f clash %v, in memory %.4f %.4f %v",
					len(h), r, c, got.held[r][c], got.late[r][c], got.clash[r][c], want.held[r][c], want.late[r][c], want.clash[r][c])
			}
		}
	}
}

// fencePoints are fencing.png's points of h with the resource log writes
// (nil: none), from the report's pass, and what they are from.
func fencePoints(t testing.TB, h history.History, writes []resource.Write) ([]fencePoint, string) {
	t.Helper()
	s := passOf(t, h, writes, 0)
	pts, _ := s.fencePoints()
	if s.fenceLog.total == 0 {
		return pts, "from the history: arrivals unknown"
	}
	return pts, "from the resource's log"
}

// fencingPNG draws fencing.png of h with the resource log writes (nil:
// none) from the report's pass.
func fencingPNG(t testing.TB, h history.History, writes []resource.Write, ws []checker.Window, end int64) ([]byte, error) {
	t.Helper()
	return passOf(t, h, writes, 0).fencingPNG(ws, end)
}

// logOf is the opLog of a history in memory.
func logOf(h history.History) *opLog {
	l := newOpLog()
	for i := range h {
		l.add(&h[i])
	}
	return l
}
