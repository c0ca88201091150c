// Package repro shrinks an invalid run into a short, reliable
// reproduction: fewer faults, fewer clients, a shorter run and shorter
// faults that still show the same fatal anomaly kind from the same
// checker, each candidate measured over several tries (lockstorm shrink).
// It writes the result as a repro/ folder beside the run, with a
// REPORT.md in the form of an upstream bug report.
package repro

import (
	"fmt"

	"github.com/lockstorm/lockstorm/checker"
)

// Target is the anomaly a reproduction must keep showing: the checker
// that flagged it and its kind.
type Target struct {
	Checker string `json:"checker"`
	Kind    string `json:"kind"`
	// Text and Ops are the original anomaly's, for the report.
	Text string  `json:"text"`
	Ops  []int64 `json:"ops"`
}

func (t Target) String() string { return t.Checker + ": " + t.Kind }

// TargetOf is the first fatal anomaly of an invalid verdict; an error
// when the verdict is not invalid or names no fatal anomaly.
func TargetOf(v checker.Result) (Target, error) {
	if v.Valid != checker.Invalid {
		return Target{}, fmt.Errorf("the run is %s, not invalid: there is no anomaly to reproduce", v.Valid)
	}
	for _, r := range v.Results {
		if r.Valid != checker.Invalid {
			continue
		}
		for _, a := range r.Anomalies {
			if a.Fatal {
				return Target{Checker: r.Name, Kind: a.Kind, Text: a.Text, Ops: a.Ops}, nil
			}
		}
	}
	return Target{}, fmt.Errorf("the run is invalid but names no fatal anomaly")
}

// Shows returns the first anomaly of v that matches t (same checker,
// invalid, a fatal anomaly of the same kind).
func (t Target) Shows(v checker.Result) (checker.Anomaly, bool) {
	for _, r := range v.Results {
		if r.Name != t.Checker || r.Valid != checker.Invalid {
			continue
		}
		for _, a := range r.Anomalies {
			if a.Fatal && a.Kind == t.Kind {
				return a, true
			}
		}
	}
	return checker.Anomaly{}, false
}
