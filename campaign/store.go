package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/shard"
	"github.com/lockstorm/lockstorm/internal/store"
)

// A campaign's runs are ordinary run folders; its own folder is
// <store>/campaigns/<kind>[-<name>]/<time>/.
const (
	Folder      = "campaigns"       // under the store root
	ReportFile  = "campaign.json"   // the Report as JSON
	SummaryFile = "summary.md"      // its summary table
	dirLayout   = "20060102-150405" // a campaign folder's name: its start
)

// key is what the shards of one campaign agree on: every cell's
// configuration (seed and store left out) and claims, and Spec.Extra.
type key struct {
	Kind  string          `json:"kind"`
	Name  string          `json:"name,omitempty"`
	Seeds int             `json:"seeds"`
	Cells []keyCell       `json:"cells"`
	Extra json.RawMessage `json:"extra,omitempty"`
}

type keyCell struct {
	Name   string        `json:"name"`
	Config config.Config `json:"config"`
	Claims []string      `json:"claims"`
	Skip   string        `json:"skip,omitempty"`
}

func keyOf(spec Spec, cells []Cell, extra json.RawMessage) key {
	k := key{Kind: spec.Kind, Name: spec.Name, Seeds: max(spec.Flags.Seeds, 1), Extra: extra}
	for _, c := range cells {
		cfg := c.Config
		cfg.Seed, cfg.Store, cfg.OnProgress, cfg.Log = 0, "", nil, nil
		kc := keyCell{Name: c.Name, Config: cfg, Skip: c.Skip}
		for _, cl := range c.Claims {
			kc.Claims = append(kc.Claims, cl.Name)
		}
		k.Cells = append(k.Cells, kc)
	}
	return k
}

// label is "<kind>[-<name>]", the campaign's folder and manifest name.
func (r *Report) label() string {
	if r.Name == "" {
		return r.Kind
	}
	return r.Kind + "-" + r.Name
}

// write writes the campaign's folder and, sharded, its manifest.
func (r *Report) write(spec Spec) error {
	root := spec.Flags.Store()
	if err := r.writeFiles(root); err != nil {
		return err
	}
	if !r.Shard.Set() {
		return nil
	}
	cells, _ := Select(spec.Cells, spec.Flags.Only)
	m := &shard.Manifest{Kind: shard.KindCampaign, Name: strings.TrimSpace(r.Kind + " " + r.Name), K: r.Shard.K, N: r.Shard.N,
		Total: r.Total, Interrupted: r.Interrupted, Started: r.Started.UTC(), Elapsed: r.Elapsed, Version: harness.Version()}
	if err := m.SetKey(keyOf(spec, cells, r.Extra)); err != nil {
		return err
	}
	for _, o := range r.Outcomes {
		if rel, err := filepath.Rel(root, o.Dir); err == nil && !strings.HasPrefix(rel, "..") {
			o.Dir = filepath.ToSlash(rel) // relative to the store root when inside it
		}
		if err := m.Add(o.Index, o.Dir, o); err != nil {
			return err
		}
	}
	var err error
	r.Manifest, err = shard.Write(root, m)
	return err
}

// writeFiles makes r.Dir under the store root and writes campaign.json
// and summary.md into it.
func (r *Report) writeFiles(root string) (err error) {
	if r.Dir, err = store.NewDir(filepath.Join(root, Folder, r.label()), r.Started.Format(dirLayout)); err != nil {
		return err
	}
	if err := store.WriteJSON(filepath.Join(r.Dir, ReportFile), r); err != nil {
		return err
	}
	return store.WriteFile(filepath.Join(r.Dir, SummaryFile), []byte(r.Markdown()))
}

// Merged rebuilds and writes a campaign's report from the united shards
// w, whose run folders were copied into store root out (dirs).
func Merged(w *shard.Work, dirs []string, out string) (*Report, error) {
	var k key
	if err := json.Unmarshal(w.Key, &k); err != nil {
		return nil, fmt.Errorf("campaign shards: unreadable key: %v", err)
	}
	r := &Report{Kind: k.Kind, Name: k.Name, Total: w.Total, Planned: w.Total, Interrupted: w.Interrupted || !w.Complete(), Started: time.Now(), Extra: k.Extra}
	for i, it := range w.Items {
		var o Outcome
		if err := json.Unmarshal(it.Data, &o); err != nil {
			return nil, fmt.Errorf("%s: run %d: unreadable outcome: %v", w.Roots[i], it.Index, err)
		}
		if dirs[i] != "" {
			o.Dir = filepath.Join(out, dirs[i])
			o.Replay = planIn(o.Replay, o.Dir)
		}
		r.Elapsed += o.Elapsed
		r.Outcomes = append(r.Outcomes, o)
	}
	return r, r.writeFiles(out)
}

// planArg is the --fault-plan argument of a replay line (its value
// quoted or not).
var planArg = regexp.MustCompile(`--fault-plan (?:'[^']*'|"[^"]*"|[^ ]+)`)

// planIn is replay with its --fault-plan naming the fault-plan.json of
// dir, the merged run's folder, when there is one.
func planIn(replay, dir string) string {
	plan := filepath.Join(dir, config.FaultPlanFile)
	if _, err := os.Stat(plan); err != nil || !planArg.MatchString(replay) {
		return replay
	}
	return planArg.ReplaceAllLiteralString(replay, "--fault-plan "+config.ShellWord(plan))
}
