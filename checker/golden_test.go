package checker

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/verdicts.golden")

// goldenCase is one history the golden file pins: every testdata file and
// seeded generated histories, correct and with injected defects.
type goldenCase struct {
	name string
	h    history.History
}

func goldenCases(t *testing.T) []goldenCase {
	files, _ := filepath.Glob("testdata/*.jsonl")
	var out []goldenCase
	for _, f := range files {
		h, _, err := history.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, goldenCase{filepath.Base(f), h})
	}
	for seed := uint64(1); seed <= 4; seed++ {
		g := historytest.NewGen(seed, 6, 2)
		h := g.Run(3000, seed%2 == 0)
		out = append(out, goldenCase{fmt.Sprintf("gen-%d", seed), h})
		out = append(out, goldenCase{fmt.Sprintf("gen-%d-overlap", seed), g.InjectOverlap(len(g.Leases) / 2)})
		g2 := historytest.NewGen(seed, 6, 2)
		g2.Run(3000, seed%2 == 1)
		out = append(out, goldenCase{fmt.Sprintf("gen-%d-lost-update", seed), g2.InjectLostUpdate(len(g2.Leases) / 3)})
	}
	return out
}

// goldenLine renders what must not change: each checker's verdict and
// every anomaly's kind, fatality and op indices.
func goldenLine(name string, res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %v", name, res.Name, res.Valid)
	if res.Error != "" {
		fmt.Fprintf(&b, " error=%q", strings.SplitN(res.Error, "\n", 2)[0])
	}
	b.WriteString("\n")
	for _, r := range res.Results {
		fmt.Fprintf(&b, "  %s %v", r.Name, r.Valid)
		if r.NotApplicable != "" {
			b.WriteString(" n/a")
		}
		b.WriteString("\n")
		for _, a := range r.Anomalies {
			ops, _ := json.Marshal(a.Ops)
			fmt.Fprintf(&b, "    %s fatal=%v ops=%s\n", a.Kind, a.Fatal, ops)
		}
	}
	return b.String()
}

// TestGoldenVerdicts pins the verdicts and anomaly op indices of every
// testdata history and of seeded generated ones, under two option sets:
// a refactor of the engine, the lease model or the pairer must leave them
// byte for byte (go test ./checker -run TestGoldenVerdicts -update-golden
// rewrites the file, for a change the commit explains).
func TestGoldenVerdicts(t *testing.T) {
	var b strings.Builder
	for _, c := range goldenCases(t) {
		res := Standard(Options{Fencing: true}).Check(context.Background(), c.h)
		b.WriteString(goldenLine(c.name, res))
		strict := Standard(Options{Fencing: true, Fenced: true, Liveness: &Liveness{RequireRecovery: true, Fair: true, FIFOMargin: 5 * time.Millisecond}})
		b.WriteString(goldenLine(c.name+" strict", strict.Check(context.Background(), c.h)))
	}
	path := filepath.Join("testdata", "verdicts.golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-golden to create it)", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("verdicts differ from testdata/verdicts.golden at line %d:\n got: %s\nwant: %s", i+1, g, w)
			}
		}
	}
}
