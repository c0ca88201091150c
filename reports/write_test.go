package reports

import (
	"context"
	"errors"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
	"github.com/lockstorm/lockstorm/lease"
)

// A real 3 s run (real redis-server, client pauses) gets a complete report
// whose files agree with its verdict.
func TestWriteRealRun(t *testing.T) {
	res := storetest.Run(t, harness.Run, config.Config{Lock: "single", Workload: "counter", Clients: 3,
		TTL: 300 * time.Millisecond, TimeLimit: 3 * time.Second, Nemesis: []string{"client-pause"}, Seed: 1, Store: t.TempDir()})
	mustWrite(t, res)
	index, _ := checkReport(t, res)
	if len(checker.FaultWindows(historyOf(res))) > 0 && !strings.Contains(index, "client-pause") {
		t.Error("index.html does not list the client-pause faults")
	}
	for _, f := range []string{store.HistoryFile, store.TestFile, store.ResultsFile, store.PorcupineCounterFile} {
		if !strings.Contains(index, `href="`+f+`"`) {
			t.Errorf("index.html does not link %s", f)
		}
	}
	// porcupine.html is porcupine's page, not our placeholder.
	if b := storetest.Read(t, res.Dir, store.PorcupineFile); len(b) < 10_000 || !strings.Contains(b, "<script") {
		t.Errorf("porcupine.html is not porcupine's visualisation (%d bytes)", len(b))
	}
}

// The pause run's INVALID report: junit failures for exactly the invalid
// checkers; on the page the fault, the records, the banner's first fatal
// anomaly, counts of one singular, fencing "not applicable" with its
// reason, timeline.html linked from nav, anomalies note and files table;
// porcupine's pages whole, not segments.
func TestWriteInvalid(t *testing.T) {
	res := pauseResult(t.TempDir())
	if res.Verdict.Valid != checker.Invalid {
		t.Fatalf("hand-built pause history is %v, want invalid:\n%v", res.Verdict.Valid, res.Verdict)
	}
	mustWrite(t, res)
	index, doc := checkReport(t, res)
	failed := 0
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed++
		}
	}
	if failed == 0 || doc.Suites[0].Failures != failed || doc.Failures != failed {
		t.Errorf("junit: %d failing cases, suite says %d, root %d", failed, doc.Suites[0].Failures, doc.Failures)
	}
	a, _ := firstFatalAnomaly(res.Verdict)
	banner := "first fatal anomaly: " + a.Kind + " (" + a.Checker + " checker) at " + page.Plural(len(a.Ops), "op", "ops") + " " + indexList(a.Ops, 4)
	fencing := html.UnescapeString(regexp.MustCompile(`(?s)<td><b>fencing</b></td>.*?</tr>`).FindString(index))
	na := res.Verdict.Results[slices.IndexFunc(res.Verdict.Results, func(r checker.Result) bool { return r.Name == "fencing" })].NotApplicable
	sub := regexp.MustCompile(`(?s)<div class="sub">seed.*?</div>`).FindString(index)
	for _, c := range []struct {
		what     string
		in       string
		want, no string
	}{
		{"the fault and the lost update", index, `(?s)client-pause.*lost-update`, ""},
		{"the invalid banner", index, `class="banner invalid"`, ""},
		{"the first fatal anomaly", html.UnescapeString(index), `<div class="proof" id="proof">` + regexp.QuoteMeta(banner) + `</div>`, ""},
		{"the fencing row", fencing, `(?s)<span class="badge na">not applicable</span>.*` + regexp.QuoteMeta(na), "badge valid"},
		{"the counts", sub, ` · 1 fault window ·`, `\b1 (fault windows|fatal anomalies|operations)\b`},
		{"the links to timeline.html", index, `(?s)(href="timeline.html".*){3}`, ""},
	} {
		if !regexp.MustCompile(c.want).MatchString(c.in) || c.no != "" && regexp.MustCompile(c.no).MatchString(c.in) {
			t.Errorf("index.html: %s: want %q, not %q, in\n%.2000s", c.what, c.want, c.no, c.in)
		}
	}
	if !store.Exists(res.Dir, store.TimelineFile) || store.Exists(res.Dir, "porcupine-2.html") {
		t.Error("no timeline.html, or a porcupine page per segment of a history of one")
	}
	for _, f := range []string{store.PorcupineFile, store.PorcupineCounterFile} {
		if b := storetest.Read(t, res.Dir, f); strings.Contains(b, "lockstormSegments = [") || strings.Contains(b, "failing segment") {
			t.Errorf("%s is drawn as a segment", f)
		}
	}
}

// An empty history (a run that crashed at once) still gets every file,
// and its unknown verdict is a junit error, never a pass.
func TestWriteEmptyUnknown(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Config{Name: "empty", Lock: "single", Workload: "counter", Clients: 2, Seed: 5}
	v := analysis.Checkers(&analysis.Result{Config: cfg}).Check(context.Background(), nil)
	if v.Valid != checker.Unknown {
		t.Fatalf("empty history is %v, want unknown", v.Valid)
	}
	res := &analysis.Result{Dir: dir, Config: cfg, Verdict: v}
	mustWrite(t, res)
	_, doc := checkReport(t, res)
	var errored int
	for _, c := range doc.Suites[0].Cases {
		if c.Error != nil {
			errored++
			if c.Error.Type != "unknown" {
				t.Errorf("junit %s: error type %q, want unknown", c.Name, c.Error.Type)
			}
		}
	}
	if errored == 0 {
		t.Error("an unknown verdict produced no junit error: CI would show it as passed")
	}
}

// A valid composed verdict made unknown by the composition alone (no
// acquire succeeded) still shows up in junit as an error.
func TestJUnitVerdictCase(t *testing.T) {
	v := checker.Result{Name: "lockstorm", Valid: checker.Unknown, Error: "no acquire succeeded in the whole history: the run proved nothing",
		Results: []checker.Result{{Name: "lock", Valid: checker.Valid}, {Name: "resource", Valid: checker.Valid}}}
	doc := JUnitDocument(verdictSuite("t", v, 1, time.Now(), nil, ""))
	s := doc.Suites[0]
	if s.Tests != 3 || s.Errors != 1 || s.Cases[2].Name != "verdict" || s.Cases[2].Error == nil {
		t.Fatalf("want lock, resource and an erroring verdict case; got %+v", s)
	}
	if !strings.Contains(s.Cases[2].Error.Message, "no acquire succeeded") {
		t.Errorf("verdict error message %q lacks the reason", s.Cases[2].Error.Message)
	}
}

// Write refuses a result without a folder; its error is a report error,
// which SplitError tells from a run's own error.
func TestWriteNoDir(t *testing.T) {
	err := Write(&analysis.Result{})
	if !errors.Is(err, ErrNoDir) {
		t.Fatalf("got %v, want ErrNoDir", err)
	}
	if runErr, repErr := SplitError(err); runErr != nil || repErr == nil || repErr.Error() != ErrNoDir.Error() {
		t.Errorf("SplitError(%v) = %v, %v; want a report error only, its message unchanged", err, runErr, repErr)
	}
	wrapped := fmt.Errorf("harness: start cluster: %w", errors.New("no redis-server"))
	if runErr, repErr := SplitError(wrapped); runErr != wrapped || repErr != nil {
		t.Errorf("SplitError(%v) = %v, %v; want the run's error only", wrapped, runErr, repErr)
	}
}

// Leases are cut at release, at a lost notice, or at the holder's last
// record; two different leases believed held at once are an overlap.
func TestHoldsAndOverlaps(t *testing.T) {
	h, _ := pauseHistory()
	hs := holds(h, runLeases)
	if len(hs) != 3 {
		t.Fatalf("got %d leases, want 3: %+v", len(hs), hs)
	}
	a := hs[0]
	if a.Token != "tok-a" || a.Start != 3*ms || a.End != 615*ms || a.Validity != 295*ms || a.Ended != "release" {
		t.Errorf("lease a = %+v", a)
	}
	ovs := overlaps(hs)
	if len(ovs) != 1 || ovs[0].Start != 320*ms || ovs[0].End != 402*ms {
		t.Fatalf("overlaps = %+v, want one from 320ms to 402ms", ovs)
	}
	// A lost notice ends the belief; a holder that stops recording ends
	// at its last record.
	b := historytest.New()
	b.Append(history.Op{Time: 0, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k"})
	b.Append(history.Op{Time: 1, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: "x", TTL: 100})
	b.Append(history.Op{Time: 50, Type: history.Invoke, Process: 0, F: history.FLost, Key: "k", Token: "x"})
	b.Append(history.Op{Time: 50, Type: history.OK, Process: 0, F: history.FLost, Key: "k", Token: "x"})
	b.Append(history.Op{Time: 60, Type: history.Invoke, Process: 1, F: history.FAcquire, Key: "k"})
	b.Append(history.Op{Time: 61, Type: history.OK, Process: 1, F: history.FAcquire, Key: "k", Token: "y"})
	b.Append(history.Op{Time: 70, Type: history.Invoke, Process: 1, F: history.FRead, Key: "k"})
	hs = holds(b.History(), lease.Options{})
	if len(hs) != 2 || hs[0].End != 50 || hs[0].Ended != "lost" || hs[0].Validity != 100 {
		t.Errorf("lost lease = %+v (validity falls back to invoke + TTL, no drift allowance)", hs[0])
	}
	if hs[1].End != 70 || hs[1].Ended != "gone" || hs[1].Validity != 0 {
		t.Errorf("abandoned lease = %+v", hs[1])
	}
	if ovs := overlaps(hs); len(ovs) != 0 {
		t.Errorf("overlaps = %+v, want none", ovs)
	}
}

// Replacement processes land on the slot whose process retired: after an
// info, and after a client-crash naming the client.
func TestSlotMap(t *testing.T) {
	b := historytest.New()
	b.Append(history.Op{Time: 1, Type: history.Invoke, Process: 1, F: history.FAcquire})
	b.Append(history.Op{Time: 2, Type: history.Info, Process: 1, F: history.FAcquire}) // c2 -> p3
	b.Append(history.Op{Time: 3, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStart, Fault: "client-crash"})
	b.Append(history.Op{Time: 4, Type: history.OK, Process: history.NemesisProcess, F: history.FStart, Fault: "client-crash", Detail: "client-crash clients=c1 duration=1s"}) // c1 -> p4
	b.Append(history.Op{Time: 5, Type: history.Invoke, Process: 4, F: history.FAcquire})
	b.Append(history.Op{Time: 6, Type: history.Invoke, Process: 3, F: history.FAcquire})
	b.Append(history.Op{Time: 7, Type: history.Invoke, Process: 0, F: history.FAcquire})
	b.Append(history.Op{Time: 8, Type: history.Invoke, Process: 9, F: history.FAcquire}) // unplaceable
	m := buildSlots(b.History(), 3)
	want := map[int]int{0: 0, 4: 0, 1: 1, 3: 1, 9: 3}
	for p, row := range want {
		if m.Row[p] != row {
			t.Errorf("process %d on row %d, want %d (rows %v)", p, m.Row[p], row, m.Rows)
		}
	}
	if m.Rows[0] != "c1 (p0, p4)" || m.Rows[1] != "c2 (p1, p3)" || m.Rows[2] != "c3" || m.Rows[3] != "p9" {
		t.Errorf("rows = %q", m.Rows)
	}
}
