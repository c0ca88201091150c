package power

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// sources are h in memory and in a history file: DetectionTime reads
// both alike.
func sources(t *testing.T, h history.History) map[string]history.Source {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	return map[string]history.Source{"memory": history.Slice(h), "file": history.File(path)}
}

func TestDetectionTimeIsEarliestCompleteFatalAnomaly(t *testing.T) {
	//                                 0   1    2    3    4    5     6
	for src, h := range sources(t, historytest.At(100, 200, 900, 400, 500, 3000, 2500)) {
		t.Run(src, func(t *testing.T) { testDetectionTime(t, h) })
	}
	if d, ok := DetectionTime(checker.Result{Anomalies: []checker.Anomaly{{Kind: "x", Fatal: true, Ops: []int64{0}}}}, nil); ok {
		t.Errorf("no history: DetectionTime = %v, true; want not known", d)
	}
}

func testDetectionTime(t *testing.T, h history.Source) {
	r := checker.Result{Name: "all", Valid: checker.Invalid, Results: []checker.Result{
		{Name: "resource", Valid: checker.Invalid, Anomalies: []checker.Anomaly{
			// complete at 3000 ms (its latest op), although it starts at 100
			{Kind: "lost-update", Fatal: true, Ops: []int64{0, 5}},
			// complete at 900 ms: the earliest fatal one
			{Kind: "lost-update", Fatal: true, Ops: []int64{1, 2, 3}},
		}},
		{Name: "fencing", Valid: checker.Valid, Anomalies: []checker.Anomaly{
			// not fatal: ignored although complete at 200 ms
			{Kind: "stale-write-rejected", Fatal: false, Ops: []int64{0, 1}},
		}},
		{Name: "lock", Valid: checker.Invalid, Anomalies: []checker.Anomaly{
			{Kind: "nonlinearizable", Fatal: true, Ops: []int64{4, 6}}, // 2500 ms
		}},
	}}
	d, ok := DetectionTime(r, h)
	if !ok || d != 900*time.Millisecond {
		t.Fatalf("DetectionTime = %v, %v; want 900ms, true", d, ok)
	}

	// No locatable fatal anomaly: not known (not zero).
	for name, r := range map[string]checker.Result{
		"no ops":        {Valid: checker.Invalid, Anomalies: []checker.Anomaly{{Kind: "x", Fatal: true}}},
		"past the end":  {Valid: checker.Invalid, Anomalies: []checker.Anomaly{{Kind: "x", Fatal: true, Ops: []int64{1, 99}}}},
		"only nonfatal": {Valid: checker.Valid, Anomalies: []checker.Anomaly{{Kind: "x", Ops: []int64{1}}}},
	} {
		if d, ok := DetectionTime(r, h); ok {
			t.Errorf("%s: DetectionTime = %v, true; want not known", name, d)
		}
	}

	// A history numbered from elsewhere is looked up by Index.
	shifted := historytest.At(10, 20, 30)
	for i := range shifted {
		shifted[i].Index += 5
	}
	r2 := checker.Result{Anomalies: []checker.Anomaly{{Kind: "x", Fatal: true, Ops: []int64{5, 6}}}}
	if d, ok := DetectionTime(r2, history.Slice(shifted)); !ok || d != 20*time.Millisecond {
		t.Errorf("shifted history: DetectionTime = %v, %v; want 20ms", d, ok)
	}
}

func TestMedianAndPercentile(t *testing.T) {
	s := func(xs ...int) []time.Duration {
		var out []time.Duration
		for _, x := range xs {
			out = append(out, time.Duration(x)*time.Second)
		}
		return out
	}
	for _, tc := range []struct {
		in          []time.Duration
		median, p90 time.Duration
	}{
		{s(7), 7 * time.Second, 7 * time.Second},
		{s(9, 1, 5), 5 * time.Second, 9 * time.Second},
		{s(4, 1, 3, 2), 2500 * time.Millisecond, 4 * time.Second},
		{s(10, 9, 8, 7, 6, 5, 4, 3, 2, 1), 5500 * time.Millisecond, 9 * time.Second},
	} {
		m, ok := Median(tc.in)
		p, _ := Percentile(tc.in, 0.9)
		if !ok || m != tc.median || p != tc.p90 {
			t.Errorf("%v: median %v p90 %v; want %v %v", tc.in, m, p, tc.median, tc.p90)
		}
	}
	if _, ok := Median(nil); ok {
		t.Error("Median of nothing is ok")
	}
	in := s(3, 1, 2)
	Median(in)
	if in[0] != 3*time.Second {
		t.Error("Median sorted its input in place")
	}
}

func outs(spec ...string) []Outcome {
	var out []Outcome
	for i, s := range spec {
		o := Outcome{Seed: int64(i + 1)}
		verdict, at, _ := strings.Cut(s, "@")
		switch verdict {
		case "inv":
			o.Verdict = checker.Invalid
		case "ok":
			o.Verdict = checker.Valid
		case "unk":
			o.Verdict = checker.Unknown
		case "err":
			o.Error = "setup failed"
			o.Verdict = checker.Invalid // ignored: an error is never a verdict
		}
		if at != "" {
			d, _ := time.ParseDuration(at)
			o.Detect, o.DetectKnown = d, true
		}
		out = append(out, o)
	}
	return out
}

func TestAggregateBroken(t *testing.T) {
	broken := Scenario{Name: "b", Broken: true, Config: config.Config{Lock: "single", Nemesis: []string{"client-pause"}}}
	many := func(n int, s string) []string {
		var out []string
		for range n {
			out = append(out, s)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		outs     []Outcome
		detected float64
		median   time.Duration
		mark     string
		why      string
		unknown  int
	}{
		{"all caught fast", outs("inv@1s", "inv@3s", "inv@2s"), 1, 2 * time.Second, Pass, "", 0},
		{"19 of 20 is 95%", outs(append(many(19, "inv@1s"), "ok")...), 0.95, time.Second, Pass, "", 0},
		{"18 of 20 misses", outs(append(many(18, "inv@1s"), "ok", "ok")...), 0.9, time.Second, Miss, "detected", 0},
		{"slow", outs("inv@4s", "inv@6s", "inv@7s"), 1, 6 * time.Second, Miss, "median", 0},
		// An unknown is not a detection: 19 invalid and 1 unknown is 95%,
		// 18 invalid and 2 unknown is not.
		{"unknown is not detected", outs(append(many(18, "inv@1s"), "unk", "unk")...), 0.9, time.Second, Miss, "detected", 2},
		{"error is not detected", outs("inv@1s", "err"), 0.5, time.Second, Miss, "detected", 0},
		{"detections without a time", outs("inv", "inv"), 1, 0, Miss, "median", 0},
		{"nothing caught", outs("ok", "unk"), 0, 0, Miss, "detected,median", 1},
		{"no runs", nil, 0, 0, Miss, "no runs", 0},
	} {
		r := Aggregate(broken, tc.outs, DefaultTargets)
		if r.Detected != tc.detected || r.Median != tc.median || r.Mark != tc.mark || r.Why != tc.why || r.Unknown != tc.unknown {
			t.Errorf("%s: detected %v median %v mark %s (%s) unknown %d; want %v %v %s (%s) %d",
				tc.name, r.Detected, r.Median, r.Mark, r.Why, r.Unknown, tc.detected, tc.median, tc.mark, tc.why, tc.unknown)
		}
		if r.Invalid+r.Valid+r.Unknown+r.Errors != r.Runs || r.Runs != len(tc.outs) {
			t.Errorf("%s: counts %d+%d+%d+%d do not add up to %d runs", tc.name, r.Invalid, r.Valid, r.Unknown, r.Errors, len(tc.outs))
		}
	}
}

func TestAggregateCorrect(t *testing.T) {
	correct := Scenario{Name: "c", Config: config.Config{Lock: "fenced", Fencing: true, Nemesis: []string{"client-pause"}}}
	for _, tc := range []struct {
		name                   string
		outs                   []Outcome
		valid, alarms, unknown int
		mark, why              string
	}{
		{"all valid", outs("ok", "ok"), 2, 0, 0, Pass, ""},
		{"unknown is not an alarm", outs("ok", "unk", "unk"), 1, 0, 2, Pass, ""},
		{"one alarm", outs("ok", "inv@1s", "ok"), 2, 1, 0, Miss, "false alarms"},
		{"only unknown proves nothing", outs("unk", "unk"), 0, 0, 2, Miss, "no valid run"},
		{"an error is not an alarm", outs("ok", "err"), 1, 0, 0, Pass, ""},
	} {
		r := Aggregate(correct, tc.outs, DefaultTargets)
		if r.Valid != tc.valid || r.Invalid != tc.alarms || r.Unknown != tc.unknown || r.Mark != tc.mark || r.Why != tc.why {
			t.Errorf("%s: valid %d alarms %d unknown %d mark %s (%s); want %d %d %d %s (%s)",
				tc.name, r.Valid, r.Invalid, r.Unknown, r.Mark, r.Why, tc.valid, tc.alarms, tc.unknown, tc.mark, tc.why)
		}
		if r.Detected != 0 || r.MedianMS != nil {
			t.Errorf("%s: a correct lock has no detection figures, got %v %v", tc.name, r.Detected, r.MedianMS)
		}
	}
}

func TestScenarioTable(t *testing.T) {
	all := Scenarios()
	if len(all) != 14 {
		t.Fatalf("%d scenarios, want 14", len(all))
	}
	broken := 0
	for _, s := range all {
		if s.Broken {
			broken++
		}
		c := s.Config
		if c.Plan != nil || len(c.Nemesis) == 0 || c.Name != s.Name {
			t.Errorf("%s: want random faults and the scenario's name, got plan %v nemesis %v name %q", s.Name, c.Plan, c.Nemesis, c.Name)
		}
		c.TimeLimit = 20 * time.Second
		if _, err := c.WithDefaults(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	if broken != 9 {
		t.Errorf("%d broken scenarios, want 9", broken)
	}
	got, err := Select([]string{"fenced-fencing", "unsafe-del"})
	if err != nil || len(got) != 2 || got[0].Name != "unsafe-del" || got[1].Name != "fenced-fencing" {
		t.Errorf("Select = %v, %v; want unsafe-del, fenced-fencing in table order", got, err)
	}
	if _, err := Select([]string{"unsafe-del", "nope"}); !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Select(nope) = %v; want ErrConfig naming it", err)
	}
}

func TestSameSetupMatchesRenamedTests(t *testing.T) {
	s := Scenarios()[3].Config // single-no-fencing
	stored, err := s.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	stored.Name, stored.Seed = "single-pause", 4
	if !sameSetup(s, stored) {
		t.Error("a stored run of the same setup under another name does not match")
	}
	for name, change := range map[string]func(*config.Config){
		"fencing":     func(c *config.Config) { c.Fencing = true },
		"kinds":       func(c *config.Config) { c.Nemesis = []string{"client-crash"} },
		"ttl":         func(c *config.Config) { c.TTL = time.Second },
		"lock":        func(c *config.Config) { c.Lock = "fenced" },
		"clients":     func(c *config.Config) { c.Clients = 4 },
		"persistence": func(c *config.Config) { c.Persistence = "aof-always" },
		"scripted":    func(c *config.Config) { c.Plan = &nemesis.Plan{} },
	} {
		c := stored
		change(&c)
		if sameSetup(s, c) {
			t.Errorf("a stored run with another %s matches", name)
		}
	}
}

func TestSpecRefusesBadInput(t *testing.T) {
	sc, _ := Select([]string{"unsafe-del"})
	short := flags(1, 1, t.TempDir())
	short.Run.TimeLimit = -time.Second
	for _, c := range []struct {
		s Spec
		f config.Campaign
	}{
		{Spec{Scenarios: sc}, short},
		{Spec{}, flags(1, 1, t.TempDir())},
	} {
		if _, _, err := Run(t.Context(), c.s, c.f, Options{Runner: func(context.Context, config.Config) (*analysis.Result, error) {
			t.Fatal("ran despite bad input")
			return nil, nil
		}}); !errors.Is(err, config.ErrConfig) {
			t.Errorf("Run(%+v) = %v; want ErrConfig", c.s, err)
		}
	}
}
