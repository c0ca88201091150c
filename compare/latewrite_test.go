package compare

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/sweep"
)

// lateWriteHistory is a fenced counter run of two turns on lock key "k"
// and counter "c": process 1 (token 1, validity until 90 ms) reads 0 and
// writes 1 at 150 ms, after its validity, and the resource accepts it;
// process 2 then takes token 2, reads 1 and writes 2. With newerFirst,
// process 2 takes token 2 at 120 ms and its fenced read returns 0 at 131
// ms, before the late write is invoked: the late write is accepted out of
// token order, inside process 2's read-modify-write (which then writes 1
// too); without, process 2 acquires only at 200 ms, after the late write
// returned.
func lateWriteHistory(newerFirst bool) history.History {
	const ms = int64(time.Millisecond)
	var h history.History
	add := func(at int64, ty history.Type, p int, f, key string, set func(*history.Op)) {
		o := history.Op{Index: int64(len(h)), Time: at * ms, Type: ty, Process: p, F: f, Key: key}
		if set != nil {
			set(&o)
		}
		h = append(h, o)
	}
	acq := func(at int64, p int, tok string, fence, validity int64) {
		add(at, history.Invoke, p, history.FAcquire, "k", func(o *history.Op) { o.TTL = 100 * ms })
		add(at+1, history.OK, p, history.FAcquire, "k", func(o *history.Op) {
			o.Token, o.Fence, o.TTL, o.Validity = tok, fence, 100*ms, validity*ms
		})
	}
	read := func(at int64, p int, v, fence int64) {
		add(at, history.Invoke, p, history.FRead, "c", func(o *history.Op) { o.Fence = fence })
		add(at+1, history.OK, p, history.FRead, "c", func(o *history.Op) { o.Value, o.Fence = v, fence })
	}
	write := func(at int64, p int, v, fence int64) {
		add(at, history.Invoke, p, history.FWrite, "c", func(o *history.Op) { o.Value, o.Fence = v, fence })
		add(at+1, history.OK, p, history.FWrite, "c", func(o *history.Op) { o.Value, o.Fence = v, fence })
	}
	rel := func(at int64, p int, tok string, ty history.Type) {
		add(at, history.Invoke, p, history.FRelease, "k", func(o *history.Op) { o.Token = tok })
		add(at+1, ty, p, history.FRelease, "k", func(o *history.Op) { o.Token = tok })
	}
	acq(0, 1, "a", 1, 90)
	read(10, 1, 0, 1)
	if newerFirst {
		acq(119, 2, "b", 2, 270)
		read(130, 2, 0, 2) // token 2 reaches the resource before the late write
	}
	write(150, 1, 1, 1) // invoked at 150 ms, the validity ended at 90 ms
	if newerFirst {
		rel(160, 1, "a", history.Fail) // the lock is process 2's by now
	} else {
		rel(160, 1, "a", history.OK)
	}
	if !newerFirst {
		acq(200, 2, "b", 2, 290)
	}
	if newerFirst {
		write(212, 2, 1, 2) // built on its read of 0: an increment is lost
	} else {
		read(210, 2, 1, 2)
		write(212, 2, 2, 2)
	}
	rel(220, 2, "b", history.OK)
	return h
}

// A write accepted after its writer's validity but in token order, under
// fencing, is judged by one rule (checker.LateWriteFatal) wherever it is
// judged: the run's check (analysis.Check: exclusion reports it, not
// fatal; the run is valid), the live violation count (0), and the
// metrics compare and sweep classify a run by (valid, 0 late writes, 1
// in order; the sweep's cell is not invalid). The same write accepted
// after a newer token reached the resource is fatal everywhere; without
// fencing too.
func TestLateWriteInTokenOrderOneRule(t *testing.T) {
	for _, tc := range []struct {
		name              string
		newerFirst, fence bool
		want              checker.Validity
	}{
		{"fenced, in token order", false, true, checker.Valid},
		{"fenced, after a newer token reached the resource", true, true, checker.Invalid},
		{"unfenced, in token order", false, false, checker.Invalid},
	} {
		h := lateWriteHistory(tc.newerFirst)
		cfg := config.Config{Name: "late", Lock: "fenced", Workload: "counter", Clients: 2, TTL: 100 * time.Millisecond, Fencing: tc.fence}
		res := &analysis.Result{Config: cfg, History: history.Slice(h), Final: map[string]int64{"c": map[bool]int64{true: 1, false: 2}[tc.newerFirst]}}
		if err := analysis.Check(context.Background(), res); err != nil {
			t.Fatal(err)
		}
		fatal := tc.want == checker.Invalid
		// run: the verdict and the exclusion checker's anomaly
		if res.Verdict.Valid != tc.want {
			t.Errorf("%s: run verdict %v, want %v: %s", tc.name, res.Verdict.Valid, tc.want, res.Verdict)
		}
		var late []checker.Anomaly
		fatals := 0
		for _, r := range res.Verdict.Results {
			for _, a := range r.Anomalies {
				if strings.HasPrefix(a.Kind, "write-after-validity") {
					late = append(late, a)
				}
				if a.Fatal {
					fatals++
				}
			}
		}
		if !tc.newerFirst && fatals != map[bool]int{true: 1, false: 0}[fatal] { // the late write alone decides the verdict
			t.Errorf("%s: %d fatal anomalies: %s", tc.name, fatals, res.Verdict)
		}
		wantKind := map[bool]string{true: checker.KindLateWrite, false: checker.KindLateWriteInOrder}[fatal]
		if len(late) != 1 || late[0].Fatal != fatal || late[0].Kind != wantKind {
			t.Errorf("%s: late-write anomalies %+v, want one %s (fatal %v)", tc.name, late, wantKind, fatal)
		}
		// live count: counts only what the final check finds fatal
		lc := analysis.NewLiveCounter(cfg)
		for _, o := range h {
			lc.Add(o)
		}
		if n := lc.Snapshot()[analysis.LiveWriteAfterValidity]; n != map[bool]int{true: 1, false: 0}[fatal] {
			t.Errorf("%s: live count of late writes %d, fatal %v", tc.name, n, fatal)
		}
		// compare's and sweep's classification: the metrics of the run
		m := sweep.MetricsOf(res)
		if m.Verdict != tc.want || (m.LateWrites == 1) != fatal || (m.LateInOrder == 1) == fatal {
			t.Errorf("%s: metrics verdict %v, late %d, in order %d", tc.name, m.Verdict, m.LateWrites, m.LateInOrder)
		}
		if v, seen := fencedShows(m); tc.fence && !strings.HasPrefix(seen, tc.want.String()) {
			t.Errorf("%s: compare's fenced side judged %v, %q", tc.name, v, seen)
		}
		cell := sweep.CellResult{Metrics: m}
		agg := sweep.Aggregate(sweep.Grid{}, []sweep.CellResult{cell})[cell.Point()]
		if (agg.Invalid == 1) != fatal || agg.Runs != 1 {
			t.Errorf("%s: sweep cell %s, fatal %v", tc.name, agg.KN(), fatal)
		}
	}
}
