package sweep

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/store"
)

// A sharded sweep (Options.Shard) runs item i of the grid's (cell, run)
// pairs, in Grid.Cells order, when i mod N is its K, and writes a shard
// manifest (shards/sweep-<name>-<K>-of-<N>.json in the store) whose key is
// the sweep's settings as a Raw: `lockstorm merge` rebuilds the Spec from
// it and checks that every shard ran the same sweep.

// ToRaw is s written back as a Raw (without the store): Raw.Spec of it,
// with a store, gives s again.
func (s Spec) ToRaw() Raw {
	join := func(ds []time.Duration) List {
		var parts []string
		for _, d := range ds {
			parts = append(parts, d.String())
		}
		return List(strings.Join(parts, ","))
	}
	var renews, fencing []string
	for _, r := range s.Grid.Renews {
		renews = append(renews, r.Spec)
	}
	for _, f := range s.Grid.Fencing {
		fencing = append(fencing, onOff(f))
	}
	if len(fencing) == 0 {
		fencing = []string{"off"}
	}
	return Raw{Name: s.Name, TTL: join(s.Grid.TTLs), Renew: List(strings.Join(renews, ",")), Pause: join(s.Grid.Pauses),
		Fencing: List(strings.Join(fencing, ",")), Runs: s.Runs, TimeLimit: s.TimeLimit.String(), Seed: s.Seed,
		Clients: s.Clients, HoldMin: s.HoldMin.String(), HoldMax: s.HoldMax.String(), Topology: s.Topology}
}

// planned is how many runs of grid point p the result is meant to hold:
// spec.Runs, or for a shard the runs of p it owns (0: not its share).
func (r *Result) planned(p Point) int {
	if !r.Shard.Set() {
		return r.Spec.Runs
	}
	n := 0
	for i, c := range r.Spec.Grid.Cells(r.Spec.Runs) {
		if c.Point() == p && r.Shard.Owns(i) {
			n++
		}
	}
	return n
}

// writeManifest writes the shard manifest of res (a sharded sweep).
func writeManifest(res *Result) error {
	s := res.Shard
	cells := res.Spec.Grid.Cells(res.Spec.Runs)
	index := map[string]int{}
	for i, c := range cells {
		index[c.ID()] = i
	}
	m := &shard.Manifest{Kind: shard.KindSweep, Name: res.Spec.Name, K: s.K, N: s.N, Total: len(cells),
		Interrupted: !res.Complete(), Started: res.Started.UTC(), Elapsed: res.Elapsed, Version: harness.Version()}
	if err := m.SetKey(res.Spec.ToRaw()); err != nil {
		return err
	}
	for _, c := range res.Cells {
		if err := m.Add(index[c.ID()], c.Dir, c); err != nil {
			return err
		}
	}
	path, err := shard.Write(res.Spec.Store, m)
	res.Manifest = path
	return err
}

// Merged writes the sweep of spec from cells gathered from its shards
// (their Dir relative to spec.Store) as an unsharded sweep would have:
// sweep.json, cells/*.json, the table, heat maps, index.html and the
// recommendation, into a fresh folder. interrupted marks a sweep some of
// whose shards stopped early.
func Merged(spec Spec, cells []CellResult, started time.Time, elapsed time.Duration, interrupted bool) (*Result, error) {
	spec.Fresh = true
	dir := Dir(spec.Store, spec.Name)
	res := &Result{Spec: spec, Dir: dir, Total: len(spec.Grid.Cells(spec.Runs)), Started: started, Elapsed: elapsed,
		Interrupted: interrupted, Skipped: len(cells)}
	if err := prepare(dir, spec); err != nil {
		return res, err
	}
	byID := map[string]CellResult{}
	for _, c := range cells {
		byID[c.ID()] = c
	}
	for _, c := range spec.Grid.Cells(spec.Runs) {
		cr, ok := byID[c.ID()]
		if !ok {
			continue
		}
		cr.Cell = c
		if err := store.WriteJSON(filepath.Join(dir, CellsDir, c.ID()+".json"), cr); err != nil {
			return res, fmt.Errorf("sweep: %w", err)
		}
		res.Cells = append(res.Cells, cr)
	}
	return res, WriteOutputs(res)
}
