package merge

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/reports"
)

// CampaignSummaryFile is the merged campaign's summary in the output
// store: what `lockstorm run --runs` prints at its end.
const CampaignSummaryFile = "campaign.txt"

// mergeRuns rebuilds a `run --runs` campaign from its shards' run
// folders (analysis.LoadChecked: the verdicts as checked, not checked
// again), prints the campaign summary and makes the JUnit document (one
// suite per run, named <test>.run<i>).
func mergeRuns(w *shard.Work, dirs []string, o Options, res *Result) error {
	var key harness.CampaignKey
	if err := json.Unmarshal(w.Key, &key); err != nil {
		return fmt.Errorf("%w: campaign shards: unreadable key: %v", ErrMerge, err)
	}
	c := &analysis.Campaign{Base: key.Base, Planned: w.Total, Total: w.Total, Interrupted: w.Interrupted || !w.Complete()}
	var suites []reports.JUnitSuite
	var verdicts []checker.Validity
	for i, it := range w.Items {
		run, err := analysis.LoadChecked(filepath.Join(o.Out, dirs[i]))
		if err != nil {
			return fmt.Errorf("%w: %s: run %d: %v", ErrMerge, w.Roots[i], it.Index+1, err)
		}
		c.Runs = append(c.Runs, run)
		c.Numbers = append(c.Numbers, it.Index+1)
		verdicts = append(verdicts, run.Verdict.Valid)
		s := reports.RunSuite(run)
		suites = append(suites, s.Renamed(fmt.Sprintf("%s.run%d", s.Name, it.Index+1)))
	}
	c.Verdict = analysis.Aggregate(verdicts, c.Interrupted)
	var summary strings.Builder
	fmt.Fprintf(&summary, "campaign %s merged from %d shards\n", w.Name, w.N)
	reports.RepeatSummary(&summary, c)
	fmt.Fprint(o.Stdout, summary.String())
	res.Report = filepath.Join(o.Out, CampaignSummaryFile)
	if err := store.WriteFile(res.Report, []byte(summary.String())); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	var err error
	if res.JUnit, err = reports.MarshalJUnit(reports.JUnitDocument(suites...)); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	res.Status = c.Verdict
	res.Summary = fmt.Sprintf("campaign verdict %s: %d of %d runs", c.Verdict, len(c.Runs), w.Total)
	return nil
}
