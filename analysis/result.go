// Package analysis judges what a lockstorm run recorded: Result (a run's
// outcome: its history, in memory or in its file, and its verdict), Load
// and Analyze of a stored run, Check (the checkers, one streaming engine
// over the run's history.Source, the coverage glue and the rules that make
// an incomplete or unexercised run's verdict unknown), and the live
// counter that spots violations while a run goes on. It runs nothing:
// package harness runs a config.Config and hands its history here.
package analysis

import (
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/clockwatch"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/resource"
)

// Result is what a run leaves behind.
type Result struct {
	// Dir is the run's folder in the store.
	Dir string
	// Config is the configuration after defaults, with the seed used.
	Config config.Config
	// History is every record of the run; empty for a big history (see
	// HistoryFile).
	History history.History
	// Writes is the resource's own log of every write it received; empty
	// for a big history (the check reads writes.jsonl).
	Writes []resource.Write
	// HistoryFile is set for a big history (BigHistoryRecords records or
	// more, or too many for the available memory, see Streamed): the path
	// of its history.jsonl, which the check, the coverage and the report
	// read in streamed passes instead of holding the history (and the
	// resource's log) in memory. Empty otherwise.
	HistoryFile string
	// Records is the number of records in the history (len(History) when
	// it is in memory).
	Records int
	// Plan is the fault schedule that was executed (nil: no faults).
	Plan *nemesis.Plan
	// Final is the resource's counter values read after the run (counter
	// workload only).
	Final map[string]int64
	// Verdict is the checkers' result (also in results.json).
	Verdict checker.Result
	// Coverage is what the run's faults touched (nil for a run without
	// faults); a shortfall makes a valid verdict unknown.
	Coverage *coverage.Report
	// Interrupted is true when ctx ended before the time limit (SIGINT,
	// SIGTERM): the run is incomplete (Incomplete says when and why), its
	// test.json gets no completion mark, and its verdict is at best
	// unknown.
	Interrupted bool
	// Incomplete says why the run was cut short, or why its stored
	// history cannot be trusted to be whole (e.g. "history write failed:
	// ... no space left on device"); empty for a complete run. The verdict
	// of an incomplete run is never valid: at best unknown, invalid when a
	// violation was found in what was recorded.
	Incomplete string
	// Overhead is what the harness added: its record rate and the
	// proxies' latency (also in test.json).
	Overhead *Overhead
	// ClockEvents are the steps of the machine's or a node's clock the
	// run's clock watch saw (package clockwatch): a run with one has no
	// verdict (unknown), naming it.
	ClockEvents []clockwatch.Event
}

// Source is the run's history to read: its file for a big history
// (HistoryFile, History not held), else the records in memory.
func (r *Result) Source() history.Source {
	if r.HistoryFile != "" && r.History == nil {
		return history.File(r.HistoryFile)
	}
	return history.Slice(r.History)
}
