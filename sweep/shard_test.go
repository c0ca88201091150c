package sweep

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/internal/shard"
)

// ToRaw gives back the Spec it was made from.
func TestToRawRoundTrip(t *testing.T) {
	raw := DefaultRaw()
	raw.Pause = "0,300ms,1.5s"
	spec, err := raw.Spec()
	if err != nil {
		t.Fatal(err)
	}
	back := spec.ToRaw()
	back.Store = spec.Store
	again, err := back.Spec()
	if err != nil || !reflect.DeepEqual(again, spec) {
		t.Fatalf("ToRaw().Spec() = %+v, %v\nwant %+v", again, err, spec)
	}
}

// Two shards of a sweep run disjoint halves of the (cell, run) pairs,
// their JUnit lists only their points with the runs they own, and the
// merged cells give the unsharded sweep's verdicts and recommendation.
func TestShardsUniteToTheWholeSweep(t *testing.T) {
	root := t.TempDir()
	whole, err := Run(context.Background(), smallSpec(t, filepath.Join(root, "whole")), Options{Runner: (&fakeRunner{}).run})
	if err != nil {
		t.Fatal(err)
	}
	var cells []CellResult
	seen := map[int]int{}
	for k := 0; k < 2; k++ {
		spec := smallSpec(t, filepath.Join(root, "s", string(rune('0'+k))))
		res, err := Run(context.Background(), spec, Options{Runner: (&fakeRunner{}).run, Shard: shard.Shard{K: k, N: 2}})
		if err != nil || !res.Complete() || res.Total != whole.Total/2 {
			t.Fatalf("shard %d: %d of %d cells, %v", k, len(res.Cells), res.Total, err)
		}
		ms, err := shard.Read(spec.Store)
		if err != nil || len(ms) != 1 || ms[0].Kind != shard.KindSweep || ms[0].Total != whole.Total || len(ms[0].Items) != res.Total {
			t.Fatalf("shard %d manifest %+v, %v", k, ms, err)
		}
		for _, it := range ms[0].Items {
			seen[it.Index]++
			var cr CellResult
			if err := json.Unmarshal(it.Data, &cr); err != nil {
				t.Fatal(err)
			}
			cells = append(cells, cr)
		}
		b, err := JUnit(res)
		if err != nil || strings.Contains(string(b), "<error") || strings.Contains(string(b), "<skipped") {
			t.Errorf("shard %d JUnit has errors or skipped points (another shard's share?):\n%s", k, b)
		}
	}
	if len(seen) != whole.Total {
		t.Fatalf("shards ran %d distinct pairs, want %d", len(seen), whole.Total)
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("pair %d ran %d times", i, n)
		}
	}
	spec := smallSpec(t, filepath.Join(root, "merged"))
	merged, err := Merged(spec, cells, whole.Started, whole.Elapsed, false)
	if err != nil || !merged.Complete() {
		t.Fatalf("Merged: %d of %d, %v", len(merged.Cells), merged.Total, err)
	}
	if merged.Recommendation.Text != whole.Recommendation.Text {
		t.Errorf("merged recommendation %q, want %q", merged.Recommendation.Text, whole.Recommendation.Text)
	}
	for i := range whole.Cells {
		if w, m := whole.Cells[i], merged.Cells[i]; w.ID() != m.ID() || w.Verdict != m.Verdict {
			t.Errorf("cell %d: merged %s %v, want %s %v", i, m.ID(), m.Verdict, w.ID(), w.Verdict)
		}
	}
	if len(cellFiles(t, merged.Dir)) != whole.Total {
		t.Errorf("merged folder has %d cell files, want %d", len(cellFiles(t, merged.Dir)), whole.Total)
	}
}
