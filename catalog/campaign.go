package catalog

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
)

// CellName is row r's cell name in the campaign and its runs' test
// name: "catalog-02-unsafe-del".
func CellName(r Row) string { return fmt.Sprintf("catalog-%02d-%s", r.N, r.Config.Lock) }

// Cells are the rows as campaign cells: each row's run (its scripted
// faults, its own time limit unless timeLimit overrides it) claiming
// each of its expectations; the first claim's observation says when the
// first fatal anomaly was complete, after the first fault.
func Cells(rows []Row, timeLimit time.Duration) []campaign.Cell {
	var out []campaign.Cell
	for _, r := range rows {
		cfg := r.Config
		cfg.Name = CellName(r)
		if timeLimit > 0 {
			cfg.TimeLimit = timeLimit
		}
		c := campaign.Cell{Name: cfg.Name, Config: cfg}
		for i, e := range r.Expect {
			c.Claims = append(c.Claims, campaign.Claim{Name: "expected " + e.Desc, Judge: judge(e, i == 0)})
		}
		out = append(out, c)
	}
	return out
}

// judge is expectation e as a claim's judge; timed adds the detection
// time to what was observed.
func judge(e Expectation, timed bool) func(*analysis.Result) (checker.Validity, string) {
	return func(res *analysis.Result) (checker.Validity, string) {
		ok, seen := e.Check(res)
		if timed {
			if d := detection(res); d >= 0 {
				seen += fmt.Sprintf(", detected %.1fs after the first fault", d.Seconds())
			}
		}
		if ok {
			return checker.Valid, seen
		}
		return checker.Invalid, seen
	}
}

// Run runs the rows as a campaign (f: seeds, parallel, shard, store;
// timeLimit, when positive, replaces every row's own).
func Run(ctx context.Context, rows []Row, f config.Campaign, timeLimit time.Duration, runner harness.RunFunc, progress io.Writer) (*campaign.Report, error) {
	f.Only = nil // rows are picked by number (Select)
	return campaign.Run(ctx, campaign.Spec{Kind: "catalog", Cells: Cells(rows, timeLimit), Flags: f},
		campaign.Options{Runner: runner, Progress: progress})
}
