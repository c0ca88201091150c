// Package campaign runs many runs and summarises them, the one shape of
// catalog, sweep, compare, power, zoo and `run --runs`: cells, each a run
// configuration with claims about its outcome, run once per seed,
// --parallel at once, --shard K/N a share of them. A campaign leaves a
// folder (campaign.json, summary.md), a JUnit document and, sharded, a
// manifest for `lockstorm merge`.
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
	// CellClaims are judged once over the cell's runs (sharded: this
	// shard's).
	CellClaims []CellClaim
	// Skip says why the cell cannot run here: its runs are skipped.
	Skip string
	// Broken says why the cell cannot run at all: its runs are errors.
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
	Name string // in words: "without fencing: lost updates or invalid"
	// Judge says whether the claim holds of a finished run (Unknown when
	// the run cannot say), and what the run showed.
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
	Name  string           `json:"name"`
	Holds checker.Validity `json:"holds"` // Valid: it holds; Unknown: the run could not say
	Seen  string           `json:"seen"`
}

// Outcome is one finished run of a cell.
type Outcome struct {
	// Index is the run's place in the campaign's order (cell major, seed
	// minor), the unit of --shard.
	Index int    `json:"index"`
	Cell  string `json:"cell"`
	Seed  int64  `json:"seed"`
	// Dir is the run folder; Replay its replay line.
	Dir     string           `json:"dir,omitempty"`
	Replay  string           `json:"replay,omitempty"`
	Verdict checker.Validity `json:"verdict"`
	Claims  []Judged         `json:"claims"`
	// Error says why the run did not run or finish; Skipped why it was not run.
	Error   string `json:"error,omitempty"`
	Skipped string `json:"skipped,omitempty"`
	// Resumed is set when the run finished before (Options.Resume).
	Resumed bool          `json:"resumed,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Result is the run itself, in memory only.
	Result *analysis.Result `json:"-"`
}

// Holds merges the run's claims (checker.Merge); Unknown when the run
// did not finish.
func (o Outcome) Holds() checker.Validity {
	if o.Error != "" {
		return checker.Unknown
	}
	out := checker.Valid
	for _, c := range o.Claims {
		out = checker.Merge(out, c.Holds)
	}
	return out
}

// Label is "cell seed S".
func (o Outcome) Label() string { return fmt.Sprintf("%s seed %d", o.Cell, o.Seed) }
