package merge

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/sweep"
)

// mergeSweep writes the sweep folder of the united cells into the output
// store (sweep.Merged: table, heat maps, index.html, recommendation),
// prints what `lockstorm sweep` prints at its end and makes its JUnit.
func mergeSweep(w *shard.Work, dirs []string, o Options, res *Result) error {
	var raw sweep.Raw
	if err := json.Unmarshal(w.Key, &raw); err != nil {
		return fmt.Errorf("%w: sweep shards: unreadable settings: %v", ErrMerge, err)
	}
	raw.Store = o.Out
	spec, err := raw.Spec()
	if err != nil {
		return fmt.Errorf("%w: sweep %s: %v", ErrMerge, w.Name, err)
	}
	var cells []sweep.CellResult
	for i, it := range w.Items {
		var cr sweep.CellResult
		if err := json.Unmarshal(it.Data, &cr); err != nil {
			return fmt.Errorf("%w: %s: sweep cell %d: unreadable: %v", ErrMerge, w.Roots[i], it.Index, err)
		}
		cr.Dir = filepath.ToSlash(dirs[i])
		cells = append(cells, cr)
	}
	sr, err := sweep.Merged(spec, cells, w.Started, w.Elapsed, w.Interrupted)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	fmt.Fprintf(o.Stdout, "sweep %s: %d cells x %d runs merged from %d shards, folder %s\n", spec.Name, sr.Total/spec.Runs, spec.Runs, w.N, sr.Dir)
	if len(sr.Cells) > 0 {
		fmt.Fprintln(o.Stdout)
		fmt.Fprint(o.Stdout, sweep.PointsMarkdown(spec.Grid, spec.Runs, sweep.Aggregate(spec.Grid, sr.Cells)))
		fmt.Fprintf(o.Stdout, "\ntable: %s\nindex: %s\n", filepath.Join(sr.Dir, sweep.TableMDFile), filepath.Join(sr.Dir, sweep.IndexFile))
		fmt.Fprintf(o.Stdout, "\nrecommendation: %s\n", sr.Recommendation.Text)
	}
	if res.JUnit, err = sweep.JUnit(sr); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	res.Report = filepath.Join(sr.Dir, sweep.IndexFile)
	res.Status = checker.Valid
	res.Summary = fmt.Sprintf("sweep %s: all %d runs merged", spec.Name, sr.Total)
	if !sr.Complete() {
		res.Status = checker.Unknown
		res.Summary = fmt.Sprintf("interrupted: %d of %d runs finished; rerun the interrupted shards to resume them", len(sr.Cells), sr.Total)
	}
	return nil
}
