package checker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
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
// streamed is the stats of checkBoth's CheckSource.
var streamed StreamStats

func checkBoth(t *testing.T, name string, h history.History, o Options) (int, Result) {
	t.Helper()
	c := Standard(o)
	whole := c.checkWhole(context.Background(), h) // the oracle: every checker on the whole history
	ws := signature(whole)
	defer smallSegments(testMinSegment)()
	if len(h) < 1000 { // a hand-written history: cut wherever the check may
		minSegment = 1
	}
	seg := c.Check(context.Background(), h)
	if ss := signature(seg); !slices.Equal(ws, ss) {
		t.Errorf("%s: segmented check differs\nwhole:\n%s\nsegmented:\n%s", name, join(ws), join(ss))
	}
	// streamed from a file, in small segments
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	str, _, err := c.CheckSource(context.Background(), history.File(path))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	streamed = lastStream
	if fs := signature(str); !slices.Equal(ws, fs) {
		t.Errorf("%s: streamed check differs\nwhole:\n%s\nstreamed:\n%s", name, join(ws), join(fs))
	}
	return len(Segments(h, o.Lock.Drift, o.Lock.DriftFactor)), whole
}

// smallSegments lets the check cut a history from its first records into
// segments of at least min records, until the returned restore is called.
func smallSegments(min int) (restore func()) {
	m, o := minSegment, oneSegment
	minSegment, oneSegment = min, 0
	return func() { minSegment, oneSegment = m, o }
}

// testMinSegment is checkBoth's minSegment for a generated history.
var testMinSegment = 50

func join(s []string) string { return strings.Join(s, "\n") + "\n" }

func TestSegmentsOfGeneratedHistory(t *testing.T) {
	h := historytest.NewGen(42, 8, 3).Run(20_000, true)
	segs := Segments(h, DefaultDrift, DefaultDriftFactor)
	if len(segs) < 30 {
		t.Fatalf("only %d segments in %d records", len(segs), len(h))
	}
	t.Logf("%d segments, mean %d records", len(segs), len(h)/len(segs))
}

// TestCheckSourceEqualsWholeOracle: on generated histories, valid and with
// injected violations, the segmented check gives the whole check's
// verdicts, anomaly kinds and op indices.
func TestCheckSourceEqualsWholeOracle(t *testing.T) {
	n, seeds := 10_000, []uint64{1}
	if !testing.Short() {
		n, seeds = 30_000, []uint64{1, 2, 3}
	}
	opts := func() Options { return Options{Lock: NewLock(), Fencing: true} }
	cases := oracleCases(t)
	merges := 0
	defer func() {
		if merges == 0 {
			t.Error("no streamed segment was merged back: the cross-cut references were not exercised")
		}
	}()
	for _, seed := range seeds {
		for _, tc := range cases {
			g := historytest.NewGen(seed, 8, 3)
			g.Run(n, true)
			h := tc.inject(g)
			segs, whole := checkBoth(t, fmt.Sprintf("seed %d %s", seed, tc.name), h, opts())
			if segs < 3 || streamed.Segments < 3 {
				t.Errorf("seed %d %s: %d segments, streamed %+v", seed, tc.name, segs, streamed)
			}
			merges += streamed.Merges
			t.Logf("seed %d %s: %v, %d segments, streamed %+v", seed, tc.name, whole.Valid, segs, streamed)
			if got := invalidParts(whole); tc.want == "" && whole.Valid != Valid || tc.want != "" && tc.want != "?" && !slices.Contains(got, tc.want) {
				t.Errorf("seed %d %s: verdict %v, invalid parts %v, want %q invalid", seed, tc.name, whole.Valid, got, tc.want)
			}
		}
	}
}

// TestCheckSourceSegmentsTestdata: every hand-written history checks the
// same segmented and whole, and CheckSource on its file as it is (a
// truncated last record, an invalid history, absurd times) gives
// history.ReadFile's warnings and the same result.
func TestCheckSourceSegmentsTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	defer smallSegments(1)() // cut wherever the check may
	c := Standard(Options{Lock: NewLock(), Fencing: true})
	cut := 0
	defer func() {
		if cut < len(files)*2/3 {
			t.Errorf("only %d of %d doubled histories were cut between the copies", cut, len(files))
		}
	}()
	for _, f := range files {
		h, wantWarns, err := history.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkBoth(t, f, h, Options{Lock: NewLock(), Fencing: true})
		got, warns, err := c.CheckSource(context.Background(), history.File(f))
		if err != nil || len(warns) != len(wantWarns) {
			t.Errorf("%s: CheckSource warnings %v error %v, ReadFile %v", f, warns, err, wantWarns)
		} else if ws, gs := signature(c.checkWhole(context.Background(), h)), signature(got); !slices.Equal(ws, gs) {
			t.Errorf("%s: CheckSource differs\nwhole:\n%s\nstreamed:\n%s", f, join(ws), join(gs))
		}
		// the same history twice in a row (times and indices shifted) has
		// a cut between the copies
		h2 := slices.Clone(h)
		var end int64
		for _, r := range h {
			end = max(end, r.Time)
		}
		for _, r := range h {
			r.Index += int64(len(h))
			r.Time += end + int64(10e9)
			if r.Token != "" {
				r.Token += "-2"
			}
			if r.Process >= 0 {
				r.Process += 1000
			}
			h2 = append(h2, r)
		}
		// the whole, segmented and streamed checks agree on verdicts,
		// anomaly kinds and op indices (an anomaly right after the cut
		// included: the second copy's counter starts again from the first
		// copy's initial value)
		checkBoth(t, f+" twice", h2, Options{Lock: NewLock(), Fencing: true})
		if len(Segments(h2, DefaultDrift, DefaultDriftFactor)) >= 2 {
			cut++
		}
	}
}

func invalidParts(r Result) []string {
	var out []string
	for _, p := range r.Results {
		if p.Valid == Invalid {
			out = append(out, p.Name)
		}
	}
	return out
}

// TestCounterCutExact: the cutter cuts only where the counter's value is
// exact, and a later section touching the read of an earlier section with
// unknown outcome refers back to it.
func TestCounterCutExact(t *testing.T) {
	c := newCounterCut()
	i := 0
	rec := func(p int, typ history.Type, f string, v, at int64) int {
		to := c.add(i, &history.Op{Index: int64(i), Process: p, Type: typ, F: f, Key: "c", Value: v, Time: at})
		i++
		return to
	}
	section := func(p int, read, write int64, out history.Type, from, to int64) int {
		rec(p, history.Invoke, history.FRead, 0, from)
		r := rec(p, history.OK, history.FRead, read, from+1)
		rec(p, history.Invoke, history.FWrite, write, to-1)
		if w := rec(p, out, history.FWrite, write, to); r < 0 {
			r = w
		}
		return r
	}
	if section(0, 0, 1, history.OK, 0, 10); !c.exact() {
		t.Fatal("one section: not exact")
	}
	// a rejected section overlapping the next one: the value is 2 only
	// by their order
	section(1, 1, 2, history.Fail, 20, 40)
	section(2, 1, 2, history.OK, 25, 30)
	if c.exact() {
		t.Fatal("overlapping sections before the cut: exact")
	}
	if section(3, 2, 3, history.OK, 50, 60); !c.exact() {
		t.Fatal("one section last again: not exact")
	}
	if got := c.carry(); len(got) != 1 || !got[0].carry.has(3) || got[0].carry.n != 1 {
		t.Fatalf("carry %v, want {3}", got[0].carry)
	}
	// a write with unknown outcome of 4 read 3: the value at a cut is 3
	// or 4
	first := i
	section(4, 3, 4, history.Info, 70, 80)
	if c.exact() {
		t.Fatal("unknown write of the last value: exact")
	}
	if to := section(5, 3, 4, history.OK, 90, 100); to != first {
		t.Fatalf("a section reading 3 again refers to %d, want %d", to, first)
	}
	if !c.exact() {
		t.Fatal("a certain section after the unknown one: not exact")
	}
	if to := section(6, 4, 5, history.OK, 110, 120); to != -1 {
		t.Fatalf("a section not touching 3 refers to %d", to)
	}
	// a stale section writing 3 again: the unknown write may apply after it
	if to := section(7, 2, 3, history.OK, 130, 140); to != first {
		t.Fatalf("a section writing 3 refers to %d, want %d", to, first)
	}
}

// TestCheckSourceCancelled: a cancelled context ends CheckSource promptly,
// with an unknown verdict, not a wrong one.
func TestCheckSourceCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := history.WriteFile(path, historytest.NewGen(3, 8, 3).Run(200_000, true)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	r, _, err := Standard(Options{Fencing: true}).CheckSource(ctx, history.File(path))
	if err != nil {
		t.Fatal(err)
	}
	if r.Valid == Invalid || time.Since(start) > 10*time.Second {
		t.Errorf("cancelled: %v after %s", r.Valid, time.Since(start))
	}
	t.Logf("cancelled: %v (%s) after %s", r.Valid, r.Error, time.Since(start))
}

// TestCheckSourceInvalidBounded: on a 100k-record history with a lost
// update two thirds in, the checks of the file and of the slice explain
// the counter anomaly on its segment, in bounded time, and agree.
func TestCheckSourceInvalidBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("100k records")
	}
	g := historytest.NewGen(11, 8, 3)
	g.Run(100_000, true)
	h := g.InjectLostUpdate(len(g.Leases) * 2 / 3)
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	c := Standard(Options{Fencing: true})
	start := time.Now()
	r, _, err := c.CheckSource(context.Background(), history.File(path))
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("CheckSource took %s", took)
	}
	seg := c.Check(context.Background(), h)
	if fs, ss := signature(r), signature(seg); !slices.Equal(fs, ss) {
		t.Errorf("the check of the file and of the slice differ\nstreamed:\n%s\nsegmented:\n%s", join(fs), join(ss))
	}
	kinds := kindsOf(r.Results[1])
	if r.Results[1].Name != "resource" || kinds["nonlinearizable"] != 1 || kinds["lost-update"] == 0 {
		t.Errorf("resource: %v %v", r.Results[1].Valid, kinds)
	}
}

// Segment is a part of a history as the engine checks it: the records at
// positions [Start, End), and before them the acquire invokes at positions
// Moved (invoked in an earlier segment, completed in this one).
type Segment struct {
	Start, End int
	Moved      []int
}

// Segments cuts h as the engine does when it may cut at every quiescent
// point (see smallSegments), the lock's drift allowance being drift and
// factor; it checks nothing.
func Segments(h history.History, drift time.Duration, factor float64) []Segment {
	defer smallSegments(1)()
	st := newStream(context.Background(), Compose(&Lock{Drift: drift, DriftFactor: factor}), history.Slice(h))
	st.segs = nil
	if _, err := st.run(); err != nil {
		panic(err)
	}
	var segs []Segment
	for _, s := range st.closed {
		sg := Segment{Start: int(s.start), End: int(s.end)}
		for _, m := range s.moved {
			sg.Moved = append(sg.Moved, int(m.Index))
		}
		segs = append(segs, sg)
	}
	return segs
}

// TestFileEqualsWhole checks the file LOCKSTORM_COMPARE_HISTORY (a real
// run's history) whole, segmented and streamed (checkBoth) and fails
// unless verdicts and anomalies are identical. Skipped unless the
// variable is set.
func TestFileEqualsWhole(t *testing.T) {
	path := os.Getenv("LOCKSTORM_COMPARE_HISTORY")
	if path == "" {
		t.Skip("LOCKSTORM_COMPARE_HISTORY not set")
	}
	h, _, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	segs, whole := checkBoth(t, path, h, Options{Lock: NewLock(), Fencing: true})
	t.Logf("%v, %d segments, streamed %+v", whole.Valid, segs, streamed)
}

// TestCheckSourceOverflow: with segments bounded to a few dozen records,
// CheckSource leaves the segments that grow past it unchecked: the lock,
// counter and exclusion checks are Unknown (saying why) unless a checked
// segment proves a violation, never Valid, never Invalid where the whole
// check is not, also when a later record refers back into such a segment;
// Liveness and Fencing stay the whole check's.
func TestCheckSourceOverflow(t *testing.T) {
	defer func(n int) { maxSegRecords = n }(maxSegRecords)
	defer smallSegments(minSegment)()
	c := Standard(Options{Lock: NewLock(), Fencing: true})
	merges := 0
	for _, tc := range oracleCases(t) {
		if !slices.Contains([]string{"valid", "double-grant", "stale-fence-accepted", "release-ok-after-expiry"}, tc.name) {
			continue
		}
		g := historytest.NewGen(5, 8, 1)
		g.Run(5000, true)
		h := tc.inject(g)
		whole := c.Check(context.Background(), h)
		path := filepath.Join(t.TempDir(), "h.jsonl")
		if err := history.WriteFile(path, h); err != nil {
			t.Fatal(err)
		}
		maxSegRecords, minSegment = 40, 1
		str, _, err := c.CheckSource(context.Background(), history.File(path))
		maxSegRecords, minSegment = 1_000_000, 2000
		if err != nil {
			t.Fatal(err)
		}
		if lastStream.Overflowed == 0 || lastStream.Overflowed == lastStream.Segments {
			t.Errorf("%s: %+v: want some segments unchecked, not all", tc.name, lastStream)
		}
		for i, p := range str.Results {
			w := whole.Results[i]
			switch p.Name {
			case "lock", "resource", "exclusion":
				if p.Valid == Valid || p.Valid == Invalid && w.Valid != Invalid ||
					p.Valid == Unknown && !strings.Contains(p.Error, "not checkable in bounded memory") {
					t.Errorf("%s: %s %v (%s), whole %v", tc.name, p.Name, p.Valid, p.Error, w.Valid)
				}
			default:
				if ws, ps := signature(w), signature(p); !slices.Equal(ws, ps) {
					t.Errorf("%s: %s differs\nwhole:\n%s\nstreamed:\n%s", tc.name, p.Name, join(ws), join(ps))
				}
			}
		}
		merges += lastStream.Merges
		t.Logf("%s: whole %v, streamed %v %+v", tc.name, whole.Valid, str.Valid, lastStream)
	}
	if merges == 0 {
		t.Error("no segment merged into one not buffered")
	}
}
