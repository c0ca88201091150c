package merge

import (
	"fmt"

	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/reports"
)

// mergeCampaign rebuilds a campaign of package campaign (compare, power,
// zoo, sweep...) from its shards: the outcomes their manifests hold, the run
// folders copied; it prints the summary table and makes the campaign's
// JUnit document, as the unsharded command does.
func mergeCampaign(w *shard.Work, dirs []string, o Options, res *Result) error {
	rep, err := campaign.Merged(w, dirs, o.Out)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMerge, err)
	}
	fmt.Fprintf(o.Stdout, "%s merged from %d shards\n\n", w.Name, w.N)
	fmt.Fprint(o.Stdout, rep.Markdown())
	res.Report = rep.Dir
	if rep.Kind == "sweep" {
		if res.Report, err = mergeSweep(rep, o); err != nil {
			return err
		}
	}
	if res.JUnit, err = reports.MarshalJUnit(rep.JUnit()); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	res.Status = rep.Status()
	res.Summary = rep.StatusLine()
	return nil
}
