package merge

import (
	"fmt"
	"path/filepath"

	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/sweep"
)

// mergeSweep writes the sweep folder of a sweep campaign merged from its
// shards into the output store (sweep.Merged: table, heat maps,
// index.html, recommendation) and prints what `lockstorm sweep` prints at
// its end besides the campaign's summary.
func mergeSweep(rep *campaign.Report, o Options) (string, error) {
	sr, err := sweep.Merged(rep, o.Out)
	if err != nil {
		return "", fmt.Errorf("merge: %w", err)
	}
	spec := sr.Spec
	fmt.Fprintf(o.Stdout, "\nsweep %s: %d cells x %d seeds, folder %s\n", spec.Name, sr.Total/spec.Runs, spec.Runs, sr.Dir)
	if len(sr.Cells) > 0 {
		fmt.Fprint(o.Stdout, sweep.PointsMarkdown(spec.Grid, spec.Runs, sweep.Aggregate(spec.Grid, sr.Cells)))
		fmt.Fprintf(o.Stdout, "\ntable: %s\nindex: %s\n", filepath.Join(sr.Dir, sweep.TableMDFile), filepath.Join(sr.Dir, sweep.IndexFile))
		fmt.Fprintf(o.Stdout, "\nrecommendation: %s\n", sr.Recommendation.Text)
	}
	return filepath.Join(sr.Dir, sweep.IndexFile), nil
}
