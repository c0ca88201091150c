package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
)

const ms = time.Millisecond

func TestDefaultSpec(t *testing.T) {
	s, err := DefaultRaw().Spec()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Grid.Cells(s.Runs); len(got) != 12 {
		t.Fatalf("default grid has %d cells, want 2 TTLs x (2 renewals + fenced) x 2 pauses x 1 seed = 12", len(got))
	}
	if s.Runs != 1 || s.Clients != 4 || s.TimeLimit != config.DefaultTimeLimit || !reflect.DeepEqual(s.Grid.Fencing, []bool{false, true}) {
		t.Errorf("seeds %d, clients %d, time limit %v, fencing %v; want the campaign defaults 1 and %v, 4 clients, [off on]", s.Runs, s.Clients, s.TimeLimit, s.Grid.Fencing, config.DefaultTimeLimit)
	}
	want := []Setting{{Renew: "none"}, {Renew: "ttl/3"}, {Renew: "none", Fenced: true}}
	if got := s.Grid.Settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("settings %v, want %v", got, want)
	}
	if got, want := s.Grid.TTLs, []time.Duration{200 * ms, time.Second}; !reflect.DeepEqual(got, want) {
		t.Errorf("ttls %v, want %v", got, want)
	}
	if got, want := s.Grid.Pauses, []time.Duration{300 * ms, 1500 * ms}; !reflect.DeepEqual(got, want) {
		t.Errorf("pauses %v, want %v", got, want)
	}
	// 20 s runs, longest pause 1.5 s, 2 s recovery: a pause every 2.5 s
	// from 1 s to 16 s.
	if got, want := s.PauseTimes(), []time.Duration{time.Second, 3500 * ms, 6 * time.Second, 8500 * ms, 11 * time.Second, 13500 * ms, 16 * time.Second}; !reflect.DeepEqual(got, want) {
		t.Errorf("pause times %v, want %v", got, want)
	}
}

func TestCellConfig(t *testing.T) {
	s, err := DefaultRaw().Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Grid.Cells(1) {
		cfg := s.Config(c)
		if _, err := cfg.WithDefaults(); err != nil {
			t.Fatalf("%s: %v", c.Label(), err)
		}
		wantLock, wantEvery := "single", time.Duration(0)
		switch {
		case c.Fenced:
			wantLock = "fenced"
		case c.Renew != "none":
			wantLock, wantEvery = "renewable", c.TTL/3
		}
		if cfg.Lock != wantLock || cfg.RenewEvery != wantEvery || cfg.Fencing != c.Fenced || cfg.ClientCmd != "lockstorm client --lock "+wantLock {
			t.Errorf("%s: lock %s every %v fencing %v (%q), want %s every %v", c.Label(), cfg.Lock, cfg.RenewEvery, cfg.Fencing, cfg.ClientCmd, wantLock, wantEvery)
		}
		if cfg.Fencing && !config.IssuesFences(cfg.Lock) {
			t.Errorf("%s: fencing with %s, which issues no fencing tokens", c.Label(), cfg.Lock)
		}
		if !cfg.Workloads.TrustLostSignal || cfg.Workloads.HoldMin != 100*ms || cfg.Workloads.HoldMax != 400*ms {
			t.Errorf("%s: workload %+v", c.Label(), cfg.Workloads)
		}
		if c.Pause == 0 {
			if cfg.Plan != nil {
				t.Errorf("%s: plan without a pause", c.Label())
			}
			continue
		}
		if cfg.Plan == nil || len(cfg.Plan.Steps) != len(s.PauseTimes()) {
			t.Fatalf("%s: plan %+v, want %d steps", c.Label(), cfg.Plan, len(s.PauseTimes()))
		}
		for _, st := range cfg.Plan.Steps {
			if st.Duration != c.Pause || st.Fault.Kind != nemesis.KindClientPause || st.Fault.Clients[0] != nemesis.TargetHolder {
				t.Errorf("%s: step %+v", c.Label(), st)
			}
		}
		if cfg.Plan.HealAt > cfg.TimeLimit {
			t.Errorf("%s: plan heals at %v after the time limit %v", c.Label(), cfg.Plan.HealAt, cfg.TimeLimit)
		}
	}
}

func TestCellIDsDistinctAndFileSafe(t *testing.T) {
	g := Grid{TTLs: []time.Duration{200 * ms, time.Second}, Pauses: []time.Duration{0, 1500 * ms}, Fencing: []bool{false, true}}
	for _, s := range []string{"none", "ttl/3", "ttl/30", "300ms"} {
		r, err := ParseRenew(s)
		if err != nil {
			t.Fatal(err)
		}
		g.Renews = append(g.Renews, r)
	}
	seen := map[string]bool{}
	for _, c := range g.Cells(2) {
		id := c.ID()
		if seen[id] || strings.ContainsAny(id, `/\ `) {
			t.Fatalf("id %q repeated or not file-safe", id)
		}
		seen[id] = true
	}
	if len(seen) != 2*(4+1)*2*2 {
		t.Fatalf("%d ids", len(seen))
	}
	// Unfenced cells keep the names of sweeps stored before fencing was
	// an axis, so those resume.
	old := Cell{TTL: 200 * ms, Renew: "ttl/3", Pause: 1500 * ms, Run: 1}
	if id := old.ID(); id != "ttl-200ms_renew-ttl3_pause-1.5s_run-1" {
		t.Errorf("unfenced id %q", id)
	}
	fenced := Cell{TTL: 200 * ms, Renew: "none", Fenced: true, Pause: 1500 * ms, Run: 2}
	if id, label := fenced.ID(), fenced.Label(); id != "ttl-200ms_fenced_pause-1.5s_run-2" || label != "ttl 200ms, fenced, pause 1.5s" {
		t.Errorf("fenced id %q, label %q", id, label)
	}
}

func TestParseRenew(t *testing.T) {
	for in, want := range map[string]Renew{
		"none": {Spec: "none"}, "0": {Spec: "none"}, "ttl/3": {Spec: "ttl/3", Div: 3},
		"TTL/4": {Spec: "ttl/4", Div: 4}, "250ms": {Spec: "250ms", Every: 250 * ms},
	} {
		got, err := ParseRenew(in)
		if err != nil || got != want {
			t.Errorf("ParseRenew(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	if iv := (Renew{Div: 3}).Interval(900 * ms); iv != 300*ms {
		t.Errorf("ttl/3 of 900ms = %v", iv)
	}
}

// Every bad value is one line naming its flag, wrapping ErrSpec.
func TestBadInput(t *testing.T) {
	cases := []struct {
		flag string
		edit func(*Raw)
	}{
		{"--ttl", func(r *Raw) { r.TTL = "200ms,abc" }},
		{"--ttl", func(r *Raw) { r.TTL = "5ms" }},
		{"--ttl", func(r *Raw) { r.TTL = "1s,1s" }},
		{"--ttl", func(r *Raw) { r.TTL = " , " }},
		{"--renew", func(r *Raw) { r.Renew = "ttl/1" }},
		{"--renew", func(r *Raw) { r.Renew = "sometimes" }},
		{"--renew", func(r *Raw) { r.Renew = "none,ttl/3,none" }},
		{"--renew", func(r *Raw) { r.Renew = "500ms" }}, // not below the 200ms TTL
		{"--pause", func(r *Raw) { r.Pause = "-1s" }},
		{"--pause", func(r *Raw) { r.Pause = "0,soon" }},
		{"--seeds", func(r *Raw) { r.Seeds = 0 }},
		{"--time-limit", func(r *Raw) { r.TimeLimit = "eight" }},
		{"--time-limit", func(r *Raw) { r.TimeLimit = "3s" }}, // no room for a 1.5 s pause
		{"--hold-min", func(r *Raw) { r.HoldMin = "1s" }},
		{"--clients", func(r *Raw) { r.Clients = 1 }},
		{"--name", func(r *Raw) { r.Name = "../escape" }},
		{"--fencing-axis", func(r *Raw) { r.Fencing = "maybe" }},
		{"--fencing-axis", func(r *Raw) { r.Fencing = "on,true" }},
		{"--fencing-axis", func(r *Raw) { r.Fencing = "," }},
	}
	for _, c := range cases {
		r := DefaultRaw()
		c.edit(&r)
		_, err := r.Spec()
		if err == nil {
			t.Errorf("%+v: no error", r)
			continue
		}
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.flag) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q: want one line naming %s, wrapping ErrSpec", err, c.flag)
		}
	}
}

func TestYAMLPlan(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(path, []byte("name: study\nttl: [100ms, 2s]\nrenew: none,ttl/4\npause:\n  - 0\n  - 500ms\ntime-limit: 9s\nfencing-axis: [on]\n"), 0o644)
	r, err := LoadRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	flags := DefaultRaw()
	flags.Seeds = 3
	flags.TTL = "999ms" // not given explicitly: must not override
	r = r.Merge(flags, func(k string) bool { return k == "seeds" }).FillDefaults()
	s, err := r.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "study" || s.Runs != 3 || s.TimeLimit != 9*time.Second || s.Clients != 4 ||
		!reflect.DeepEqual(s.Grid.Fencing, []bool{true}) ||
		!reflect.DeepEqual(s.Grid.TTLs, []time.Duration{100 * ms, 2 * time.Second}) ||
		len(s.Grid.Renews) != 2 || s.Grid.Renews[1].Div != 4 ||
		!reflect.DeepEqual(s.Grid.Pauses, []time.Duration{0, 500 * ms}) {
		t.Fatalf("spec %+v", s)
	}

	// --topology and --fencing-axis given explicitly override the plan too.
	flags.Topology, flags.Fencing = config.TopologyCluster, "off"
	r = r.Merge(flags, func(k string) bool { return k == "topology" || k == "fencing-axis" })
	if s, err = r.Spec(); err != nil || s.Topology != config.TopologyCluster || !reflect.DeepEqual(s.Grid.Fencing, []bool{false}) {
		t.Fatalf("topology %q, fencing %v, %v", s.Topology, s.Grid.Fencing, err)
	}

	os.WriteFile(path, []byte("ttl: 1s\nrenw: none\n"), 0o644)
	if _, err := LoadRaw(path); !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "renew") {
		t.Fatalf("unknown key: %v", err)
	}
}

// On a Redis Cluster a cell runs in-process clients on 3 masters with the
// links' pause (process clients do not run there); on standalone nodes,
// paused processes. A topology that is neither is refused.
func TestCellConfigTopology(t *testing.T) {
	for _, tc := range []struct {
		topology, model, cmd string
		nodes                int
	}{
		{config.TopologyStandalone, config.PauseProcess, "lockstorm client --lock single", 1},
		{config.TopologyCluster, config.PauseLinks, "", 3},
	} {
		raw := DefaultRaw()
		raw.Topology = tc.topology
		s, err := raw.Spec()
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.Config(s.Grid.Cells(1)[0])
		if cfg.Topology != tc.topology || cfg.PauseModel != tc.model || cfg.ClientCmd != tc.cmd || cfg.Nodes != tc.nodes {
			t.Errorf("%s: topology %q, pause model %q, client command %q, %d nodes", tc.topology, cfg.Topology, cfg.PauseModel, cfg.ClientCmd, cfg.Nodes)
		}
		// Every cell, the fenced ones included, is a valid configuration.
		for _, c := range s.Grid.Cells(1) {
			if _, err := s.Config(c).WithDefaults(); err != nil {
				t.Errorf("%s, %s: %v", tc.topology, c.Label(), err)
			}
		}
	}
	raw := DefaultRaw()
	raw.Topology = "mesh"
	if _, err := raw.Spec(); err == nil || !strings.Contains(err.Error(), "--topology") {
		t.Errorf("topology mesh: %v", err)
	}
}

// Each cell's run carries the cell in its configuration, by lock, TTL,
// renewal, fencing, pause and run, for its report's title; no two cells
// share one.
func TestCellConfigNamesTheCell(t *testing.T) {
	s, err := DefaultRaw().Spec()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range s.Grid.Cells(2) {
		cell := s.Config(c).Cell
		if seen[cell] {
			t.Errorf("two cells titled %q", cell)
		}
		seen[cell] = true
		if c.TTL == 200*ms && c.Renew == "ttl/3" && !c.Fenced && c.Pause == 1500*ms && c.Run == 2 &&
			cell != "lock renewable, ttl 200ms, renew ttl/3, fencing off, pause 1.5s, run 2" {
			t.Errorf("cell %q", cell)
		}
		if c.Fenced && c.TTL == time.Second && c.Pause == 300*ms && c.Run == 1 &&
			cell != "lock fenced, ttl 1s, renew none, fencing on, pause 300ms, run 1" {
			t.Errorf("fenced cell %q", cell)
		}
	}
	if len(seen) != len(s.Grid.Cells(2)) {
		t.Errorf("%d distinct cell titles of %d cells", len(seen), len(s.Grid.Cells(2)))
	}
}
