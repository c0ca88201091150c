package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
)

func sampleCells() []CellResult {
	return []CellResult{
		{Cell: Cell{TTL: 200 * time.Millisecond, Renew: "none", Pause: 0, Run: 1}, Dir: "sweep-x/20260101T000000.000",
			Metrics: Metrics{Verdict: checker.Invalid, LostUpdates: 16, Writes: 43, LateWrites: 34, LateInOrder: 5, SuccessRate: 0.977,
				WaitP50: 210 * time.Millisecond, WaitP99: 1128 * time.Millisecond, Throughput: 5.375, LockLosses: 0}},
		{Cell: Cell{TTL: time.Second, Renew: "ttl/3", Pause: 1500 * time.Millisecond, Nemesis: NemesisPartition, Run: 2},
			Metrics: Metrics{Verdict: checker.Unknown, LostUpdates: -1, Writes: 26, Overlaps: 1, StaleAccepted: 2,
				SuccessRate: 1, WaitP50: 700 * time.Microsecond, WaitP99: 2 * time.Second, Throughput: 3.25, LockLosses: 3}},
	}
}

func TestMarkdown(t *testing.T) {
	md := Markdown(sampleCells())
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), md)
	}
	want := []string{
		"| 200ms | none | off | client-pause | 0 | 1 | **invalid** | 16 | 43 | 0 | 34 | 5 | 0 | 97.7% | 210ms | 1128ms | 5.38 | 0 | [report](../../sweep-x/20260101T000000.000/index.html) |",
		"| 1s | ttl/3 | off | partition | 1.5s | 2 | unknown | ? | 26 | 1 | 0 | 0 | 2 | 100.0% | 0.7ms | 2000ms | 3.25 | 3 |  |",
	}
	for i, w := range want {
		if lines[2+i] != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, lines[2+i], w)
		}
	}
	cols := strings.Count(lines[0], "|")
	for _, l := range lines {
		if strings.Count(l, "|") != cols {
			t.Errorf("ragged row %q", l)
		}
	}
}

func TestCSV(t *testing.T) {
	b, err := CSV(sampleCells())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	head := strings.Join(rows[0], ",")
	if head != "ttl,renew,fencing,fault,pause,run,verdict,lost_updates,writes,overlaps,late_writes,late_writes_in_order,stale_accepted,acquire_success_rate,acquire_p50_ms,acquire_p99_ms,acquires_ok_per_s,lock_losses,run_dir" {
		t.Fatalf("header %s", head)
	}
	if got := strings.Join(rows[1], ","); got != "200ms,none,off,client-pause,0,1,invalid,16,43,0,34,5,0,0.9770,210.0,1128.0,5.38,0,sweep-x/20260101T000000.000" {
		t.Errorf("row 1: %s", got)
	}
	if got := strings.Join(rows[2], ","); got != "1s,ttl/3,off,partition,1.5s,2,unknown,?,26,1,0,0,2,1.0000,0.7,2000.0,3.25,3," {
		t.Errorf("row 2: %s", got)
	}
}

// Aggregation averages a grid point's runs and counts its verdicts.
func TestAggregate(t *testing.T) {
	c := sampleCells()
	a := c[0]
	b := c[0]
	b.Run, b.LostUpdates, b.Verdict, b.SuccessRate = 2, 4, checker.Valid, 0.5
	agg := Aggregate(Grid{}, []CellResult{a, b, c[1]})
	p := agg[Point{TTL: 200 * time.Millisecond, Renew: "none"}]
	if p.Runs != 2 || p.Invalid != 1 || p.Violations != 10 || math.Abs(p.SuccessRate-(0.977+0.5)/2) > 1e-9 {
		t.Fatalf("aggregate %+v", p)
	}
	q := agg[Point{TTL: time.Second, Renew: "ttl/3", Pause: 1500 * time.Millisecond, Nemesis: NemesisPartition}]
	if q.Runs != 1 || q.Unknown != 1 || q.Violations != 3 { // unknown lost counts 0; 1 overlap + 2 stale
		t.Fatalf("aggregate %+v", q)
	}
	if p.KN() != "1/2 invalid" || q.KN() != "0/1 invalid" {
		t.Errorf("k/N: %q, %q", p.KN(), q.KN())
	}
	// A fenced cell is its own point.
	f := a
	f.Fenced = true
	agg = Aggregate(Grid{}, []CellResult{a, f})
	if len(agg) != 2 || agg[Point{TTL: 200 * time.Millisecond, Renew: "none", Fenced: true}].Runs != 1 {
		t.Errorf("fenced point: %+v", agg)
	}
	// So is a partition of the same setting and length (a length of 0 is
	// no fault: the same point).
	a.Pause = time.Second
	n := a
	n.Nemesis = NemesisPartition
	agg = Aggregate(Grid{}, []CellResult{a, n})
	if len(agg) != 2 || agg[Point{TTL: 200 * time.Millisecond, Renew: "none", Pause: time.Second, Nemesis: NemesisPartition}].Runs != 1 {
		t.Errorf("partition point: %+v", agg)
	}
}

// MetricsOf reads the same numbers from a verdict read back from
// results.json as from the fresh one.
func TestMetricsOfStoredVerdict(t *testing.T) {
	fresh := &analysis.Result{Verdict: fakeVerdict(true)}
	b, err := json.Marshal(fresh.Verdict)
	if err != nil {
		t.Fatal(err)
	}
	stored := &analysis.Result{}
	if err := json.Unmarshal(b, &stored.Verdict); err != nil {
		t.Fatal(err)
	}
	m, n := MetricsOf(fresh), MetricsOf(stored)
	if m != n || m.LostUpdates != 3 || m.Writes != 20 || m.Overlaps != 1 || m.LateWrites != 4 || m.AcquiresAll != 20 || m.WaitP99 != 900*time.Millisecond {
		t.Fatalf("fresh %+v, stored %+v", m, n)
	}
}
