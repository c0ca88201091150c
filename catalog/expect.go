package catalog

import (
	"fmt"
	"slices"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// Expectation is one thing a row expects of its run. Check returns whether
// the run shows it and what was observed, in a few words.
type Expectation struct {
	Desc  string
	Check func(res *analysis.Result) (ok bool, observed string)
}

// verdict expects the overall verdict.
func verdict(v checker.Validity) Expectation {
	return Expectation{Desc: "verdict " + v.String(), Check: func(res *analysis.Result) (bool, string) {
		return res.Verdict.Valid == v, "verdict " + res.Verdict.Valid.String()
	}}
}

// checkerIs expects one checker's verdict.
func checkerIs(name string, v checker.Validity) Expectation {
	return Expectation{Desc: name + " " + v.String(), Check: func(res *analysis.Result) (bool, string) {
		for _, r := range res.Verdict.Results {
			if r.Name == name {
				return r.Valid == v, name + " " + r.Valid.String()
			}
		}
		return false, name + " not run"
	}}
}

// anomaly expects a fatal anomaly of one of the kinds from a checker.
func anomaly(name string, kinds ...string) Expectation {
	return Expectation{Desc: fmt.Sprintf("%s anomaly %v", name, kinds), Check: func(res *analysis.Result) (bool, string) {
		seen := map[string]int{}
		for _, r := range res.Verdict.Results {
			if r.Name != name {
				continue
			}
			for _, a := range r.Anomalies {
				if a.Fatal {
					seen[a.Kind]++
				}
			}
		}
		for _, k := range kinds {
			if seen[k] > 0 {
				return true, fmt.Sprintf("%s: %d %s", name, seen[k], k)
			}
		}
		return false, fmt.Sprintf("%s anomalies %v", name, seen)
	}}
}

// records expects at least n records of f with type t.
func records(f string, t history.Type, n int, what string) Expectation {
	return Expectation{Desc: fmt.Sprintf("at least %d %s", n, what), Check: func(res *analysis.Result) (bool, string) {
		c := 0
		if err := res.EachRecord(func(op *history.Op) {
			if op.F == f && op.Type == t {
				c++
			}
		}); err != nil {
			return false, err.Error()
		}
		return c >= n, fmt.Sprintf("%d %s", c, what)
	}}
}

// staleRejected expects the resource to have rejected stale writes or
// fenced reads and accepted none.
func staleRejected() Expectation {
	return Expectation{Desc: "stale writes or reads rejected, none accepted", Check: func(res *analysis.Result) (bool, string) {
		rej, acc := 0, 0
		if err := res.EachWrite(func(w *resource.Write) {
			switch {
			case w.Stale && w.Accepted:
				acc++
			case w.Stale:
				rej++
			}
		}); err != nil {
			return false, err.Error()
		}
		return rej > 0 && acc == 0, fmt.Sprintf("stale writes and reads: %d rejected, %d accepted", rej, acc)
	}}
}

// acquiresDuring expects (want true) or rules out (want false) acquires
// invoked and completed ok inside a window of fault kind, after margin
// from its start.
func acquiresDuring(fault string, want bool, marginNS int64) Expectation {
	desc := "no acquire succeeds during " + fault
	if want {
		desc = "acquires succeed during " + fault
	}
	return Expectation{Desc: desc, Check: func(res *analysis.Result) (bool, string) {
		h, err := history.ReadAll(res.History) // a catalogue run is short
		if err != nil {
			return false, err.Error()
		}
		ws := checker.FaultWindows(h)
		n := 0
		for _, p := range history.Pairs(h) {
			inv := h[p.Invoke]
			if inv.F != history.FAcquire || p.Completion < 0 || h[p.Completion].Type != history.OK {
				continue
			}
			done := h[p.Completion].Time
			if slices.ContainsFunc(ws, func(w checker.Window) bool {
				return w.Fault == fault && inv.Time >= w.Start+marginNS && done <= w.End
			}) {
				n++
			}
		}
		return (n > 0) == want, fmt.Sprintf("%d acquires ok during %s", n, fault)
	}}
}
