package sweep

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/config"
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
// each with a campaign manifest carrying the sweep's settings; the
// campaign merged from them (campaign.Merged) gives the unsharded
// sweep's verdicts and recommendation.
func TestShardsUniteToTheWholeSweep(t *testing.T) {
	root := t.TempDir()
	whole, err := Run(context.Background(), smallSpec(t, filepath.Join(root, "whole")), config.Campaign{}, Options{Runner: (&fakeRunner{}).run})
	if err != nil {
		t.Fatal(err)
	}
	var ms []*shard.Manifest
	for k := 0; k < 2; k++ {
		spec := smallSpec(t, filepath.Join(root, "s", string(rune('0'+k))))
		res, err := Run(context.Background(), spec, config.Campaign{Shard: shard.Shard{K: k, N: 2}}, Options{Runner: (&fakeRunner{}).run})
		if err != nil || !res.Complete() || res.Total != len(whole.Cells)/2 {
			t.Fatalf("shard %d: %d of %d cells, %v", k, len(res.Cells), res.Total, err)
		}
		got, err := shard.Read(spec.Store)
		if err != nil || len(got) != 1 || got[0].Kind != shard.KindCampaign || got[0].Total != len(whole.Cells) || len(got[0].Items) != res.Total {
			t.Fatalf("shard %d manifest %+v, %v", k, got, err)
		}
		ms = append(ms, got...)
	}
	w, err := shard.Combine(ms)
	if err != nil || !w.Complete() {
		t.Fatalf("combine: %v", err)
	}
	out := filepath.Join(root, "merged")
	dirs := make([]string, len(w.Items))
	for i, it := range w.Items {
		var o campaign.Outcome
		if err := json.Unmarshal(it.Data, &o); err != nil {
			t.Fatal(err)
		}
		dirs[i] = filepath.Join("copied", strings.ReplaceAll(o.Dir, "/", "_"))
		os.MkdirAll(filepath.Join(out, dirs[i]), 0o755)
	}
	rep, err := campaign.Merged(w, dirs, out)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := Merged(rep, out)
	if err != nil || !merged.Complete() {
		t.Fatalf("Merged: %d of %d, %v", len(merged.Cells), merged.Total, err)
	}
	for i := range whole.Cells {
		if w, m := whole.Cells[i], merged.Cells[i]; w.ID() != m.ID() || w.Verdict != m.Verdict {
			t.Errorf("cell %d: merged %s %v, want %s %v", i, m.ID(), m.Verdict, w.ID(), w.Verdict)
		}
	}
	if merged.Recommendation.Text != whole.Recommendation.Text {
		t.Errorf("merged recommendation %q, want %q", merged.Recommendation.Text, whole.Recommendation.Text)
	}
	if len(cellFiles(t, merged.Dir)) != len(whole.Cells) {
		t.Errorf("merged folder has %d cell files, want %d", len(cellFiles(t, merged.Dir)), len(whole.Cells))
	}
}
