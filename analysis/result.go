// Package analysis judges what a lockstorm run recorded: Result (a run's
// outcome: its history, read through a history.Source, and its verdict), Load
// and Analyze of a stored run, Check (the checkers, one streaming engine
// over the run's history, the coverage glue and the rules that make
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
	// History is every record of the run, read through a history.Source:
	// its history.jsonl (history.File) for a stored run or a run longer
	// than the harness's live tail (the recent records it keeps in
	// memory), which every reader reads streamed, or the records in memory
	// (history.Slice) for a short run or one built in memory. nil reads as
	// no record.
	History history.Source
	// Writes is the resource's own log of writes and fenced reads when it
	// is held in memory; nil when it is left in the run folder's
	// writes.jsonl (a stored run, a long run), which EachWrite reads.
	Writes []resource.Write
	// Records is the number of records in the history (Check counts them
	// when it is not given).
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
