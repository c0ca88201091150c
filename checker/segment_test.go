package checker

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// signature is a result's verdicts and anomalies (kind and op indices),
// part by part, in a canonical order: what the segmented check must
// reproduce exactly.
func signature(r Result) []string {
	out := []string{fmt.Sprintf("%s: %v", r.Name, r.Valid)}
	var as []string
	for _, a := range r.Anomalies {
		as = append(as, fmt.Sprintf("  %s %s %v %v fatal=%v", r.Name, a.Kind, a.Ops, a.Faults, a.Fatal))
	}
	slices.Sort(as)
	out = append(out, as...)
	for _, p := range r.Results {
		out = append(out, signature(p)...)
	}
	return out
}

// checkBoth checks h whole and segmented with the standard composition and
// fails unless verdicts and anomalies are identical; it returns the
// number of segments.
func checkBoth(t *testing.T, name string, h history.History, o Options) int {
	t.Helper()
	c := Standard(o)
	whole := c.Check(context.Background(), h)
	seg := c.CheckSegmented(context.Background(), h)
	ws, ss := signature(whole), signature(seg)
	if !slices.Equal(ws, ss) {
		t.Errorf("%s: segmented check differs\nwhole:\n%s\nsegmented:\n%s", name, join(ws), join(ss))
	}
	return len(Segments(h, o.Lock.Drift, o.Lock.DriftFactor)) + 1
}

func join(s []string) string {
	out := ""
	for _, x := range s {
		out += x + "\n"
	}
	return out
}

func TestSegmentsOfGeneratedHistory(t *testing.T) {
	h := newGen(42, 8, 3).run(20_000, true)
	cuts := Segments(h, DefaultDrift, DefaultDriftFactor)
	if len(cuts) < 5 {
		t.Fatalf("only %d cuts in %d records", len(cuts), len(h))
	}
	t.Logf("%d segments, mean %d records", len(cuts)+1, len(h)/(len(cuts)+1))
}

// injectAt adds records of a fresh process at time t: f with the given
// type, key, token and fence, invoked at t and completed 1 µs later.
func (g *gen) injectOp(t int64, f string, typ history.Type, key, token string, fence, value int64) {
	p := g.nextProc
	g.nextProc++
	g.rec(history.Op{Type: history.Invoke, Process: p, F: f, Key: key, Token: token, Fence: fence, Value: value, TTL: g.ttl, Time: t})
	o := history.Op{Type: typ, Process: p, F: f, Key: key, Token: token, Fence: fence, Value: value, Time: t + us}
	if f == history.FAcquire && typ == history.OK {
		o.TTL, o.Validity = g.ttl, g.validity(t)
	}
	g.rec(o)
}

// TestSegmentedEqualsWhole: on generated histories, valid and with
// injected violations, the segmented check gives the whole check's
// verdicts, anomaly kinds and op indices.
func TestSegmentedEqualsWhole(t *testing.T) {
	n := 20_000
	if !testing.Short() {
		n = 100_000
	}
	opts := func() Options { return Options{Lock: NewLock(), Fencing: true} }
	mid := func(g *gen) int64 { return g.leases[len(g.leases)/2].ok }
	cases := []struct {
		name   string
		inject func(g *gen) history.History
	}{
		{"valid", func(g *gen) history.History { return g.history() }},
		{"double-grant", func(g *gen) history.History { return g.injectOverlap(len(g.leases) / 2) }},
		{"double-grant-late", func(g *gen) history.History { return g.injectOverlap(len(g.leases) - 5) }},
		{"lost-update", func(g *gen) history.History { return g.injectLostUpdate(len(g.leases) / 3) }},
		{"stale-fence-accepted", func(g *gen) history.History {
			g.injectOp(mid(g), history.FWrite, history.OK, "counter0", "", 1, -7)
			return g.history()
		}},
		{"token-reuse", func(g *gen) history.History {
			l := g.leases[len(g.leases)-3]
			g.injectOp(l.relAt+50*ms, history.FAcquire, history.OK, l.key, "t5", 0, 0)
			return g.history()
		}},
		{"write-after-validity", func(g *gen) history.History {
			g.injectOp(mid(g)+3*ms, history.FWrite, history.OK, "counter1", "", 0, 12345)
			return g.history()
		}},
		{"info-straddles-cut", func(g *gen) history.History {
			h := g.history()
			cuts := Segments(h, DefaultDrift, DefaultDriftFactor)
			for _, c := range cuts[len(cuts)/3 : len(cuts)/3+3] {
				// an info extend of an earlier lease after the cut, and an
				// info acquire invoked before it
				before := h[c-1]
				for j := c - 1; j >= 0; j-- {
					if h[j].F == history.FAcquire && h[j].Type == history.OK {
						g.injectOp(h[c].Time, history.FExtend, history.Info, h[j].Key, h[j].Token, 0, 0)
						break
					}
				}
				g.injectOp(before.Time, history.FAcquire, history.Info, "lock0", "", 0, 0)
			}
			return g.history()
		}},
		{"release-ok-after-expiry", func(g *gen) history.History {
			// a late release ok of an old lease: the lock still held it
			// unless someone took it over (a cross-cut reference)
			l := g.leases[len(g.leases)/4]
			g.injectOp(l.relAt+2*g.ttl, history.FRelease, history.OK, l.key, "t"+fmt.Sprint(len(g.leases)/4), 0, 0)
			return g.history()
		}},
	}
	for _, seed := range []uint64{1, 2} {
		for _, tc := range cases {
			g := newGen(seed, 8, 3)
			g.run(n, true)
			h := tc.inject(g)
			segs := checkBoth(t, fmt.Sprintf("seed %d %s", seed, tc.name), h, opts())
			if segs < 3 {
				t.Errorf("seed %d %s: %d segments", seed, tc.name, segs)
			}
		}
	}
}

// TestSegmentedTestdata: every hand-written history checks the same
// segmented and whole.
func TestSegmentedTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		h, _, err := history.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkBoth(t, f, h, Options{Lock: NewLock(), Fencing: true})
	}
}
