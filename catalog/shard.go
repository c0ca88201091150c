package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/shard"
)

// Pick is the share of rows (the selection, in its order) that shard s
// runs: row i of rows belongs to shard i mod N. It returns the rows and
// their positions in rows. The whole work (zero s) is every row.
func Pick(rows []Row, s shard.Shard) (owned []Row, index []int) {
	for i, r := range rows {
		if s.Owns(i) {
			owned = append(owned, r)
			index = append(index, i)
		}
	}
	return owned, index
}

// ShardKey is what the shards of one catalogue run agree on: the
// selection (quick, only), the rows it gave and the seed.
type ShardKey struct {
	Seed  int64    `json:"seed"`
	Quick bool     `json:"quick,omitempty"`
	Only  []int    `json:"only,omitempty"`
	Rows  []string `json:"rows"`
}

// KeyOf is the shard key of a selection.
func KeyOf(o Options, rows []Row) ShardKey {
	k := ShardKey{Seed: o.Seed, Quick: o.Quick, Only: o.Only}
	if k.Seed == 0 {
		k.Seed = 1
	}
	for _, r := range rows {
		k.Rows = append(k.Rows, rowKey(r))
	}
	return k
}

func rowKey(r Row) string { return fmt.Sprintf("%d %s: %s", r.N, r.Lock, r.Fault) }

// Stored is a row's outcome as a shard manifest keeps it: everything
// Line and JUnit show.
type Stored struct {
	Agree    bool     `json:"agree"`
	Observed []string `json:"observed"`
	// Elapsed and Detected are in nanoseconds (Detected negative when
	// nothing was found).
	Elapsed  time.Duration `json:"elapsed_ns"`
	Detected time.Duration `json:"detected_ns"`
	// Err is the run's error, if it failed to run.
	Err string `json:"error,omitempty"`
	// Verdict is the run's overall verdict ("unknown" without a run).
	Verdict checker.Validity `json:"verdict"`
}

// Keep keeps oc for a shard manifest.
func Keep(oc Outcome) Stored {
	s := Stored{Agree: oc.Agree, Observed: oc.Observed, Elapsed: oc.Elapsed, Detected: oc.Detected, Verdict: checker.Unknown}
	if oc.Err != nil {
		s.Err = oc.Err.Error()
	}
	if oc.Result != nil {
		s.Verdict = oc.Result.Verdict.Valid
	}
	return s
}

// Outcome rebuilds the outcome of row r, its run now in folder dir.
func (s Stored) Outcome(r Row, dir string) Outcome {
	oc := Outcome{Row: r, Agree: s.Agree, Observed: s.Observed, Elapsed: s.Elapsed, Detected: s.Detected, Dir: dir}
	if s.Err != "" {
		oc.Err = errors.New(s.Err)
	} else {
		oc.Result = &analysis.Result{Dir: dir, Verdict: checker.Result{Valid: s.Verdict}}
	}
	return oc
}

// Manifest is shard s's manifest of a catalogue run: all is the whole
// selection, index the positions of the rows the shard ran (Pick), out
// their outcomes (shorter when interrupted).
func Manifest(o Options, all []Row, s shard.Shard, index []int, out []Outcome, started time.Time) (*shard.Manifest, error) {
	m := &shard.Manifest{Kind: shard.KindCatalog, K: s.K, N: s.N, Total: len(all), Started: started.UTC(),
		Elapsed: time.Since(started), Interrupted: len(out) < len(index), Version: harness.Version()}
	if err := m.SetKey(KeyOf(o, all)); err != nil {
		return nil, err
	}
	for i, oc := range out {
		dir := oc.Dir
		if rel, err := filepath.Rel(o.Store, dir); err == nil && dir != "" {
			dir = rel
		}
		if err := m.Add(index[i], dir, Keep(oc)); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// RunShard runs shard s of the selection rows (Pick) and writes its
// manifest into the store. It returns the rows it ran, their outcomes
// and where the manifest is.
func RunShard(ctx context.Context, rows []Row, s shard.Shard, o Options) ([]Row, []Outcome, string, error) {
	started := time.Now()
	owned, index := Pick(rows, s)
	out := Run(ctx, owned, o)
	m, err := Manifest(o, rows, s, index, out, started)
	if err != nil {
		return owned, out, "", err
	}
	path, err := shard.Write(o.Store, m)
	return owned, out, path, err
}
