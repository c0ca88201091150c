package sweep

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/nemesis"
)

func TestParseNemeses(t *testing.T) {
	got, err := ParseNemeses("nemesis", "partition, client-pause")
	if err != nil || len(got) != 2 || got[0] != NemesisPartition || got[1] != NemesisClientPause {
		t.Fatalf("ParseNemeses = %v, %v", got, err)
	}
	for _, bad := range []string{"", "latency", "partition,partition"} {
		if _, err := ParseNemeses("nemesis", bad); !errors.Is(err, ErrSpec) {
			t.Errorf("ParseNemeses(%q) = %v, want ErrSpec", bad, err)
		}
	}
}

func TestHolderFaultsAimsAPartitionAtARenewal(t *testing.T) {
	times := []time.Duration{time.Second, 3 * time.Second}
	p := HolderFaults(times, 800*time.Millisecond, NemesisPartition, true, 3)
	if p == nil || len(p.Steps) != 2 {
		t.Fatalf("plan %+v", p)
	}
	f := p.Steps[0].Fault
	if f.Kind != nemesis.KindPartition || f.Shape != nemesis.ShapeClientFromK || f.Clients[0] != nemesis.TargetRenewal ||
		strings.Join(f.Nodes, ",") != "n1,n2,n3" || f.Duration != 800*time.Millisecond {
		t.Errorf("renewing lock's partition %+v", f)
	}
	if f := HolderFaults(times, time.Second, NemesisPartition, false, 1).Steps[1].Fault; f.Clients[0] != nemesis.TargetHolder {
		t.Errorf("a lock without renewal is cut when it holds, got %+v", f)
	}
	if f := HolderFaults(times, time.Second, NemesisClientPause, true, 1).Steps[0].Fault; f.Kind != nemesis.KindClientPause || f.Clients[0] != nemesis.TargetHolder {
		t.Errorf("pause %+v", f)
	}
	if HolderFaults(times, 0, NemesisPartition, true, 1) != nil {
		t.Error("length 0 must mean no faults")
	}
}

func TestProcessConfig(t *testing.T) {
	raw := DefaultRaw()
	raw.TTL, raw.Renew, raw.Pause, raw.Nemesis = "500ms", "none,ttl/3", "1s", "client-pause,partition"
	raw.ClientCmd, raw.ClientDir, raw.Lock = "bin/client --x", t.TempDir(), "mylock"
	s, err := raw.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cells := s.Grid.Cells(1)
	// fencing off,on x renew none,ttl/3 (off) + fenced (on), x 2 faults.
	if len(cells) != 6 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, c := range cells {
		cfg := s.Config(c)
		if cfg.ClientCmd != raw.ClientCmd || cfg.ClientDir != raw.ClientDir || cfg.Lock != "mylock" {
			t.Errorf("%s: client %q in %q, lock %q", c.ID(), cfg.ClientCmd, cfg.ClientDir, cfg.Lock)
		}
		want := time.Duration(0)
		if c.Renew == "ttl/3" && !c.Fenced {
			want = 500 * time.Millisecond / 3
		}
		if cfg.RenewEvery != want || cfg.Fencing != c.Fenced {
			t.Errorf("%s: renew every %v fencing %v", c.ID(), cfg.RenewEvery, cfg.Fencing)
		}
		if got := cfg.Plan.Steps[0].Fault.Kind; got != nemesisOf(c.Nemesis) {
			t.Errorf("%s: fault %s", c.ID(), got)
		}
	}
	if id := cells[len(cells)-1].ID(); id != "ttl-500ms_fenced_partition-1s_run-1" {
		t.Errorf("last cell %s", id)
	}
}

func TestResolveRefuses(t *testing.T) {
	// The default fencing axis (off,on) keeps only off for such a lock.
	raw := DefaultRaw()
	raw.ClientCmd, raw.Lock = "lockstorm client --lock single", "single"
	if s, err := raw.Resolve(context.Background()); err != nil || len(s.Grid.Fencing) != 1 || s.Grid.Fencing[0] {
		t.Errorf("default axis for a lock without tokens: %v, %v", s.Grid.Fencing, err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Raw)
		want string
	}{
		{"entry and command", func(r *Raw) { r.ZooEntry, r.ClientCmd = "../zoo/seed-single", "x" }, "without --client-cmd"},
		{"lock without command", func(r *Raw) { r.Lock = "x" }, "give --client-cmd"},
		{"not an entry", func(r *Raw) { r.ZooEntry = t.TempDir() }, "is not a zoo entry"},
		{"cluster", func(r *Raw) { r.ClientCmd, r.Topology = "x", "cluster" }, "standalone"},
		{"fencing on a lock without tokens", func(r *Raw) {
			r.ClientCmd, r.Lock, r.Fencing = "lockstorm client --lock single", "single", "on"
			r.Given = func(k string) bool { return k == "fencing-axis" }
		}, "issues fencing tokens"},
	} {
		raw := DefaultRaw()
		tc.edit(&raw)
		if _, err := raw.Resolve(context.Background()); !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrSpec saying %q", tc.name, err, tc.want)
		}
	}
}

func TestRecommendationSpeaksTheLibrarysWords(t *testing.T) {
	g := Grid{TTLs: []time.Duration{500 * time.Millisecond}, Renews: []Renew{{Spec: "ttl/3", Div: 3}}, Pauses: []time.Duration{time.Second},
		Nemeses: []string{NemesisClientPause, NemesisPartition}, Lock: Subject{Label: "lib", TTL: "KeyValidity", Renew: "ExtendInterval", NoTokens: true}}
	agg := map[Point]Agg{}
	for _, c := range g.Cells(1) {
		agg[c.Point()] = Agg{Runs: 1}
	}
	rec := Recommend(g, 1, agg)
	want := "smallest KeyValidity with 0 of 1 invalid up to pauses and partitions of 1s, the longest measured: 500ms, ExtendInterval ttl/3; lib issues no fencing tokens"
	if rec.Text != want {
		t.Errorf("recommendation\n got %s\nwant %s", rec.Text, want)
	}
	// Invalid under the partition alone: the setting bears nothing.
	agg[Point{TTL: 500 * time.Millisecond, Renew: "ttl/3", Pause: time.Second, Nemesis: NemesisPartition}] = Agg{Runs: 1, Invalid: 1}
	if rec := Recommend(g, 1, agg); !strings.HasPrefix(rec.Text, "no KeyValidity or renewal measured stayed at 0 of 1 invalid") {
		t.Errorf("a setting broken by one fault: %s", rec.Text)
	}
	if got := g.Lock.Name(Setting{Renew: "ttl/3", Nemesis: NemesisPartition}); got != "ExtendInterval ttl/3, partition" {
		t.Errorf("name %q", got)
	}
}

// A fault length of 0 is no fault: one cell serves every fault's panel.
func TestNoFaultIsOneCellForEveryFault(t *testing.T) {
	g := Grid{TTLs: []time.Duration{time.Second}, Renews: []Renew{{Spec: "none"}}, Pauses: []time.Duration{0, time.Second},
		Nemeses: []string{NemesisClientPause, NemesisPartition}}
	cells := g.Cells(1)
	var ids []string
	for _, c := range cells {
		ids = append(ids, c.ID())
	}
	if strings.Join(ids, " ") != "ttl-1s_renew-none_pause-0_run-1 ttl-1s_renew-none_pause-1s_run-1 ttl-1s_renew-none_partition-1s_run-1" {
		t.Errorf("cells %v", ids)
	}
	if a, b := pointOf(time.Second, Setting{Renew: "none", Nemesis: NemesisPartition}, 0), cells[0].Point(); a != b {
		t.Errorf("the partition panel's no-fault point %+v is not the cell's %+v", a, b)
	}
}
