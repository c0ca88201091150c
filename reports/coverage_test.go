package reports

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// slottedPauseResult is pauseResult with client slots on its records (as
// a run records them) and the pause aimed at c1, checked by analysis.Check
// so that it carries coverage: the pause hit c1 while it held the lock.
func slottedPauseResult(t *testing.T) *analysis.Result {
	t.Helper()
	res := pauseResult(t.TempDir())
	slots := map[int]string{0: "c1", 1: "c2", 2: "c3", 3: "c3"}
	h := historyOf(res)
	for i := range h {
		o := &h[i]
		if o.IsNemesis() {
			if o.F == history.FStart {
				o.Clients = []string{"c1"}
			}
			continue
		}
		o.Client = slots[o.Process]
	}
	res.History = history.Slice(h)
	noErr(t, analysis.Check(context.Background(), res))
	if res.Coverage == nil {
		t.Fatal("analysis.Check left no coverage for a run that requested client-pause")
	}
	return res
}

// The terminal summary, junit.xml and index.html show what the faults
// touched, with the op that proves it.
func TestCoverageShown(t *testing.T) {
	res := slottedPauseResult(t)
	var buf bytes.Buffer
	Summary(&buf, res)
	want := "coverage:\n  client-pause  planned 0  applied 1  holder 1 (1 at start)  waiter 0  write 0\n"
	if !strings.Contains(buf.String(), want) {
		t.Fatalf("summary lacks %q:\n%s", want, buf.String())
	}
	mustWrite(t, res)
	b := []byte(storetest.Read(t, res.Dir, store.IndexFile))
	index := string(b)
	for _, w := range []string{`id="coverage"`, "c1 at start: op 1 (acquire ok at 0.003 s)", "<td>client-pause</td><td class=\"num\">0</td><td class=\"num\">1</td><td class=\"num\">1</td>"} {
		if !strings.Contains(index, w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	var doc JUnitSuites
	b, _ = os.ReadFile(filepath.Join(res.Dir, store.JUnitFile))
	noErr(t, xml.Unmarshal(b, &doc))
	props := map[string]string{}
	for _, p := range doc.Suites[0].Properties {
		props[p.Name] = p.Value
	}
	if props["coverage.client-pause.touched_holder"] != "1" || props["coverage.client-pause.applied"] != "1" || props["coverage.client-pause.touched_waiter"] != "0" {
		t.Errorf("junit coverage properties: %v", props)
	}
	if _, ok := props["coverage.shortfall"]; ok {
		t.Errorf("junit has a shortfall for a run whose fault hit the holder: %v", props)
	}
}

// A shortfall is printed under the coverage block and is a junit property.
func TestCoverageShortfallShown(t *testing.T) {
	res := slottedPauseResult(t)
	res.Coverage.Requested = append(res.Coverage.Requested, "crash")
	res.Coverage.Judge(1)
	var buf bytes.Buffer
	Summary(&buf, res)
	want := "  shortfall: crash was requested but no crash fault was applied (planned 0)\n"
	if !strings.Contains(buf.String(), want) {
		t.Fatalf("summary lacks %q:\n%s", want, buf.String())
	}
	props := coverageProps(res.Coverage)
	if last := props[len(props)-1]; last.Name != "coverage.shortfall" || !strings.Contains(last.Value, "crash was requested") {
		t.Fatalf("last property %+v, want the shortfall", last)
	}
}
