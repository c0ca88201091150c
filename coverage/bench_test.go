package coverage

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// benchRecords is the size of the benchmarks' history: past the 1M
// records from which a run's history stays in its file.
const benchRecords = 1_200_000

// benchGen writes a lock run's history record by record: 8 client slots
// acquiring (on 3 nodes, with a validity), writing, now and then
// extending, releasing or losing their lease, with a fault every few
// thousand records (a pause of one client or a partition of one node,
// healed about a thousand records later; the last one left unhealed).
type benchGen struct {
	rng   *rand.Rand
	n     int64
	t     int64
	step  [8]int // each slot's place in its round
	fault int64  // index of the open fault's start, -1 none
	kind  string
	enc   *json.Encoder
}

// writeBench writes a generated history of n records to path.
func writeBench(path string, n int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	g := &benchGen{rng: rand.New(rand.NewPCG(1, 2)), fault: -1, enc: json.NewEncoder(w)}
	for g.n < n {
		if err := g.next(n); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// next writes the next record (or a fault's two).
func (g *benchGen) next(n int64) error {
	g.t += g.rng.Int64N(1e6)
	switch {
	case g.fault < 0 && g.n%5000 == 4000 && g.n+2 < n:
		g.kind = "client-pause"
		o := history.Op{Process: history.NemesisProcess, F: history.FStart, Fault: g.kind, Clients: []string{fmt.Sprintf("c%d", g.rng.IntN(8)+1)}}
		if g.rng.IntN(2) == 0 {
			g.kind = "partition"
			o.Fault, o.Clients, o.Nodes = g.kind, nil, []string{fmt.Sprintf("n%d", g.rng.IntN(3)+1)}
		}
		g.fault = g.n
		return g.pair(o)
	case g.fault >= 0 && g.n-g.fault > 1000 && g.n+2 < n-5000:
		g.fault = -1
		return g.pair(history.Op{Process: history.NemesisProcess, F: history.FStop, Fault: g.kind})
	}
	p := g.rng.IntN(8)
	o := history.Op{Process: p, Client: fmt.Sprintf("c%d", p+1), Key: "k"}
	rounds := []struct {
		t history.Type
		f string
	}{{history.Invoke, history.FAcquire}, {history.OK, history.FAcquire}, {history.Invoke, history.FWrite},
		{history.OK, history.FWrite}, {history.Invoke, history.FExtend}, {history.OK, history.FExtend},
		{history.Invoke, history.FRelease}, {history.OK, history.FRelease}}
	r := rounds[g.step[p]]
	o.Type, o.F = r.t, r.f
	if r.t == history.OK && (r.f == history.FAcquire || r.f == history.FExtend) {
		o.Token, o.Validity, o.Nodes = fmt.Sprintf("t%d", g.n), g.t+2e9, []string{"n1", "n2", "n3"}
	}
	g.step[p] = (g.step[p] + 1) % len(rounds)
	if g.step[p] == 6 && g.rng.IntN(20) == 0 { // now and then the lease is lost instead
		o = history.Op{Process: p, Client: o.Client, Type: history.Info, F: history.FLost, Key: "k"}
		g.step[p] = 0
	}
	return g.emit(o)
}

// pair writes a nemesis action: its invoke and its ok.
func (g *benchGen) pair(o history.Op) error {
	o.Type = history.Invoke
	if err := g.emit(o); err != nil {
		return err
	}
	o.Type = history.OK
	return g.emit(o)
}

func (g *benchGen) emit(o history.Op) error {
	o.Index, o.Time = g.n, g.t
	g.n++
	return g.enc.Encode(o)
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
