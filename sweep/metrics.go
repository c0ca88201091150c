package sweep

import (
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/resource"
)

// Metrics are the numbers of one run that a sweep or comparison shows.
type Metrics struct {
	Verdict checker.Validity `json:"verdict"`
	// LostUpdates is the counter's acknowledged increments minus its
	// final value (a lower bound); -1 when unknown.
	LostUpdates int64 `json:"lost_updates"`
	// Writes is the number of increments the resource acknowledged.
	Writes int `json:"writes"`
	// Overlaps counts holder intervals of different clients that
	// intersect (the exclusion checker).
	Overlaps int `json:"overlaps"`
	// LateWrites counts writes the resource accepted although the writer's
	// lease validity had passed, and that checker.LateWriteFatal judges
	// fatal (the exclusion checker). LateInOrder counts those it judges
	// harmless: accepted by a fencing resource in token order, before any
	// newer token reached it.
	LateWrites  int `json:"late_writes"`
	LateInOrder int `json:"late_writes_in_order,omitempty"`
	// StaleAccepted and StaleRejected count writes (and, rejected, fenced
	// reads) whose fencing token was lower than one the resource had
	// accepted before, by the resource's answer: from the resource's own write log when the run has one (it
	// is the ground truth of arrival order), else from the fencing
	// checker (which only counts what the history proves: a write delayed
	// across a pause may have arrived earlier, so it counts fewer).
	StaleAccepted int64 `json:"stale_accepted"`
	StaleRejected int64 `json:"stale_rejected"`
	// Acquires counts acquire calls by outcome; SuccessRate is ok over
	// completed ones (the liveness checker).
	AcquiresOK  int     `json:"acquires_ok"`
	AcquiresAll int     `json:"acquires_all"`
	SuccessRate float64 `json:"success_rate"`
	// WaitP50 and WaitP99 are the waits of successful acquires.
	WaitP50 time.Duration `json:"wait_p50_ns"`
	WaitP99 time.Duration `json:"wait_p99_ns"`
	// Throughput is successful acquires per second of the time limit.
	Throughput float64 `json:"throughput"`
	// LockLosses counts "lost" records: a holder learned from its lock
	// (the watchdog) that its lease was lost.
	LockLosses int `json:"lock_losses"`
	// Faults is the number of faults the nemesis started.
	Faults int `json:"faults"`
}

// Violations is the sum of the violations the table lists: lost updates,
// overlaps and stale writes accepted (unknown lost updates count 0).
func (m Metrics) Violations() int64 {
	return max(m.LostUpdates, 0) + int64(m.Overlaps) + m.StaleAccepted
}

// MetricsOf extracts the metrics from a finished run. It reads the
// checkers' typed details, which a result loaded from results.json has
// too (checker.Result.UnmarshalJSON), so both measure the same.
func MetricsOf(res *analysis.Result) Metrics {
	m := Metrics{Verdict: res.Verdict.Valid, LostUpdates: -1}
	for _, r := range res.Verdict.Results {
		switch d := r.Details.(type) {
		case checker.ResourceDetails:
			m.Writes, m.LostUpdates = counterMetrics(d)
		case checker.ExclusionDetails:
			m.Overlaps = d.Overlaps
			m.LateWrites = d.WritesAfterValidity["accepted"]
			m.LateInOrder = d.WritesAfterValidity["accepted-in-order"]
		case checker.FencingStats:
			m.StaleAccepted, m.StaleRejected = d.StaleAccepted, d.Rejected+d.ReadsRejected
		case checker.LivenessDetails:
			m.AcquiresOK = d.Acquires.OK
			m.AcquiresAll = d.Acquires.OK + d.Acquires.Fail + d.Acquires.Info
			m.SuccessRate = d.SuccessRate
			m.WaitP50, m.WaitP99 = time.Duration(d.Wait.P50), time.Duration(d.Wait.P99)
		}
	}
	var logged int
	var accepted, rejected int64
	err := res.EachWrite(func(w *resource.Write) {
		logged++
		switch {
		case w.Stale && w.Accepted && w.Read:
			// a read served to a stale holder changes nothing itself
		case w.Stale && w.Accepted:
			accepted++
		case w.Stale:
			rejected++
		}
	})
	if err == nil && logged > 0 {
		m.StaleAccepted, m.StaleRejected = accepted, rejected
	}
	_ = res.EachRecord(func(op *history.Op) { // a history cut short counts what was read
		switch {
		case op.F == history.FLost && op.Type == history.OK && !op.IsNemesis():
			m.LockLosses++
		case op.IsNemesis() && op.F == history.FStart && op.Type == history.Invoke:
			m.Faults++
		}
	})
	if tl := res.Config.TimeLimit; tl > 0 {
		m.Throughput = float64(m.AcquiresOK) / tl.Seconds()
	}
	return m
}

// counterMetrics are the increments the resource acknowledged and the
// updates lost over every counter (-1 when any counter's loss is
// unknown, or there is no counter).
func counterMetrics(d checker.ResourceDetails) (writes int, lost int64) {
	known := len(d.Counter) > 0
	for _, c := range d.Counter {
		writes += c.Acked
		if c.Lost < 0 {
			known = false
		}
		lost += max(c.Lost, 0)
	}
	if !known {
		lost = -1
	}
	return writes, lost
}
