package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// porcupinePage is a porcupine page's title and embedded data: per
// partition its operations and partial linearizations.
type porcupinePage struct {
	Title      string
	Partitions []struct {
		History []struct {
			Metadata string
		}
		PartialLinearizations [][]struct{ Index int }
	}
}

// readPorcupinePage reads the porcupine page file of dir.
func readPorcupinePage(t *testing.T, dir, file string) (p porcupinePage) {
	t.Helper()
	b := []byte(storetest.Read(t, dir, file))
	m := regexp.MustCompile(`(?m)^\s*const data = (.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s embeds no data", file)
	}
	if err := json.Unmarshal(m[1], &p); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if tm := regexp.MustCompile(`<title>([^<]*)</title>`).FindSubmatch(b); tm != nil {
		p.Title = string(tm[1])
	}
	return p
}

// unplacedOn says whether p draws op, and as an operation a longest
// partial linearization of its key leaves out.
func (p porcupinePage) unplacedOn(op int64) (drawn, unplaced bool) {
	for _, part := range p.Partitions {
		for i, el := range part.History {
			md := strings.SplitN(el.Metadata, checker.MetadataSep, 2)[0]
			ids := regexp.MustCompile(`\d+`).FindAllString(md, -1)
			if !slices.Contains(ids, strconv.FormatInt(op, 10)) {
				continue
			}
			longest := 0
			for _, l := range part.PartialLinearizations {
				longest = max(longest, len(l))
			}
			for _, l := range part.PartialLinearizations {
				if len(l) == longest && !slices.ContainsFunc(l, func(s struct{ Index int }) bool { return s.Index == i }) {
					return true, true
				}
			}
			return true, false
		}
	}
	return false, false
}

// shows says whether the page p draws every op of ops, one of them as
// an operation a longest partial linearization of its key leaves out.
func (p porcupinePage) shows(ops []int64) bool {
	left := false
	for _, o := range ops {
		drawn, unplaced := p.unplacedOn(o)
		if !drawn {
			return false
		}
		left = left || unplaced
	}
	return left
}

// porcupinePages are dir's porcupine pages of one kind: porcupine.html,
// porcupine-2.html, ... (base store.PorcupineFile) or the counter's.
func porcupinePages(dir, base string) []string {
	var out []string
	for i := 0; ; i++ {
		f := segmentFile(base, i)
		if !store.Exists(dir, f) {
			return out
		}
		out = append(out, f)
	}
}

// injectDoubleGrant adds, inside the lease granted by the first acquire
// ok at or after record at, an acquire ok and a release by a fresh
// process: two holders at once, which the lock check cannot linearize.
func injectDoubleGrant(h history.History, at int) history.History {
	for h[at].F != history.FAcquire || h[at].Type != history.OK {
		at++
	}
	ok := h[at]
	p := 1_000_000 + at
	t := ok.Time + 50_000
	add := []history.Op{
		{Time: t, Type: history.Invoke, Process: p, F: history.FAcquire, Key: ok.Key, TTL: ok.TTL},
		{Time: t + 10_000, Type: history.OK, Process: p, F: history.FAcquire, Key: ok.Key, Token: fmt.Sprintf("dup%d", at), TTL: ok.TTL, Validity: t + ok.TTL/2},
		{Time: t + 20_000, Type: history.Invoke, Process: p, F: history.FRelease, Key: ok.Key, Token: fmt.Sprintf("dup%d", at)},
		{Time: t + 30_000, Type: history.OK, Process: p, F: history.FRelease, Key: ok.Key, Token: fmt.Sprintf("dup%d", at)},
	}
	out := append(slices.Clone(h[:at+1]), add...)
	out = append(out, h[at+1:]...)
	return historytest.Sorted(out)
}

// injectStaleRead makes the first read ok at or after record at of a
// counter above zero return the value before it: the counter's critical
// sections cannot be linearized.
func injectStaleRead(h history.History, at int) history.History {
	h = slices.Clone(h)
	for h[at].F != history.FRead || h[at].Type != history.OK || h[at].Value < 2 {
		at++
	}
	h[at].Value--
	return h
}

// invalidHistories are the valid-formed testdata histories and generated
// ones with a double grant and a stale read injected, in one segment or many.
func invalidHistories(t *testing.T) map[string]history.History {
	out := map[string]history.History{}
	files, _ := filepath.Glob("../checker/testdata/*.jsonl")
	for _, f := range files {
		h, _, err := history.ReadFile(f)
		if err == nil && checker.Validate(h) == nil {
			out[filepath.Base(f)] = h
		}
	}
	for _, n := range []int{3000, 40_000} {
		h := bigHistory(n, 8, 3)
		h = injectDoubleGrant(h, len(h)/3)
		out[fmt.Sprintf("generated-%d", n)] = injectStaleRead(h, len(h)*2/3)
	}
	out["generated-40000-counter-only"] = injectStaleRead(bigHistory(40_000, 8, 4), 60_000)
	return out
}

// Each not-linearizable anomaly of the lock and counter checks has its
// ops on an INVALID porcupine page of its kind, one of them left out by a
// longest partial linearization: the search that named them.
func TestPorcupinePagesShowTheCheckAnomalies(t *testing.T) {
	for name, h := range invalidHistories(t) {
		dir := t.TempDir()
		cfg := config.Config{Name: name, Lock: "single", Workload: "counter", Clients: 8, Nodes: 1, TTL: 300 * time.Millisecond}
		res := &analysis.Result{Dir: dir, Config: cfg, History: history.Slice(h)}
		res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
		if err := Write(res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range res.Verdict.Results {
			base := store.PorcupineFile
			if r.Name == "resource" {
				base = store.PorcupineCounterFile
			} else if r.Name != "lock" {
				continue
			}
			for _, a := range r.Anomalies {
				if a.Kind != "nonlinearizable" || len(a.Ops) == 0 {
					continue
				}
				shown := ""
				for _, f := range porcupinePages(dir, base) {
					if p := readPorcupinePage(t, dir, f); p.shows(a.Ops) && strings.Contains(p.Title, "INVALID") {
						shown = f
						break
					}
				}
				if shown == "" {
					t.Errorf("%s: %s anomaly ops %v: no %s page draws them all, one left out of a longest partial linearization", name, r.Name, a.Ops, base)
					continue
				}
				t.Logf("%s: %s anomaly ops %v shown on %s", name, r.Name, a.Ops, shown)
			}
		}
	}
}
