// Package analysis judges what a lockstorm run recorded: Result, Load and
// Analyze of a stored run, Check (the checkers, the coverage and the rules
// that make a verdict unknown), and the live counter. It runs nothing.
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
	// History is every record of the run: its history.jsonl, or the
	// records in memory for a short run; nil reads as none.
	History history.Source
	// Writes is the resource's log when held in memory; nil when left in
	// writes.jsonl (EachWrite reads either).
	Writes []resource.Write
	// Records is the number of records (Check counts them when 0).
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
	// Interrupted is true when ctx ended before the time limit: the run
	// is then Incomplete too.
	Interrupted bool
	// Incomplete says why the run was cut short or its stored history
	// cannot be trusted to be whole; its verdict is then never valid.
	Incomplete string
	// Overhead is what the harness added (also in test.json).
	Overhead *Overhead
	// ClockEvents are the clock steps the run's clock watch saw: a run
	// with one has an unknown verdict.
	ClockEvents []clockwatch.Event
}
