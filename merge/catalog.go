package merge

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/catalog"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/reports"
)

// CatalogTableFile is the merged catalogue's table in the output store:
// the lines `lockstorm catalog` prints, one per row.
const CatalogTableFile = "catalog.txt"

// mergeCatalog rebuilds the catalogue run's outcomes from the shards:
// prints the table `lockstorm catalog` prints, writes it to
// CatalogTableFile and the JUnit document (one case per row).
func mergeCatalog(w *shard.Work, dirs []string, o Options, res *Result) error {
	var key catalog.ShardKey
	if err := json.Unmarshal(w.Key, &key); err != nil {
		return fmt.Errorf("%w: catalogue shards: unreadable key: %v", ErrMerge, err)
	}
	opt := catalog.Options{Seed: key.Seed, Quick: key.Quick, Only: key.Only}
	rows, err := catalog.Select(opt)
	if err != nil || !slices.Equal(catalog.KeyOf(opt, rows).Rows, key.Rows) || len(rows) != w.Total {
		return fmt.Errorf("%w: the shards ran a catalogue other than this lockstorm's (rows %s): merge with the lockstorm that ran them", ErrMerge, strings.Join(key.Rows, "; "))
	}
	var ran, notRun []catalog.Row
	var outs []catalog.Outcome
	done := map[int]bool{}
	for i, it := range w.Items {
		var st catalog.Stored
		if err := json.Unmarshal(it.Data, &st); err != nil {
			return fmt.Errorf("%w: %s: catalogue row %d: unreadable outcome: %v", ErrMerge, w.Roots[i], it.Index, err)
		}
		dir := ""
		if dirs[i] != "" {
			dir = filepath.Join(o.Out, dirs[i])
		}
		ran = append(ran, rows[it.Index])
		outs = append(outs, st.Outcome(rows[it.Index], dir))
		done[it.Index] = true
	}
	for i, r := range rows {
		if !done[i] {
			notRun = append(notRun, r)
		}
	}
	fmt.Fprintf(o.Stdout, "catalogue of %d rows (seed %d) merged from %d shards\n", len(rows), key.Seed, w.N)
	var table strings.Builder
	bad := 0
	for _, oc := range outs {
		fmt.Fprintln(&table, catalog.Line(oc))
		if !oc.Agree {
			bad++
		}
	}
	fmt.Fprint(o.Stdout, table.String())
	res.Report = filepath.Join(o.Out, CatalogTableFile)
	if err := store.WriteFile(res.Report, []byte(table.String())); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	// Rows that did not run (an interrupted shard) go last: JUnit skips
	// the rows past the outcomes.
	doc := catalog.JUnit(append(ran, notRun...), outs, key.Seed, w.Started)
	if res.JUnit, err = reports.MarshalJUnit(doc); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	switch {
	case len(notRun) > 0:
		res.Status = checker.Unknown
		res.Summary = fmt.Sprintf("interrupted: %d of %d rows ran", len(outs), len(rows))
	case bad > 0:
		res.Status = checker.Invalid
		res.Summary = fmt.Sprintf("%d of %d catalogue rows disagree with their expectation", bad, len(outs))
	default:
		res.Status = checker.Valid
		res.Summary = fmt.Sprintf("all %d rows agree", len(outs))
	}
	return nil
}
