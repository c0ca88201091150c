// Package campaign runs many runs and summarises them, the one shape of
// catalog, sweep, compare, power, zoo and `run --runs`: a campaign is a
// list of cells, each a run configuration with claims about its outcome
// (an expected verdict, lost updates without fencing, a detection). Every
// cell runs once per seed (1..Seeds); the runs go --parallel at once,
// --shard K/N picks a share of them, and each finished run is one
// progress line. The campaign leaves one folder
// (<store>/campaigns/<kind>-<time>/: campaign.json and summary.md), one
// summary table, one JUnit document (each claim of each run a test case
// that passes when the claim holds) and, when sharded, a manifest that
// `lockstorm merge` combines with the other shards'.
package campaign

import (
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
)

// Cell is one run configuration of a campaign and what it claims.
type Cell struct {
	// Name tells the cell apart in the campaign (--only picks by it).
	Name string
	// Config is the run's configuration; its Seed is set per run.
	Config config.Config
	// Claims are judged on each run of the cell.
	Claims []Claim
	// CellClaims are judged once over all the cell's runs here (a zoo
	// cell: "detected in some seed"); sharded, over each shard's runs.
	CellClaims []CellClaim
	// Skip, when set, says why the cell cannot run here (a missing
	// runtime): its runs are shown as skipped, never as passed.
	Skip string
	// Broken, when set, says why the cell cannot run at all (its build
	// failed): each of its runs is an error outcome.
	Broken string
}

// CellClaim is something a cell's runs show together.
type CellClaim struct {
	Name  string
	Judge func(runs []Outcome) (checker.Validity, string)
}

// CellJudged is a cell claim judged over the cell's runs.
type CellJudged struct {
	Cell string `json:"cell"`
	Judged
}

// Claim is something a cell's run should show.
type Claim struct {
	// Name is the claim in words: "without fencing: lost updates or
	// invalid".
	Name string
	// Judge says whether the claim holds of a finished run, and what the
	// run showed; Unknown when the run cannot say (an unknown verdict).
	Judge func(res *analysis.Result) (checker.Validity, string)
}

// Expect is the claim that a run's verdict is want.
func Expect(want checker.Validity) Claim {
	return Claim{Name: "verdict " + want.String(), Judge: func(res *analysis.Result) (checker.Validity, string) {
		got := res.Verdict.Valid
		switch {
		case got == want:
			return checker.Valid, "verdict " + got.String()
		case got == checker.Unknown:
			return checker.Unknown, "verdict unknown: " + res.Verdict.Error
		}
		return checker.Invalid, "verdict " + got.String()
	}}
}

// Judged is a claim judged on one run.
type Judged struct {
	Name string `json:"name"`
	// Holds is Valid when the claim holds, Invalid when it does not,
	// Unknown when the run could not say.
	Holds checker.Validity `json:"holds"`
	Seen  string           `json:"seen"`
}

// Outcome is one finished run of a cell.
type Outcome struct {
	// Index is the run's place in the campaign's stable order (cell
	// major, seed minor), the unit of --shard.
	Index int    `json:"index"`
	Cell  string `json:"cell"`
	Seed  int64  `json:"seed"`
	// Dir is the run folder; Replay its replay line.
	Dir    string `json:"dir,omitempty"`
	Replay string `json:"replay,omitempty"`
	// Verdict is the run's verdict.
	Verdict checker.Validity `json:"verdict"`
	Claims  []Judged         `json:"claims"`
	// Error says why the run did not run or finish; Skipped why it was
	// not run.
	Error   string `json:"error,omitempty"`
	Skipped string `json:"skipped,omitempty"`
	// Resumed is set when the run finished before (Options.Resume).
	Resumed bool          `json:"resumed,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Result is the run itself, in memory only.
	Result *analysis.Result `json:"-"`
}

// Holds is whether every claim of the run held: Valid, Invalid when one
// did not, Unknown when none failed but one could not be judged (or the
// run did not finish).
func (o Outcome) Holds() checker.Validity {
	if o.Error != "" {
		return checker.Unknown
	}
	out := checker.Valid
	for _, c := range o.Claims {
		switch c.Holds {
		case checker.Invalid:
			return checker.Invalid
		case checker.Unknown:
			out = checker.Unknown
		}
	}
	return out
}

// Label is "cell seed S".
func (o Outcome) Label() string { return fmt.Sprintf("%s seed %d", o.Cell, o.Seed) }
