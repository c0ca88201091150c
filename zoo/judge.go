package zoo

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/checker"
)

// Status is what a run or a cell showed against its expectation.
type Status string

const (
	// Agree: the run or cell showed what was expected (for an invalid
	// cell: the named checkers flagged it and the clean ones did not).
	Agree Status = "agree"
	// Finding: it disagrees with the expectation.
	Finding Status = "finding"
	// Unknown: the verdicts cannot decide (unknown verdicts, a run that
	// failed to start or was cut short).
	Unknown Status = "unknown"
	// Missed: an invalid cell's run that the named checkers did not all
	// flag: the documented failure did not show.
	Missed Status = "missed"
	// Skipped: the entry's runtime is missing; nothing ran.
	Skipped Status = "skipped"
)

// RunOutcome is one seed's run of a cell.
type RunOutcome struct {
	Seed    int64  `json:"seed"`
	Dir     string `json:"dir,omitempty"`
	Verdict string `json:"verdict"`
	// Flagged are the checkers whose verdict was invalid.
	Flagged []string `json:"flagged,omitempty"`
	Status  Status   `json:"status"`
	// Detected: an invalid cell's run that every checker it names flagged
	// (also when a clean checker was flagged too: a finding).
	Detected bool `json:"detected,omitempty"`
	// DetectedS is when the first fatal anomaly's evidence was complete,
	// seconds since the run started; absent when nothing was found.
	DetectedS *float64 `json:"detected_s,omitempty"`
	// First is the first fatal anomaly's text (it names op indices).
	First   string  `json:"first_anomaly,omitempty"`
	Replay  string  `json:"replay,omitempty"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
}

// detects reports whether every checker an invalid cell names flagged
// the run.
func detects(c Cell, flagged []string) bool {
	return c.Expect == ExpectInvalid && !slices.ContainsFunc(c.Checkers, func(n string) bool { return !slices.Contains(flagged, n) })
}

// judgeRun decides one run against the cell: its status, flagged
// checkers and first fatal anomaly.
func judgeRun(c Cell, v checker.Result) (Status, []string, string) {
	flagged := invalidCheckers(v)
	status := Missed
	switch {
	case c.Expect == ExpectValid && v.Valid == checker.Valid:
		status = Agree
	case c.Expect == ExpectValid && v.Valid == checker.Invalid:
		status = Finding
	case c.Expect == ExpectValid:
		status = Unknown
	case slices.ContainsFunc(c.Clean, func(n string) bool { return slices.Contains(flagged, n) }):
		status = Finding
	case detects(c, flagged):
		status = Agree
	case v.Valid == checker.Unknown:
		status = Unknown
	}
	return status, flagged, firstFatal(v)
}

// invalidCheckers names the checkers whose verdict is invalid, sorted.
func invalidCheckers(v checker.Result) []string {
	var out []string
	for _, r := range v.Results {
		if r.Valid == checker.Invalid {
			out = append(out, r.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// firstFatal is the text of the first fatal anomaly, with its checker
// and op indices.
func firstFatal(v checker.Result) string {
	for _, r := range v.Results {
		for _, a := range r.Anomalies {
			if a.Fatal {
				return fmt.Sprintf("%s: %s: %s (ops %v)", r.Name, a.Kind, a.Text, a.Ops)
			}
		}
	}
	return ""
}

// CellOutcome is a cell over its seeds.
type CellOutcome struct {
	Cell   Cell   `json:"cell"`
	Column string `json:"column"`
	Status Status `json:"status"`
	// Class is what the cell means on the scoreboard (known bug
	// reproduced, fixed version clean, new finding, missed, unknown).
	Class Class        `json:"class"`
	Runs  []RunOutcome `json:"runs,omitempty"`
	// Summary is "k/N valid" (expect valid) or "k/N detected".
	Summary string `json:"summary"`
	// Flagged is every checker any run flagged.
	Flagged []string `json:"flagged,omitempty"`
	// MedianDetectS is the median time to detect over the runs that
	// found something, seconds since the run started.
	MedianDetectS *float64 `json:"median_detect_s,omitempty"`
	// Skipped says why nothing ran.
	Skipped string `json:"skipped,omitempty"`
}

// judgeCell aggregates a cell's runs by zoo/README.md's rules.
func judgeCell(c Cell, runs []RunOutcome) CellOutcome {
	out := CellOutcome{Cell: c, Column: c.Column(), Runs: runs}
	count := map[Status]int{}
	var detect []float64
	detected := 0
	for _, r := range runs {
		count[r.Status]++
		out.Flagged = append(out.Flagged, r.Flagged...)
		if r.DetectedS != nil {
			detect = append(detect, *r.DetectedS)
		}
		if r.Detected || r.Status == Agree {
			detected++
		}
	}
	slices.Sort(out.Flagged)
	out.Flagged = slices.Compact(out.Flagged)
	if len(detect) > 0 {
		slices.Sort(detect)
		m := detect[len(detect)/2]
		if len(detect)%2 == 0 {
			m = (detect[len(detect)/2-1] + m) / 2
		}
		out.MedianDetectS = &m
	}
	n, valid := len(runs), c.Expect == ExpectValid
	out.Summary = fmt.Sprintf("%d/%d detected", detected, n)
	if valid {
		out.Summary = fmt.Sprintf("%d/%d valid", count[Agree], n)
	}
	switch {
	case count[Finding] > 0:
		out.Status = Finding
	case valid && n > 0 && count[Agree] == n, !valid && count[Agree] > 0:
		out.Status = Agree
	case !valid && n > 0 && count[Missed] == n:
		out.Status = Missed
	default:
		out.Status = Unknown
	}
	out.Class = classOf(c, out.Status)
	return out
}

// seconds is d in seconds, rounded to milliseconds.
func seconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

// Expected says in a few words what the cell expects.
func (c Cell) Expected() string {
	if c.Expect == ExpectValid {
		return "valid"
	}
	s := "invalid (" + strings.Join(c.Checkers, ", ") + ")"
	if len(c.Clean) > 0 {
		s += ", " + strings.Join(c.Clean, ", ") + " clean"
	}
	return s
}
