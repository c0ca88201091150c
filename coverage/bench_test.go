package coverage

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// benchRecords is the size of the benchmarks' history.
const benchRecords = 1_200_000

// benchGen generates a lock run's history of 8 client slots on 3 nodes,
// with a fault (a client's pause or a node's partition) every few
// thousand records, healed about a thousand later but the last.
type benchGen struct {
	rng   *rand.Rand
	b     *historytest.Builder
	t     int64
	step  [8]int // each slot's place in its round
	fault int64  // index of the open fault's start, -1 none
	kind  string
}

// writeBench writes a generated history of n records to path.
func writeBench(path string, n int64) error {
	g := &benchGen{rng: rand.New(rand.NewPCG(1, 2)), b: historytest.New(), fault: -1}
	for int64(g.b.Len()) < n {
		g.next(n)
	}
	return history.WriteFile(path, g.b.History())
}

// next appends the next record (or a fault's two).
func (g *benchGen) next(n int64) {
	g.t += g.rng.Int64N(1e6)
	i := int64(g.b.Len())
	switch {
	case g.fault < 0 && i%5000 == 4000 && i+2 < n:
		g.kind = "client-pause"
		o := history.Op{Process: history.NemesisProcess, F: history.FStart, Fault: g.kind, Clients: []string{fmt.Sprintf("c%d", g.rng.IntN(8)+1)}}
		if g.rng.IntN(2) == 0 {
			g.kind = "partition"
			o.Fault, o.Clients, o.Nodes = g.kind, nil, []string{fmt.Sprintf("n%d", g.rng.IntN(3)+1)}
		}
		g.fault = i
		g.pair(o)
		return
	case g.fault >= 0 && i-g.fault > 1000 && i+2 < n-5000:
		g.fault = -1
		g.pair(history.Op{Process: history.NemesisProcess, F: history.FStop, Fault: g.kind})
		return
	}
	p := g.rng.IntN(8)
	o := history.Op{Time: g.t, Process: p, Client: fmt.Sprintf("c%d", p+1), Key: "k"}
	rounds := []struct {
		t history.Type
		f string
	}{{history.Invoke, history.FAcquire}, {history.OK, history.FAcquire}, {history.Invoke, history.FWrite},
		{history.OK, history.FWrite}, {history.Invoke, history.FExtend}, {history.OK, history.FExtend},
		{history.Invoke, history.FRelease}, {history.OK, history.FRelease}}
	r := rounds[g.step[p]]
	o.Type, o.F = r.t, r.f
	if r.t == history.OK && (r.f == history.FAcquire || r.f == history.FExtend) {
		o.Token, o.Validity, o.Nodes = fmt.Sprintf("t%d", i), g.t+2e9, []string{"n1", "n2", "n3"}
	}
	g.step[p] = (g.step[p] + 1) % len(rounds)
	if g.step[p] == 6 && g.rng.IntN(20) == 0 { // now and then the lease is lost instead
		o = history.Op{Time: g.t, Process: p, Client: o.Client, Type: history.Info, F: history.FLost, Key: "k"}
		g.step[p] = 0
	}
	g.b.Append(o)
}

// pair appends a nemesis action: its invoke and its ok.
func (g *benchGen) pair(o history.Op) {
	o.Time, o.Type = g.t, history.Invoke
	g.b.Append(o)
	o.Type = history.OK
	g.b.Append(o)
}

// benchFile writes the benchmarks' history to a temporary file.
func benchFile(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "history.jsonl")
	if err := writeBench(path, benchRecords); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchInput is the Input of the benchmarks' run.
var benchInput = Input{Requested: []string{"client-pause", "partition"},
	Clients: []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"}, Nodes: []string{"n1", "n2", "n3"}}

// BenchmarkCompute is the coverage of a 1.2M-record history read from
// its file; records/s = 1.2M / (ns/op) · 1e9.
func BenchmarkCompute(b *testing.B) {
	path := benchFile(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Compute(history.File(path), benchInput)
		if err != nil || len(r.Windows) == 0 || r.Kind("partition").TouchedHolder == 0 {
			b.Fatalf("%v %+v", err, r.Kinds)
		}
	}
	b.ReportMetric(benchRecords*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkReadFile compares two reads of the same file: the summary
// (nemesis records only: history.SummarizeFile, which analysis.Load uses)
// and a Source's cursor (every record decoded: what Compute reads).
func BenchmarkReadFile(b *testing.B) {
	path := benchFile(b)
	b.Run("SummarizeFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := history.SummarizeFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("history.File", func(b *testing.B) {
		for b.Loop() {
			if err := history.Each(history.File(path), func(*history.Op) bool { return true }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkComputeSlice is the coverage of a 400k-record history held in
// memory: Compute over history.Slice, and the in-memory Compute it
// replaced (computeWhole, the tests' oracle).
func BenchmarkComputeSlice(b *testing.B) {
	path := filepath.Join(b.TempDir(), "history.jsonl")
	if err := writeBench(path, 400_000); err != nil {
		b.Fatal(err)
	}
	h, _, err := history.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Compute", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compute(history.Slice(h), benchInput); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			computeWhole(h, benchInput)
		}
	})
}
