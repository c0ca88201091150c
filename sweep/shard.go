package sweep

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/internal/store"
)

// A sharded sweep is a sharded campaign (--shard K/N): run i of the
// grid's (cell, run) pairs, in Grid.Cells order, runs on shard i mod N.
// Its manifest's key carries the sweep's settings as a Raw
// (campaign.Spec.Extra): `lockstorm merge` rebuilds the Spec from it and
// checks that every shard ran the same sweep.

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
		Fencing: List(strings.Join(fencing, ",")), Seeds: s.Runs, TimeLimit: s.TimeLimit.String(),
		Clients: s.Clients, HoldMin: s.HoldMin.String(), HoldMax: s.HoldMax.String(), Topology: s.Topology,
		Nemesis: List(strings.Join(s.Grid.nemeses(), ",")), Process: s.Process, Subject: s.Grid.Lock, HoldTTLs: s.HoldTTLs}
}

// Merged writes the sweep of a campaign merged from its shards (package
// merge, campaign.Merged: rep's outcomes, their run folders copied into
// the store root out) as an unsharded sweep would have: sweep.json,
// cells/*.json, the table, heat maps, index.html and the
// recommendation, into a fresh folder. Each run's metrics are measured
// again from its copied folder.
func Merged(rep *campaign.Report, out string) (*Result, error) {
	var raw Raw
	if err := json.Unmarshal(rep.Extra, &raw); err != nil {
		return nil, fmt.Errorf("sweep shards: unreadable settings: %v", err)
	}
	raw.Store = out
	spec, err := raw.Spec()
	if err != nil {
		return nil, err
	}
	spec.Fresh = true
	dir := Dir(spec.Store, spec.Name)
	res := &Result{Spec: spec, Dir: dir, Total: rep.Total, Elapsed: rep.Elapsed, Interrupted: rep.Interrupted, Skipped: len(rep.Outcomes), Campaign: rep}
	if err := prepare(dir, spec); err != nil {
		return res, err
	}
	for _, o := range rep.Outcomes {
		c, ok := spec.cellOf(o.Cell, o.Seed)
		if !ok || o.Dir == "" || o.Error != "" {
			continue
		}
		cr := CellResult{Cell: c, Metrics: Metrics{Verdict: o.Verdict, LostUpdates: -1}, Elapsed: o.Elapsed, Finished: time.Now().UTC(), Dir: relTo(out, o.Dir)}
		refresh(out, &cr)
		if err := store.WriteJSON(filepath.Join(dir, CellsDir, c.ID()+".json"), cr); err != nil {
			return res, fmt.Errorf("sweep: %w", err)
		}
		res.Cells = append(res.Cells, cr)
	}
	res.Cells = inGridOrder(spec, res.Cells)
	return res, WriteOutputs(res)
}

// relTo is dir relative to root, with slashes.
func relTo(root, dir string) string {
	if rel, err := filepath.Rel(root, dir); err == nil {
		return filepath.ToSlash(rel)
	}
	return dir
}
