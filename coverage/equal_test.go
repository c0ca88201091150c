package coverage

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/lease"
)

// cover is Compute of h in memory; it fails the test unless Compute of
// h's file, a fed Pass and the oracle (computeWhole) give the same report.
func cover(t testing.TB, h history.History, in Input) *Report {
	t.Helper()
	r, _ := coverPasses(t, h, in)
	return r
}

func coverPasses(t testing.TB, h history.History, in Input) (*Report, int) {
	t.Helper()
	got, passes, err := compute(history.Slice(h), in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	fromFile, filePasses, err := compute(history.File(path), in)
	if err != nil {
		t.Fatal(err)
	}
	fed, leases := NewPass(in), lease.NewTracker(lease.Options{Drift: in.Leases.Drift, DriftFactor: in.Leases.DriftFactor, Forget: true}) // handed the records by another reader (the check)
	for i := range h {
		fed.Add(&h[i], leases.Add(&h[i]))
	}
	fromFed, err := fed.Report(history.Slice(h), leases.Finish())
	if err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	f, _ := json.Marshal(fromFile)
	p, _ := json.Marshal(fromFed)
	w, _ := json.Marshal(computeWhole(h, in))
	if string(g) != string(w) || string(f) != string(w) || string(p) != string(w) || passes != filePasses {
		t.Fatalf("Compute (%d passes):\n%s\nfrom the file (%d passes):\n%s\nfed:\n%s\nthe whole history's:\n%s", passes, g, filePasses, f, p, w)
	}
	return got, passes
}

// touches renders each window: its kind and targets, whether it was
// applied or healed, and what it touched ("-": nothing).
func touches(r *Report) string {
	show := func(t *Touch) string {
		if t == nil {
			return "-"
		}
		return fmt.Sprintf("%s %s@%d", t.When, t.Client, t.Op)
	}
	var out []string
	for _, w := range r.Windows {
		s := fmt.Sprintf("%s %v%v", w.Kind, w.Nodes, w.Clients)
		if w.NodesOnly {
			s += " nodes only"
		}
		if !w.Applied {
			s += " not applied"
		}
		if w.Unhealed {
			s += fmt.Sprintf(" unhealed to %dms (stop op %d)", w.End/historytest.MS, w.StopOp)
		}
		out = append(out, fmt.Sprintf("%s: holder %s, waiter %s, write %s", s, show(w.Holder), show(w.Waiter), show(w.Write)))
	}
	return strings.Join(out, "; ")
}

// Shortfall lines of the tables' cases.
const (
	untouched    = "client-pause [][c1]: holder -, waiter -, write -"
	neverTouched = "the one client-pause fault never touched a lock holder or waiter (need 1; --min-coverage 0 turns this off)"
	notApplied   = "client-pause was requested but no client-pause fault was applied (planned 1)"
)

// touchCase is a hand-built history, the Input it is covered under first
// (nil: in), and what each window touched and the shortfall for a bar of 1.
type touchCase struct {
	name        string
	in          *Input
	build       func(b *historytest.Builder)
	want, short string
}

var (
	c1    = historytest.Client("c1")
	crash = Input{Clients: in.Clients, Nodes: in.Nodes, Requested: []string{"crash"}}
)

// leaseTouchCases: holders, waiters and writes, and how a lease ends.
func leaseTouchCases() []touchCase {
	endedBefore := func(validityMS int64, end func(b *historytest.Builder)) func(b *historytest.Builder) {
		return func(b *historytest.Builder) {
			b.Add(0, history.Invoke, 1, history.FAcquire, "k", "", c1)
			b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", c1, historytest.Validity(validityMS))
			end(b)
			b.Start(20, history.OK, "client-pause", historytest.Clients("c1")).Stop(50, "client-pause")
		}
	}
	return []touchCase{
		{"held at the start", nil, func(b *historytest.Builder) {
			heldThenPaused(b, 1, "c1")
			b.Op(60, 61, history.OK, 1, history.FRelease, "k", "", c1)
		}, "client-pause [][c1]: holder start c1@1, waiter -, write -", ""},
		{"another client's pause", nil, func(b *historytest.Builder) { heldThenPaused(b, 2, "c2") }, untouched, neverTouched},
		{"holder, waiter and write during", nil, func(b *historytest.Builder) {
			b.Start(5, history.OK, "client-pause", historytest.Clients("c1"))
			b.Add(10, history.Invoke, 1, history.FAcquire, "k", "", c1)
			b.Add(20, history.OK, 1, history.FAcquire, "k", "c1", c1)
			b.Op(25, 30, history.OK, 1, history.FWrite, "k", "", c1)
			b.Stop(40, "client-pause")
		}, "client-pause [][c1]: holder during c1@3, waiter during c1@2, write during c1@4", ""},
		{"waiter and write during, an acquire never completed", nil, func(b *historytest.Builder) {
			b.Start(5, history.OK, "client-pause", historytest.Clients("c1"))
			b.Add(10, history.Invoke, 1, history.FAcquire, "k", "", c1)
			b.Add(12, history.OK, 1, history.FAcquire, "k", "c1", c1)
			b.Op(14, 16, history.OK, 1, history.FWrite, "k", "", c1)
			b.Op(18, 19, history.OK, 1, history.FRelease, "k", "", c1)
			b.Add(20, history.Invoke, 1, history.FAcquire, "k", "", c1) // never completes
			b.Stop(50, "client-pause")
		}, "client-pause [][c1]: holder during c1@3, waiter during c1@2, write during c1@4", ""},
		{"ended by a release", nil, endedBefore(0, func(b *historytest.Builder) {
			b.Add(15, history.Invoke, 1, history.FRelease, "k", "", c1)
		}), untouched, neverTouched},
		{"ended by a lost notice", nil, endedBefore(0, func(b *historytest.Builder) {
			b.Add(15, history.Info, 1, history.FLost, "k", "c1", c1)
		}), untouched, neverTouched},
		{"ended at its validity", nil, endedBefore(18, func(*historytest.Builder) {}), untouched, neverTouched},
		{"release, lost notice and validity", nil, func(b *historytest.Builder) {
			b.Add(1, history.OK, 1, history.FAcquire, "k", "c1", c1)
			b.Add(3, history.Invoke, 1, history.FRelease, "k", "", c1)
			b.Add(4, history.OK, 2, history.FAcquire, "k", "c2", historytest.Client("c2"))
			b.Add(6, history.Info, 2, history.FLost, "", "c2", historytest.Client("c2"))
			b.Add(7, history.OK, 3, history.FAcquire, "k", "c1", c1, historytest.Validity(9))
			b.Start(8, history.OK, "client-pause", historytest.Clients("c1", "c2")).Stop(12, "client-pause")
		}, "client-pause [][c1 c2]: holder -, waiter -, write -", neverTouched},
	}
}

// faultTouchCases: node faults, faults not applied or unhealed, runs
// without slots or faults, extends.
func faultTouchCases() []touchCase {
	extended := func(p int, token, fault string, mods ...historytest.Mod) func(b *historytest.Builder) {
		return func(b *historytest.Builder) {
			b.Add(10, history.Invoke, 1, history.FAcquire, "k", "", c1)
			b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", c1, historytest.Validity(18))
			b.Add(15, history.Invoke, p, history.FExtend, "k", token, append(mods, c1)...)
			b.Add(16, history.OK, p, history.FExtend, "k", token, append(mods, c1, historytest.Validity(100))...)
			b.Start(20, history.OK, fault, historytest.Clients("c1")).Stop(50, fault)
		}
	}
	return []touchCase{
		{"node faults and the lease's nodes", &crash, func(b *historytest.Builder) {
			b.Add(0, history.Invoke, 1, history.FAcquire, "k", "", c1)
			b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", c1, historytest.Nodes("n1", "n2"))
			b.Start(20, history.OK, "crash", historytest.Nodes("n3")).Stop(30, "crash") // not in the lease
			b.Start(40, history.OK, "crash", historytest.Nodes("n2")).Stop(50, "crash") // in the lease
		}, "crash [n3][c1 c2] nodes only: holder -, waiter -, write -; crash [n2][c1 c2] nodes only: holder start c1@1, waiter -, write -", ""},
		{"a lease without nodes involves every node", nil, func(b *historytest.Builder) {
			b.Add(10, history.Invoke, 1, history.FAcquire, "k", "", historytest.Client("c2"))
			b.Add(10, history.OK, 1, history.FAcquire, "k", "c2", historytest.Client("c2"))
			b.Start(20, history.OK, "crash", historytest.Nodes("n3")).Stop(30, "crash")
		}, "crash [n3][c1 c2] nodes only: holder start c2@1, waiter -, write -", notApplied},
		{"a start completed info", nil, func(b *historytest.Builder) {
			b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", c1)
			b.Start(20, history.Info, "client-pause", historytest.Clients("c1")).Stop(50, "client-pause")
		}, "client-pause [][c1] not applied: holder -, waiter -, write -", notApplied},
		{"unhealed", nil, func(b *historytest.Builder) {
			b.Start(20, history.OK, "client-pause", historytest.Clients("c1"))
			b.Add(100, history.Invoke, 1, history.FAcquire, "k", "", c1)
			b.Add(110, history.OK, 1, history.FAcquire, "k", "c1", c1)
		}, "client-pause [][c1] unhealed to 110ms (stop op -1): holder during c1@3, waiter during c1@2, write -", ""},
		{"no client slots", nil, func(b *historytest.Builder) {
			b.Add(1, history.Invoke, 1, history.FAcquire, "k", "")
			b.Start(20, history.OK, "client-pause", historytest.Clients("c1")).Stop(50, "client-pause")
		}, untouched, "coverage cannot be judged: " + noSlots + " (--min-coverage 0 turns this off)"},
		{"no faults", nil, func(b *historytest.Builder) {
			b.Add(10, history.OK, 1, history.FAcquire, "k", "c1", c1)
		}, "", notApplied},
		{"an acquire invoked again", nil, func(b *historytest.Builder) { // the first never completes
			b.Add(10, history.Invoke, 1, history.FAcquire, "k", "", c1)
			b.Add(30, history.Invoke, 1, history.FAcquire, "k", "", c1)
			b.Add(31, history.Fail, 1, history.FAcquire, "k", "", c1)
			b.Start(20, history.OK, "client-pause", historytest.Clients("c1")).Stop(25, "client-pause")
		}, "client-pause [][c1]: holder -, waiter start c1@0, write -", ""},
		// an extend moves the lease's end past the acquire's validity, also
		// a watchdog's, recorded under a process of its own and matched by
		// token
		{"an extend", nil, extended(1, "", "client-pause"), "client-pause [][c1]: holder start c1@1, waiter -, write -", ""},
		{"a watchdog's extend", nil, extended(7, "c1", "partition", historytest.Detail("watchdog")), "partition [][c1]: holder start c1@1, waiter -, write -", notApplied},
	}
}

// Each rule of evidence on a hand-built history: what each window
// touched and the shortfall for a bar of 1. cover checks every case
// against the whole-history oracle, also under an Input requesting crash.
func TestWindowTouches(t *testing.T) {
	for _, tc := range append(leaseTouchCases(), faultTouchCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			b := historytest.New()
			tc.build(b)
			first := in
			if tc.in != nil {
				first = *tc.in
			}
			r := cover(t, b.History(), first)
			cover(t, b.History(), crash)
			if got, short := touches(r), strings.Join(r.Shortfall(1), "; "); got != tc.want || short != tc.short {
				t.Errorf("got  %s | %s\nwant %s | %s", got, short, tc.want, tc.short)
			}
		})
	}
}

// Compute gives the oracle's report on random histories; one in time
// order is read once, one out of order may be read twice (some are).
func TestComputeEqualsWholeRandom(t *testing.T) {
	in := Input{Requested: []string{"client-pause", "partition"}, Planned: map[string]int{"crash": 2},
		Clients: []string{"c1", "c2", "c3"}, Nodes: []string{"n1", "n2", "n3"}}
	twice := 0
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		ordered := seed%2 == 0
		h := randomHistory(rng, 20+rng.IntN(400), ordered)
		in.Leases = lease.Options{}
		if seed%4 < 2 { // validities believed with Redlock's drift allowance
			in.Leases = lease.Options{Drift: lease.FixedDrift, DriftFactor: lease.DriftFactor}
		}
		_, passes := coverPasses(t, h, in)
		if ordered && passes != 1 {
			t.Fatalf("seed %d: a history in time order read %d times", seed, passes)
		}
		if passes == 2 {
			twice++
		}
	}
	if twice == 0 {
		t.Error("no history out of time order was read twice: the second read is untested")
	}
}

// Compute gives the oracle's report on the benchmarks' generated run of
// 8 slots, one read.
func TestComputeEqualsWholeBench(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := writeBench(path, 60_000); err != nil {
		t.Fatal(err)
	}
	h, _, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, passes := coverPasses(t, h, benchInput)
	if passes != 1 || len(r.Windows) < 10 || r.Kind("partition").TouchedHolder == 0 || r.Kind("client-pause").TouchedWrite == 0 {
		t.Fatalf("%d passes, %d windows, kinds %+v", passes, len(r.Windows), r.Kinds)
	}
}

// randomHistory is a random history of n records or so of 6 processes
// on slots c1 to c3 (process 5 without a slot), a fault action now and
// then; times whole ms, increasing unless !ordered.
func randomHistory(rng *rand.Rand, n int, ordered bool) history.History {
	b := historytest.New()
	var t int64
	pending := map[int]string{} // process -> F of its invoke in flight
	tokens := map[int]string{}
	var later []history.Op // nemesis completions to record a few records on
	for b.Len() < n {
		t += 1 + rng.Int64N(4)
		at := t
		if !ordered && rng.IntN(6) == 0 {
			at = max(t-rng.Int64N(25), 0)
		}
		if len(later) > 0 && rng.IntN(3) == 0 {
			o := later[0]
			later, o.Time = later[1:], at*historytest.MS
			b.Append(o)
			continue
		}
		if rng.IntN(12) == 0 {
			later = append(later, nemesisAction(b, rng, at)...)
			continue
		}
		p := rng.IntN(6)
		o := history.Op{Time: at * historytest.MS, Process: p, Client: []string{"c1", "c1", "c2", "c2", "c3", ""}[p], Key: "k"}
		f, inFlight := pending[p]
		switch {
		case inFlight && rng.IntN(5) > 0:
			o.F, o.Type = f, []history.Type{history.OK, history.OK, history.Fail, history.Info}[rng.IntN(4)]
			delete(pending, p)
		case rng.IntN(15) == 0:
			o.F, o.Type, o.Token = history.FLost, history.Info, []string{"", tokens[p], "other"}[rng.IntN(3)]
		default:
			o.F = []string{history.FAcquire, history.FAcquire, history.FWrite, history.FRelease, history.FExtend, history.FRead}[rng.IntN(6)]
			o.Type = history.Invoke
			if rng.IntN(20) == 0 {
				o.Type = history.OK // a completion with no invoke
			}
			if (o.F == history.FAcquire || o.F == history.FExtend) && rng.IntN(2) == 0 {
				o.TTL = (5 + rng.Int64N(40)) * historytest.MS // believed valid to invoke + TTL − drift without a validity
			}
			pending[p] = o.F
		}
		if o.Type == history.OK && (o.F == history.FAcquire || o.F == history.FExtend) {
			tokens[p] = fmt.Sprintf("t%d", b.Len())
			o.Token, o.Nodes = tokens[p], [][]string{nil, {"n1"}, {"n2", "n3"}}[rng.IntN(3)]
			if rng.IntN(2) == 0 {
				o.Validity = (at + rng.Int64N(60) - 5) * historytest.MS
			}
		}
		b.Append(o)
	}
	return b.History()
}

// nemesisAction records the first record of a fault's start or stop,
// and returns its completion (to be recorded later; none for an action
// of one record or one never completed). at is in ms.
func nemesisAction(b *historytest.Builder, rng *rand.Rand, at int64) []history.Op {
	o := history.Op{Time: at * historytest.MS, Process: history.NemesisProcess, Fault: []string{"client-pause", "partition", "crash"}[rng.IntN(3)],
		F: history.FStart, Type: history.Invoke}
	if rng.IntN(2) == 0 {
		o.F = history.FStop
	}
	if o.F == history.FStart {
		o.Clients = [][]string{nil, {"c1"}, {"c2", "c3"}}[rng.IntN(3)]
		o.Nodes = [][]string{nil, {"n2"}}[rng.IntN(2)]
	}
	switch rng.IntN(5) {
	case 0: // one record
		o.Type = []history.Type{history.OK, history.Info}[rng.IntN(2)]
		b.Append(o)
		return nil
	case 1: // never completed
		b.Append(o)
		return nil
	}
	b.Append(o)
	o.Type = []history.Type{history.OK, history.OK, history.Info, history.Fail}[rng.IntN(4)]
	return []history.Op{o}
}
