package power

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
)

// FromStore builds the table of scenarios from the runs already stored in
// store, running nothing. A run belongs to the scenario of its test name;
// a test of another name whose configuration is the scenario's (lock,
// fencing, persistence, fault kinds, nodes, clients, TTL) is counted too,
// and a note says so. Of several runs of one scenario with the same seed
// the newest counts. seeds > 0 keeps seeds 1..seeds only. A run without
// results.json (still running, or killed) is left out and counted in a
// note; a run whose setup failed is an error outcome. Each run's verdict
// and anomalies come from its results.json, detection times from its
// history.jsonl.
func FromStore(store string, scenarios []Scenario, seeds int, t Targets) (*Report, error) {
	runs, err := analysis.ListRuns(store)
	if err != nil {
		return nil, bad("--from-store %s: %v", store, err)
	}
	if t == (Targets{}) {
		t = DefaultTargets
	}
	rep := &Report{Source: store, Seeds: max(seeds, 0), Targets: t, Generated: time.Now().UTC()}
	type key struct {
		scen int
		seed int64
	}
	seen := map[key]bool{}
	outs := make([][]Outcome, len(scenarios))
	renamed := map[string]string{}
	pending := 0
	for _, ri := range runs { // newest first
		i := matchScenario(scenarios, ri)
		if i < 0 {
			continue
		}
		if ri.Test != scenarios[i].Name {
			renamed[ri.Test] = scenarios[i].Name
		}
		seed := ri.Config.Seed
		if seeds > 0 && (seed < 1 || seed > int64(seeds)) {
			continue
		}
		if !ri.Checked && ri.SetupError == "" {
			pending++
			continue
		}
		k := key{i, seed}
		if seen[k] {
			continue
		}
		seen[k] = true
		o := Outcome{Seed: seed, Dir: filepath.Join(store, ri.Dir)}
		if ri.SetupError != "" {
			o.Error = ri.SetupError
		} else if err := readOutcome(&o); err != nil {
			o.Error = oneLine(err)
		}
		outs[i] = append(outs[i], o)
	}
	for i, sc := range scenarios {
		sort.Slice(outs[i], func(a, b int) bool { return outs[i][a].Seed < outs[i][b].Seed })
		rep.Rows = append(rep.Rows, Aggregate(sc, outs[i], t))
	}
	names := make([]string, 0, len(renamed))
	for from := range renamed {
		names = append(names, from)
	}
	slices.Sort(names)
	for _, from := range names {
		rep.Notes = append(rep.Notes, fmt.Sprintf("runs of test %q are counted as %s (same configuration)", from, renamed[from]))
	}
	if pending > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d stored runs have no results.json yet (running or killed) and are left out", pending))
	}
	return rep, nil
}

// readOutcome fills o's verdict from its results.json and, for an invalid
// run, its detection time from its history (read streamed).
func readOutcome(o *Outcome) error {
	var res checker.Result
	if err := store.ReadJSON(filepath.Join(o.Dir, store.ResultsFile), &res); err != nil {
		return fmt.Errorf("power: %w", err)
	}
	o.Verdict = res.Valid
	if o.Verdict != checker.Invalid {
		return nil
	}
	// a history that cannot be read leaves the time unknown; the verdict stands
	o.Detect, o.DetectKnown = DetectionTime(res, history.File(filepath.Join(o.Dir, store.HistoryFile)))
	return nil
}

// matchScenario is the index of ri's scenario, -1 for none: by test name,
// else by configuration.
func matchScenario(scenarios []Scenario, ri analysis.RunInfo) int {
	for i, s := range scenarios {
		if s.Name == ri.Test {
			return i
		}
	}
	for i, s := range scenarios {
		if sameSetup(s.Config, ri.Config) {
			return i
		}
	}
	return -1
}

// sameSetup compares what decides a scenario: lock, fencing, persistence,
// fault kinds, nodes, clients and TTL (a stored config has defaults
// filled; a scenario's persistence may be left empty, meaning none).
func sameSetup(s, r config.Config) bool {
	persist := func(p cluster.Persistence) cluster.Persistence {
		if p == "" {
			return cluster.PersistNone
		}
		return p
	}
	kinds := func(k []string) []string {
		k = slices.Clone(k)
		slices.Sort(k)
		return k
	}
	return s.Lock == r.Lock && s.Fencing == r.Fencing && persist(s.Persistence) == persist(r.Persistence) &&
		slices.Equal(kinds(s.Nemesis), kinds(r.Nemesis)) && s.Nodes == r.Nodes && s.Clients == r.Clients &&
		s.TTL == r.TTL && r.Plan == nil
}
