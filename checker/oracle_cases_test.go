package checker

import (
	"fmt"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// oracleCase is a generated history with one injected violation (or
// none) that the segmented check must judge as the whole check does.
type oracleCase struct {
	name   string
	want   string // a part that must be invalid, "" for a valid history, "?" for either
	inject func(g *historytest.Gen) history.History
}

// oracleCases are TestCheckSourceEqualsWholeOracle's histories: valid,
// each checker's violation, and the shapes that stress the cuts.
func oracleCases(t *testing.T) []oracleCase {
	return append(append(violationOracleCases(), cutOracleCases(t)...), sectionOracleCases(t)...)
}

// violationOracleCases are a valid history and one violation of each
// checker.
func violationOracleCases() []oracleCase {
	mid := func(g *historytest.Gen) int64 { return g.Leases[len(g.Leases)/2].OK }
	return []oracleCase{
		{"valid", "", func(g *historytest.Gen) history.History { return g.History() }},
		{"double-grant", "lock", func(g *historytest.Gen) history.History { return g.InjectOverlap(len(g.Leases) / 2) }},
		{"double-grant-late", "lock", func(g *historytest.Gen) history.History { return g.InjectOverlap(len(g.Leases) - 5) }},
		{"lost-update", "resource", func(g *historytest.Gen) history.History { return g.InjectLostUpdate(len(g.Leases) / 3) }},
		{"stale-fence-accepted", "fencing", func(g *historytest.Gen) history.History {
			g.InjectOp(mid(g), history.FWrite, history.OK, "counter0", "", 1, -7)
			return g.History()
		}},
		{"token-reuse", "tokens", func(g *historytest.Gen) history.History {
			l := g.Leases[len(g.Leases)-3]
			tok := ""
			for _, r := range g.History() {
				if r.F == history.FAcquire && r.Type == history.OK && r.Key == l.Key && r.Token != "" {
					tok = r.Token
					break
				}
			}
			g.InjectOp(l.RelAt+50*ms, history.FAcquire, history.OK, l.Key, tok, 0, 0)
			return g.History()
		}},
		{"write-after-validity", "exclusion", func(g *historytest.Gen) history.History {
			g.InjectOp(mid(g)+3*ms, history.FWrite, history.OK, "counter1", "", 0, 12345)
			return g.History()
		}},
	}
}

// cutOracleCases are the histories that stress where the check cuts:
// operations with unknown outcome across a cut, one-node grants.
func cutOracleCases(t *testing.T) []oracleCase {
	return []oracleCase{
		{"info-straddles-cut", "", func(g *historytest.Gen) history.History {
			h := g.History()
			segs := Segments(h, DefaultDrift, DefaultDriftFactor)
			for _, s := range segs[len(segs)/3 : len(segs)/3+3] {
				c := s.Start
				// an info extend of an earlier lease after the cut, and an
				// info acquire invoked before it
				before := h[c-1]
				for j := c - 1; j >= 0; j-- {
					if h[j].F == history.FAcquire && h[j].Type == history.OK {
						g.InjectOp(h[c].Time, history.FExtend, history.Info, h[j].Key, h[j].Token, 0, 0)
						break
					}
				}
				g.InjectOp(before.Time, history.FAcquire, history.Info, "lock0", "", 0, 0)
			}
			return g.History()
		}},
		{"one-node", "?", func(g *historytest.Gen) history.History {
			// every grant names one node: a takeover bounds the lease from
			// the model's now, so waiting acquires pin the cuts
			return oneNode(g.History())
		}},
	}
}

// sectionOracleCases are the counter sections and late releases that
// refer across a cut.
func sectionOracleCases(t *testing.T) []oracleCase {
	return []oracleCase{
		{"sections-overlap-before-cut", "resource", func(g *historytest.Gen) history.History {
			// a paused holder's section (its write rejected) overlaps the
			// last section before a cut, so the value at the cut is only
			// known to be v+1 from the order of the two; a section that
			// reads v and writes v+1 right after the cut is an anomaly the
			// segments must not miss (a carried value set {v, v+1} missed
			// it: both that section and the next holder's fit it)
			h := g.History()
			segs := Segments(h, DefaultDrift, DefaultDriftFactor)
			c := segs[len(segs)/2].Start
			for j := c - 1; j >= 0; j-- {
				w := h[j]
				if w.F != history.FWrite || w.Type != history.OK {
					continue
				}
				read := h[j-1] // the write's invoke; the read ok is before it
				for read.Process != w.Process || read.F != history.FRead || read.Type != history.OK {
					read = h[int(read.Index)-1]
				}
				v, T := read.Value, h[c].Time
				p := g.NewProcess()
				g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FRead, Key: w.Key, Time: read.Time - 2*us})
				g.Rec(history.Op{Type: history.OK, Process: p, F: history.FRead, Key: w.Key, Value: v, Time: read.Time - us})
				g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FWrite, Key: w.Key, Value: v + 1, Fence: 1, Time: T - 2*us})
				g.Rec(history.Op{Type: history.Fail, Process: p, F: history.FWrite, Key: w.Key, Value: v + 1, Fence: 1, Time: T - us, Error: StaleError})
				q := g.NewProcess()
				g.Rec(history.Op{Type: history.Invoke, Process: q, F: history.FRead, Key: w.Key, Time: T + us})
				g.Rec(history.Op{Type: history.OK, Process: q, F: history.FRead, Key: w.Key, Value: v, Time: T + 2*us})
				g.Rec(history.Op{Type: history.Invoke, Process: q, F: history.FWrite, Key: w.Key, Value: v + 1, Time: T + 3*us})
				g.Rec(history.Op{Type: history.OK, Process: q, F: history.FWrite, Key: w.Key, Value: v + 1, Time: T + 4*us})
				return g.History()
			}
			t.Fatal("no write before the cut")
			return nil
		}},
		{"unknown-write-read-again", "?", func(g *historytest.Gen) history.History {
			// a section reads, after a cut, the value an earlier section
			// with unknown outcome read before it: that section may be
			// linearized after the cut, so no cut may separate them
			h := g.History()
			segs := Segments(h, DefaultDrift, DefaultDriftFactor)
			for _, r := range h[:len(h)/2] {
				if r.F != history.FWrite || r.Type != history.Info {
					continue
				}
				for _, sg := range segs {
					if sg.Start > int(r.Index)+100 {
						T, p := h[sg.Start].Time, g.NewProcess()
						g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FRead, Key: r.Key, Time: T + us})
						g.Rec(history.Op{Type: history.OK, Process: p, F: history.FRead, Key: r.Key, Value: r.Value - 1, Time: T + 2*us})
						g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FWrite, Key: r.Key, Value: r.Value, Time: T + 3*us})
						g.Rec(history.Op{Type: history.Fail, Process: p, F: history.FWrite, Key: r.Key, Value: r.Value, Time: T + 4*us, Error: StaleError})
						return g.History()
					}
				}
			}
			t.Fatal("no write with unknown outcome")
			return nil
		}},
		{"release-ok-after-expiry", "lock", func(g *historytest.Gen) history.History {
			// a late release ok of an old lease: the lock still held it
			// unless someone took it over (a cross-cut reference)
			l := g.Leases[len(g.Leases)/4]
			g.InjectOp(l.RelAt+2*g.TTL, history.FRelease, history.OK, l.Key, "t"+fmt.Sprint(len(g.Leases)/4), 0, 0)
			return g.History()
		}},
	}
}
